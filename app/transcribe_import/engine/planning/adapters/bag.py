"""Adapter "bag": each notebook of a verified bag is one group, and it keeps its ids.

The bag itself was checked by ``storage/bag_format.verify_bag``; here its payload is read the
way Transcribe exports a notebook (``data/notebooks/<id>/`` holding ``project.json``,
``sources/<source_id>.<ext>`` and ``renders/<render_id>.png``, as in the corpus) and each
``project.json`` is checked against the payload: every source and render it names is
there with the hash it names. Unlike every other adapter, the ids come from the bag: a
round trip keeps a notebook's identity, so transcriptions keyed by page id still fit.
The planner turns a ``BagGroup`` into a plan item (``planner.build_bag_plan``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.ids import is_sha256, is_valid_id, short_id
from transcribe_import.engine.base.text import counted, json_safe
from transcribe_import.engine.ingest.journal import render_rel_path, source_rel_path
from transcribe_import.engine.media import decode
from transcribe_import.engine.media.kinds import MEDIA_EXTENSIONS, PNG, RenderSettings
from transcribe_import.engine.planning.adapters.base import AdapterResult, Group, NotPlanned
from transcribe_import.engine.planning.bag import OWNED_KEYS, PAGE_KEYS, SOURCE_KEYS
from transcribe_import.engine.planning.plan import Op
from transcribe_import.engine.planning.scan import DEFAULT_SETTINGS, ScannedFile
from transcribe_import.engine.storage import fsio, project
from transcribe_import.engine.storage.bag_format import (
    BagFile,
    VerifiedBag,
    bag_error,
    notebook_folder,
)

PROJECT = project.PROJECT_FILE


@dataclass(frozen=True)
class BagRender:
    """A render in the bag that is what its project.json says: commit copies it."""

    sha256: str
    width: int
    height: int
    file: BagFile
    renderer: str | None = None  # as the bag's project.json records it (storage.project)


@dataclass(frozen=True)
class BagPage:
    page_id: str
    source_id: str
    page_index: int
    render_id: str
    render: BagRender | None  # None: rendered again from the source at commit
    extra: dict[str, Any] = field(hash=False)  # the entry's keys this app does not know


@dataclass(frozen=True)
class BagSource:
    source_id: str
    sha256: str
    media_type: str
    file: ScannedFile  # the bag's copy, probed like a scanned file
    extra: dict[str, Any] = field(hash=False)


@dataclass(frozen=True)
class BagGroup(Group):
    """A group that is a whole notebook of a bag, with everything its project.json says."""

    notebook_id_in_bag: str = ""
    folder: str = ""  # rel of its folder in the bag, with a trailing "/"
    manifest: dict[str, Any] = field(default_factory=dict, hash=False)  # minus OWNED_KEYS
    cover_page_id: str | None = None
    sources: tuple[BagSource, ...] = ()  # in the notebook's order (first page first)
    pages: tuple[BagPage, ...] = ()  # the notebook order
    rendered_again: tuple[str, ...] = ()  # why some pages will be rendered again
    # The pages a rescan replaced (its replaced_pages): their files land as the history.
    history: tuple[BagPage, ...] = ()


class BagAdapter:
    """Reads the notebooks out of a verified bag (not a scan: ``group_bag``, not ``group``)."""

    name = "bag"

    def group_bag(
        self, bag: VerifiedBag, *, settings: RenderSettings = DEFAULT_SETTINGS
    ) -> AdapterResult:
        groups: list[BagGroup] = []
        used: set[str] = set()
        left_out: list[NotPlanned] = []
        for rel in sorted(bag.payload):
            if rel.rsplit("/", 1)[-1] != PROJECT:
                continue
            group, files, skipped = _notebook(bag, rel, settings)
            nbid = group.notebook_id_in_bag
            twin = next((g for g in groups if g.notebook_id_in_bag == nbid), None)
            if twin is not None:
                raise bag_error(
                    ErrorCode.BAG_INVALID,
                    bag.shown(rel),
                    f"is a second copy of notebook {nbid} (the first is in {twin.folder}).",
                )
            groups.append(group)
            used |= files
            left_out += skipped
        if not groups:
            raise bag_error(
                ErrorCode.BAG_INVALID,
                str(bag.root),
                f"holds no notebook (no {PROJECT} under data/); is it a bag exported by "
                "Transcribe?",
            )
        named = {n.rel for n in left_out}
        for rel in sorted(set(bag.payload) - used):
            if f"{bag.name}/{rel}" not in named:
                left_out.append(
                    NotPlanned(
                        str(bag.payload[rel].path),
                        f"{bag.name}/{rel}",
                        "in the bag, but no notebook's project.json names it: not imported",
                    )
                )
        # Bag order, not natural order of labels: a bag lists its notebooks by id.
        return AdapterResult(tuple(groups), tuple(left_out))


# -- one notebook ----------------------------------------------------------------------------


def _invalid(where: str, what: str) -> TranscribeError:
    return bag_error(ErrorCode.BAG_INVALID, where, what)


def _manifest_doc(bag: VerifiedBag, rel: str) -> dict[str, Any]:
    shown = bag.shown(rel)
    try:
        doc = orjson.loads(
            fsio.read_bytes(bag.payload[rel].path, size=bag.payload[rel].size, follow_links=False)
        )
    except orjson.JSONDecodeError as exc:
        raise _invalid(shown, f"is not valid JSON ({exc}); export the bag again.") from None
    except OSError as exc:
        raise fsio.problem_from_oserror(exc, shown, "reading") from exc
    if not isinstance(doc, dict) or doc.get("format") != project.PROJECT_FORMAT:
        raise _invalid(shown, "is not a Transcribe notebook manifest (transcribe.project).")
    if doc.get("schema_version") != project.PROJECT_SCHEMA:
        raise _invalid(
            shown,
            f"has schema_version {doc.get('schema_version')!r}; this app reads version 1. "
            "Update the app, or export with the same version.",
        )
    if not is_valid_id(doc.get("id")):
        raise _invalid(shown, f"has id {doc.get('id')!r}, which is not a lower-case UUID.")
    if not isinstance(doc.get("sources"), list) or not isinstance(doc.get("pages"), list):
        raise _invalid(shown, "lacks its sources or pages list.")
    return doc


class _Ids:
    """Every id of one project.json: a lower-case UUID, and used once."""

    def __init__(self, shown: str, notebook_id: str) -> None:
        self.shown = shown
        self.seen = {notebook_id}

    def __call__(self, value: Any, what: str) -> str:
        if not is_valid_id(value):
            raise _invalid(self.shown, f"{what} {value!r} is not a lower-case UUID.")
        if value in self.seen:
            raise _invalid(self.shown, f"{what} {value} appears twice.")
        self.seen.add(value)
        return str(value)


def _notebook(
    bag: VerifiedBag, rel: str, settings: RenderSettings
) -> tuple[BagGroup, set[str], list[NotPlanned]]:
    """One notebook checked against the payload, the payload files it accounts for, and
    the sources it leaves out (a source no page uses has nothing to land)."""
    shown = bag.shown(rel)
    folder = rel[: -len(PROJECT)]
    doc = _manifest_doc(bag, rel)
    notebook_id = str(doc["id"])
    if folder != f"{notebook_folder(notebook_id)}/":
        raise _invalid(
            shown,
            f"is notebook {notebook_id}, which an export puts in {notebook_folder(notebook_id)}/; "
            "export the bag again.",
        )
    uid = _Ids(shown, notebook_id)
    used = {rel}

    entries: dict[str, dict[str, Any]] = {}
    for s in doc["sources"]:
        if not isinstance(s, dict):
            raise _invalid(shown, "has a source entry that is not an object.")
        sid = uid(s.get("id"), "source id")
        if not is_sha256(s.get("sha256")) or s.get("media_type") not in MEDIA_EXTENSIONS:
            raise _invalid(shown, f"source {sid} lacks a valid sha256 or a supported media_type.")
        _own_path(shown, f"source {sid}", s.get("path"), source_rel_path(sid, s["media_type"]))
        entries[sid] = s

    pages, rendered_again = _pages(bag, folder, doc, entries, uid, settings, used)
    history, again = _pages(bag, folder, doc, entries, uid, settings, used, history=True)
    rendered_again += again
    paged = {p.source_id for p in [*pages, *history]}
    sources: dict[str, BagSource] = {}
    left_out: list[NotPlanned] = []
    for sid, s in entries.items():
        file_rel = f"{folder}sources/{sid}.{MEDIA_EXTENSIONS[s['media_type']]}"
        if file_rel not in bag.payload:
            raise bag_error(
                ErrorCode.BAG_MISSING_FILE,
                bag.shown(file_rel),
                f"is source {sid} of {shown}, but it is not in the bag; export the bag again.",
            )
        used.add(file_rel)
        if bag.sha256[file_rel] != s["sha256"]:
            raise bag_error(
                ErrorCode.BAG_HASH_MISMATCH,
                bag.shown(file_rel),
                f"has sha256 {bag.sha256[file_rel]}, but {shown} says {s['sha256']}; export "
                "the bag again.",
            )
        if sid not in paged:
            # A plan imports a source through its pages, so one without any has no place in
            # the notebook's order. Said, not dropped silently.
            left_out.append(
                NotPlanned(
                    str(bag.payload[file_rel].path),
                    f"{bag.name}/{file_rel}",
                    f"source {sid} of notebook {notebook_id} has no page in its project.json: "
                    "not imported",
                )
            )
            continue
        wanted = 1 + max(p.page_index for p in [*pages, *history] if p.source_id == sid)
        scanned = _scanned(bag, file_rel, s["media_type"], wanted, settings)
        extra = {k: v for k, v in s.items() if k not in SOURCE_KEYS}
        sources[sid] = BagSource(sid, s["sha256"], s["media_type"], scanned, extra)

    cover = doc.get("cover_page_id")
    if cover is not None and cover not in {p.page_id for p in pages}:
        raise _invalid(shown, f"cover_page_id {cover!r} is not one of its pages.")
    title = doc.get("title")
    if not isinstance(title, str) or not title.strip():
        title = f"Notebook {short_id(notebook_id)}"
    title = " ".join(json_safe(title).split())
    in_order = tuple(sources[sid] for sid in dict.fromkeys(p.source_id for p in [*pages, *history]))
    group = BagGroup(
        op=Op.CREATE_NOTEBOOK,
        title=title,
        notebook_id=None,
        files=tuple(s.file for s in in_order),
        label=f"{bag.name}/{title}",
        provenance={
            "adapter": "bag",
            "bag": str(bag.root),
            "folder": str(bag.root / folder),
            "bag_info": bag.info,
        },
        notebook_id_in_bag=notebook_id,
        folder=folder,
        manifest={k: v for k, v in doc.items() if k not in OWNED_KEYS},
        cover_page_id=cover,
        sources=in_order,
        pages=tuple(pages),
        rendered_again=tuple(rendered_again),
        history=tuple(history),
    )
    return group, used, left_out


def _pages(
    bag: VerifiedBag,
    folder: str,
    doc: Mapping[str, Any],
    entries: Mapping[str, dict[str, Any]],
    uid: _Ids,
    settings: RenderSettings,
    used: set[str],
    *,
    history: bool = False,
) -> tuple[list[BagPage], list[str]]:
    """The notebook's pages, or (``history``) the records of the pages a rescan replaced."""
    shown = bag.shown(f"{folder}{PROJECT}")
    pages: list[BagPage] = []
    seen: set[tuple[str, int]] = set()
    rendered_again: list[str] = []
    if history:
        entries_ = doc.get(project.REPLACED_PAGES, [])
        if not isinstance(entries_, list) or not all(
            isinstance(e, dict) and isinstance(e.get("page"), dict) for e in entries_
        ):
            raise _invalid(shown, f"has a {project.REPLACED_PAGES} entry without its page record.")
        records = [e["page"] for e in entries_]
    else:
        records = doc["pages"]
    for p in records:
        if not isinstance(p, dict):
            raise _invalid(shown, "has a page entry that is not an object.")
        pid = uid(p.get("id"), "page id")
        rid = uid(p.get("render_id"), "render id")
        sid = p.get("source_id")
        index = p.get("page_index")
        if not isinstance(sid, str) or sid not in entries:
            raise _invalid(shown, f"page {pid} names source {sid!r}, which it does not list.")
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise _invalid(shown, f"page {pid} has no valid page_index.")
        if (sid, index) in seen:
            raise _invalid(
                shown,
                f"page {pid} is page {index} of source {sid} a second time; a notebook holds "
                "each page of a source once.",
            )
        seen.add((sid, index))
        r = p.get("render")
        if isinstance(r, dict):
            _own_path(shown, f"the render of page {pid}", r.get("path"), render_rel_path(rid))
        render_rel = f"{folder}renders/{rid}.png"
        if render_rel in bag.payload:
            used.add(render_rel)
        render, why = _render(bag, render_rel, p, settings)
        if render is None:
            rendered_again.append(f"page {pid}: {why}")
        extra = {k: v for k, v in p.items() if k not in PAGE_KEYS}
        pages.append(BagPage(pid, sid, index, rid, render, extra))
    return pages, rendered_again


