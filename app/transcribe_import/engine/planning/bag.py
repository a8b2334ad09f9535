"""A bag as a plan source: its check driven for the planner, its notebook against the corpus.

A bag is untrusted input: ``run_verify`` checks each bag whole with the bag format's one
check (``storage/bag_format.verify_bag``) before anything is planned from it, reporting its
progress as a scan's. A bag this app exported: ``adapters/bag.py`` reads the notebooks out
of the verified payload and ``planner.build_bag_plan`` makes them plan items. Any other
bag: ``scan_payload`` scans its ``data/`` as folder mode scans a folder, and every page
file must still have the sha256 its check took (so the hash a plan records, and commit
checks each copy against, is of the bytes the bag's own manifests vouched for);
``adapters/foreign_bag.py`` groups it as folder mode does.

A bag's notebook whose id the corpus already uses is either the same notebook
(``same_notebook``: it is ``unchanged`` and skipped) or a conflict, which a person settles
with one of two plan edits (``edits.skip_notebook``, ``edits.import_as_copy``). Nothing is
merged.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Generator, Mapping, Sequence
from pathlib import Path
from typing import Any

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.progress import Events, drive
from transcribe_import.engine.media.kinds import RenderSettings
from transcribe_import.engine.planning.plan import PlanItem
from transcribe_import.engine.planning.scan import ScanCancelled, ScanResult, run_scan
from transcribe_import.engine.planning.scan_progress import ScanPhase, ScanProgress
from transcribe_import.engine.storage.bag_format import (
    BAG_INFO,
    BAGIT_TXT,
    DATA,
    VerifiedBag,
    bag_error,
    verify_bag,
)

# project.json keys the import writes itself; every other key lands as the bag has it.
OWNED_KEYS = frozenset(
    {
        "format",
        "schema_version",
        "id",
        "title",
        "cover_page_id",
        "updated_at",
        "import_run_id",
        "sources",
        "pages",
    }
)
SOURCE_KEYS = frozenset(
    {
        "id",
        "sha256",
        "media_type",
        "size",
        "path",
        "page_count",
        "import_run_id",
        "item_id",
        "provenance",
    }
)
PAGE_KEYS = frozenset({"id", "source_id", "page_index", "render_id", "render"})

_PROGRESS_EVERY = 64  # payload files hashed between two progress events


def _checked(
    root: Path, should_stop: Callable[[], bool] | None
) -> Generator[ScanProgress, None, VerifiedBag]:
    """``verify_bag`` of ``root`` as a scan's progress; ``ScanCancelled`` soon after
    ``should_stop()`` turns true (it is asked at each of the check's events)."""
    events = Events(verify_bag(root))
    for event in events:
        if event.total == 0:
            yield ScanProgress(ScanPhase.WALKING, 0, 0, event.current)
            continue
        if should_stop is not None and should_stop():
            raise ScanCancelled("the bag check was cancelled")
        if event.checked % _PROGRESS_EVERY == 0 or event.checked == event.total:
            yield ScanProgress(ScanPhase.INSPECTING, event.total, event.checked, event.current)
    return events.result


def run_verify(
    roots: Sequence[Path],
    *,
    should_stop: Callable[[], bool] | None = None,
    on_progress: Callable[[ScanProgress], None] | None = None,
) -> list[VerifiedBag]:
    """Verify every bag in ``roots``, handing progress to ``on_progress``."""
    return [drive(_checked(root, should_stop), on_progress) for root in roots]


# -- a bag another tool made ------------------------------------------------------------------


def scan_payload(
    bags: Sequence[VerifiedBag],
    *,
    settings: RenderSettings,
    workers: int,
    should_stop: Callable[[], bool] | None = None,
    on_progress: Callable[[ScanProgress], None] | None = None,
) -> ScanResult:
    """The page files of verified bags, scanned as folder mode scans each bag's ``data/``.

    A file is named ``<bag>/<path under data/>`` (a bag's payload folder is not a notebook
    of its own). Refused, naming the file: one that is not in the payload the check found,
    or whose bytes are not the ones it hashed (changed since).
    """
    by_root = {b.root / DATA: b for b in bags}
    result = run_scan(
        list(by_root),
        on_progress=on_progress,
        settings=settings,
        workers=workers,
        should_stop=should_stop,
    )
    files = []
    for f in result.files:
        bag = by_root[f.root]
        if f.rel not in bag.payload:
            raise bag_error(
                ErrorCode.BAG_UNLISTED_FILE,
                str(f.path),
                "appeared in the bag after it was checked; nothing vouches for it. Remove it, "
                "or make the bag again.",
            )
        if f.sha256 is not None and f.sha256 != bag.sha256[f.rel]:
            raise bag_error(
                ErrorCode.BAG_HASH_MISMATCH,
                str(f.path),
                "changed after the bag was checked against its manifests (is something still "
                "writing to it?). Plan again once nothing is.",
            )
        files.append(dataclasses.replace(f, root=bag.root, rel=_named(bag, f.rel)))
    ignored = tuple(
        dataclasses.replace(i, rel=_named(by_root[root], i.rel))
        for i in result.ignored
        for root in by_root
        if i.path == root or root in i.path.parents
    )
    return ScanResult(tuple(b.root for b in bags), tuple(files), ignored)


def _named(bag: VerifiedBag, rel: str) -> str:
    # "data/box 1/p 1.jpg" -> "<bag>/box 1/p 1.jpg": folder labels and titles as folder mode's
    return f"{bag.name}/{rel.removeprefix(DATA + '/')}" if rel != DATA else bag.name


def flat_title(bag: VerifiedBag) -> str:
    """The title of the notebook of page files directly in a bag's ``data/``: what its
    bag-info.txt calls it (External-Identifier, else Title), else the bag's folder name."""
    for label in ("External-Identifier", "Title"):
        value = " ".join(bag.info.get(label, "").split())
        if value:
            return value
    return bag.name


def notebook_provenance(bag: VerifiedBag) -> dict[str, Any]:
    """What a notebook from a bag another tool made keeps of it in its project.json."""
    return {"bag": bag.name, BAG_INFO: dict(bag.info)}


def refuse_bags_inside(scan: ScanResult) -> None:
    """A folder planned as page files must not hold a bag: its manifests would go unchecked.

    Refused naming the bag, which is to be planned on its own (it is then checked).

    Every folder from a file's up to its root is looked at once. The folders are gathered
    first, as strings, and only then looked at: with a ``stat`` between every few files
    (and a pathlib ``Path`` hashed for every file) the GIL changed hands so often, for a
    quarter of a second at the end of a scan of 100,000 files, that the window's thread,
    waiting for it, went up to 212 ms without it (``base/short_calls``).
    """
    folders: dict[str, str] = {}  # each folder to look at -> the root it was found under
    for f in scan.files:
        root = str(f.root)
        under = root if root.endswith(os.sep) else root + os.sep
        folder = os.path.dirname(str(f.path))
        while folder not in folders and (folder == root or folder.startswith(under)):
            folders[folder] = root
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
    bags = sorted((f, r) for f, r in folders.items() if os.path.isfile(os.path.join(f, BAGIT_TXT)))
    if not bags:
        return
    (folder, root), others = bags[0], [f for f, _ in bags[1:]]
    code = ErrorCode.BAG_INVALID
    if not others:
        what = (
            f"{folder}: is a BagIt bag inside {root}; plan the bag on its own so its manifests "
            "are checked (plan BAG, or drop it on the window alone)"
        )
    else:
        verb = "is" if len(others) == 1 else "are"
        named = others[0] if len(others) == 1 else f"{', '.join(others[:-1])} and {others[-1]}"
        what = (
            f"{folder}: is a BagIt bag inside {root}, and so {verb} {named}; plan the bags on "
            "their own so their manifests are checked (plan BAG BAG…, or drop the bags on the "
            "window without the folder)"
        )
    # The code in the words too, as every refusal of a bag says it (bag_format.bag_error).
    raise TranscribeError(code, f"{what}. Nothing was planned (code {code}).", path=folder)


# -- a bag's notebook in the corpus ----------------------------------------------------------


def _content_of_manifest(doc: Mapping[str, Any]) -> dict[str, Any]:
    """What of a project.json a bag restore decides: everything but the import's own
    bookkeeping (paths, sizes, runs, provenance, updated_at). Two notebooks with equal
    content hold the same thing."""
    sources = {}
    for s in doc.get("sources", []):
        if isinstance(s, dict):
            sources[str(s.get("id"))] = {
                "sha256": s.get("sha256"),
                "media_type": s.get("media_type"),
                "page_count": s.get("page_count"),
                "extra": {k: v for k, v in s.items() if k not in SOURCE_KEYS},
            }
    pages = []
    for p in doc.get("pages", []):
        if isinstance(p, dict):
            got = p.get("render")
            render: Mapping[str, Any] = got if isinstance(got, dict) else {}
            pages.append(
                {
                    "id": p.get("id"),
                    "source_id": p.get("source_id"),
                    "page_index": p.get("page_index"),
                    "render_id": p.get("render_id"),
                    "render": [render.get("sha256"), render.get("width"), render.get("height")],
                    "extra": {k: v for k, v in p.items() if k not in PAGE_KEYS},
                }
            )
    return {
        "title": doc.get("title"),
        "cover_page_id": doc.get("cover_page_id"),
        "keys": {k: v for k, v in doc.items() if k not in OWNED_KEYS},
        "sources": sources,
        "pages": pages,
    }


def same_notebook(doc: Mapping[str, Any], item: PlanItem) -> bool:
    """Whether the corpus notebook ``doc`` holds exactly what the bag item would restore.

    Every source counts, excluded or not: the question is whether the notebook is the
    bag's. A page the bag has no render for is rendered at commit, so any render of it
    matches.
    """
    if item.restore is None:
        return False
    have = _content_of_manifest(doc)
    by_id = {p.page_id: (s, p) for s in item.sources for p in s.pages}
    pages = []
    for pid in item.restore.page_order:
        s, p = by_id[pid]
        render = [p.render.sha256, p.render.width, p.render.height] if p.render else None
        pages.append(
            {
                "id": pid,
                "source_id": s.source_id,
                "page_index": p.page_index,
                "render_id": p.render_id,
                "render": render,
                "extra": dict(p.extra or {}),
            }
        )
    if len(pages) == len(have["pages"]):
        for want, got in zip(pages, have["pages"], strict=True):
            if want["render"] is None:
                want["render"] = got["render"]
    wanted = {
        "title": item.title,
        "cover_page_id": item.cover_page_id,
        "keys": dict(item.restore.manifest),
        "sources": {
            s.source_id: {
                "sha256": s.sha256,
                "media_type": s.media_type,
                "page_count": len(s.pages),
                "extra": dict(s.extra or {}),
            }
            for s in item.sources
        },
        "pages": pages,
    }
    return wanted == have