def _own_path(shown: str, what: str, given: object, own: str) -> None:
    """A file's ``path`` in a bag's project.json is its own place in the notebook, or absent.

    The import never follows it (each file is found by its id), but a path that points
    elsewhere (``../../etc/passwd``, ``/etc/passwd``) is a damaged or forged document,
    refused by name rather than carried into the corpus.
    """
    if given is not None and given != own:
        raise _invalid(
            shown,
            f"gives {what} the path {given!r}, which is not its place in the notebook "
            f"({own}); export the bag again.",
        )


def _render(
    bag: VerifiedBag, rel: str, p: Mapping[str, Any], settings: RenderSettings
) -> tuple[BagRender | None, str]:
    """The page's render from the bag when it is there and is what project.json says;
    otherwise None and why (the page is then rendered again from its source)."""
    r = p.get("render")
    if rel not in bag.payload:
        return None, "the bag holds no render of it"
    if not isinstance(r, dict) or not is_sha256(r.get("sha256")):
        return None, "its project.json entry gives no render sha256"
    if bag.sha256[rel] != r["sha256"]:
        return None, f"{rel} does not have the sha256 its project.json entry gives"
    f = bag.payload[rel]
    try:
        info = decode.probe(f.path, settings, display_path=bag.shown(rel))
    except TranscribeError as exc:
        return None, f"{rel} cannot be read as an image ({exc.code})"
    if info.media_type != PNG or (info.width, info.height) != (r.get("width"), r.get("height")):
        return None, f"{rel} is not the {r.get('width')}x{r.get('height')} PNG it should be"
    renderer = project.renderer_of(dict(p))
    return BagRender(r["sha256"], int(info.width or 0), int(info.height or 0), f, renderer), ""


def _scanned(
    bag: VerifiedBag, rel: str, media_type: str, wanted: int, settings: RenderSettings
) -> ScannedFile:
    """A source of the bag as the scan would have found it: probed, with its verified hash."""
    f = bag.payload[rel]
    shown = bag.shown(rel)
    info = decode.probe(f.path, settings, display_path=shown)
    if info.media_type != media_type:
        raise _invalid(shown, f"holds {info.media_type}, but its project.json says {media_type}.")
    if info.page_count < wanted:
        raise _invalid(
            shown,
            f"has {counted(info.page_count, 'page')}, but its project.json uses page {wanted - 1} "
            "of it.",
        )
    return ScannedFile.probed(
        f.path, bag.root, f"{bag.name}/{rel}", f.size, f.mtime_ns, info, bag.sha256[rel]
    )
