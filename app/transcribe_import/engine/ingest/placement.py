"""Where an item's new pages go in a notebook, and the pages their rescans replace.

An ``import_into_notebook`` item may put its pages at a position (``Placement.at``: the
1-based place its first new page takes, the pages from there on moving down) or right
after a page (``Placement.after_page``) instead of at the end, and may replace pages by
their rescans. Every other page keeps its id and its place; a replaced page's record
moves into the manifest's ``replaced_pages`` (the notebook's history) and its source and
render stay in the notebook, listed, never deleted (docs/formats.md, project.json).

Each rule against the notebook is one function that returns a ``Refusal`` (its own
code, its words) or None: validate makes a plan problem of it, and the ingest
transaction, which checks again under the notebook's lock, an error. ``anchor`` turns a
placement into what the journal records (the page the new pages follow), and
``apply_pages`` lands a transaction's pages by it: the one path a live ingest and a
recovery take. ``find_page`` reads the page a person names. No I/O here.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.text import counted, quoted_title
from transcribe_import.engine.storage import project

# The journal's record of where a transaction's new pages go (absent: at the end).
AFTER_PAGE_ID = "after_page_id"


@dataclass(frozen=True)
class Placement:
    """Where an item's new pages go: at a 1-based position, or right after a page."""

    at: int | None = None
    after_page: str | None = None

    def __post_init__(self) -> None:
        if (self.at is None) == (self.after_page is None):
            raise ValueError("a placement is either a position or a page to follow")


@dataclass(frozen=True)
class Refusal:
    """A rule said no: its code and its words, which name the notebook and the page."""

    code: ErrorCode
    words: str

    def error(self, advice: str, *, item: str | None = None) -> TranscribeError:
        return TranscribeError(self.code, f"{self.words} {advice}", item=item)


# -- naming a notebook's pages -----------------------------------------------------------------


def live_records(manifest: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The notebook's page records, in order."""
    return [p for p in manifest["pages"] if isinstance(p, dict)]


def notebook_words(manifest: Mapping[str, Any]) -> str:
    """The notebook as a person knows it: “its title”, else its id."""
    title = manifest.get("title")
    return (
        quoted_title(title) if isinstance(title, str) and title.strip() else str(manifest.get("id"))
    )


def file_name(manifest: Mapping[str, Any], source_id: Any) -> str | None:
    """The name of the file a source was imported from, as the notebook recorded it."""
    for s in manifest.get("sources", []):
        if isinstance(s, dict) and s.get("id") == source_id:
            prov = s.get("provenance")
            path = prov.get("original_path") if isinstance(prov, dict) else None
            return posixpath.basename(path.replace("\\", "/")) if isinstance(path, str) else None
    return None


def page_words(manifest: Mapping[str, Any], page_id: str) -> str:
    """A page of the notebook as a person finds it: its position, label and file name (a
    page a rescan replaced: its id, label and file name)."""

    def said(p: Mapping[str, Any]) -> str:
        names = [f"“{p['label']}”"] if isinstance(p.get("label"), str) else []
        name = file_name(manifest, p.get("source_id"))
        names += [name] if name else []
        return f" ({', '.join(names)})" if names else ""

    for number, p in enumerate(live_records(manifest), 1):
        if p.get("id") == page_id:
            return f"page {number}{said(p)}"
    for record in project.replaced_records(dict(manifest)):
        if record.get("id") == page_id:
            return f"page {page_id}{said(record)}, now replaced"
    return f"page {page_id}"


def live_page(manifest: Mapping[str, Any], page_id: str) -> str | None:
    """The page of the notebook ``page_id`` is now: itself, or the rescan that replaced it
    (through later rescans too); None when the notebook has neither."""
    live = {p.get("id") for p in live_records(manifest)}
    by_old = {
        e["page"].get("id"): e.get("replaced_by") for e in project.replaced_entries(dict(manifest))
    }
    seen: set[str] = set()
    while page_id not in live:
        nxt = by_old.get(page_id)
        if not isinstance(nxt, str) or page_id in seen:
            return None
        seen.add(page_id)
        page_id = nxt
    return page_id


def find_page(manifest: Mapping[str, Any], text: str) -> str:
    """The page id a person means by ``text``; ValueError in words when none or several.

    Read in this order: a page id; a page label (``12v``); the name of the file it was
    imported from (``scan 7.jpg``); a number, the page's position (1 is the first page), or,
    past the last page, the start of a page id that happens to be all digits; the start of a
    page id (at least 4 characters).
    """
    key = text.strip()
    pages = live_records(manifest)
    ids = [str(p.get("id")) for p in pages]
    nb = notebook_words(manifest)
    if key in ids:
        return key
    for what, named in (
        ("labelled", lambda p: p.get("label")),
        ("imported from", lambda p: file_name(manifest, p.get("source_id"))),
    ):
        found = [k for k, p in enumerate(pages) if named(p) == key]
        if len(found) == 1:
            return ids[found[0]]
        if found:
            where = ", ".join(str(k + 1) for k in found)
            raise ValueError(
                f"notebook {nb} has {len(found)} pages {what} {key!r} (pages {where}); "
                "name one by its position or its id"
            )
    prefixed = [i for i in ids if len(key) >= 4 and i.startswith(key.lower())]
    if key.isdigit():
        number = int(key)
        if 1 <= number <= len(pages):
            return ids[number - 1]
        if len(prefixed) == 1:  # past the last page: the start of an id (ids may be all digits)
            return prefixed[0]
        raise ValueError(
            f"notebook {nb} has {counted(len(pages), 'page')}; there is no page {number}"
        )
    if len(prefixed) == 1:
        return prefixed[0]
    if prefixed:
        raise ValueError(f"{key!r} starts {len(prefixed)} page ids of notebook {nb}; give more")
    raise ValueError(
        f"notebook {nb} has no page {key!r}: name a page by its position (1 to {len(pages)}), "
        f"its label, its file's name or its id (`transcribe-import notebooks "
        f"{manifest.get('id')}` lists them)"
    )


# -- the rules -------------------------------------------------------------------------------


def position_refusal(manifest: Mapping[str, Any], at: int) -> Refusal | None:
    """A position is one of the notebook's places: 1 (the start) to its pages + 1 (the end)."""
    count = len(live_records(manifest))
    if 1 <= at <= count + 1:
        return None
    return Refusal(
        ErrorCode.PLACEMENT_OUT_OF_RANGE,
        f"Notebook {notebook_words(manifest)} has {counted(count, 'page')}, so new pages can go at "
        f"position 1 (the start) to {count + 1} (the end), not at position {at}.",
    )


def after_page_refusal(manifest: Mapping[str, Any], page_id: str) -> Refusal | None:
    """New pages can follow a page the notebook has (or the rescan that replaced it)."""
    if live_page(manifest, page_id) is not None:
        return None
    return Refusal(
        ErrorCode.PLACEMENT_PAGE_NOT_FOUND,
        f"Notebook {notebook_words(manifest)} has no page {page_id}, so the new pages cannot "
        "go after it.",
    )


def replaced_refusal(
    manifest: Mapping[str, Any], old: str, new: str, rescan: str
) -> Refusal | None:
    """A rescan (``new``, the file ``rescan``) replaces a page the notebook has.

    None too when that rescan replaced it already (an earlier checkpoint or run landed it).
    """
    if old in {p.get("id") for p in live_records(manifest)}:
        return None
    nb = notebook_words(manifest)
    for e in project.replaced_entries(dict(manifest)):
        if e["page"].get("id") != old:
            continue
        if e.get("replaced_by") == new:
            return None
        now = e.get("replaced_by")
        by = page_words(manifest, now) if isinstance(now, str) else "another page"
        return Refusal(
            ErrorCode.REPLACED_PAGE_NOT_FOUND,
            f"Page {old} of notebook {nb} was already replaced by a rescan ({by}, on "
            f"{e.get('replaced_at')}), so {rescan} cannot replace it; replace that page instead.",
        )
    return Refusal(
        ErrorCode.REPLACED_PAGE_NOT_FOUND,
        f"Notebook {nb} has no page {old}, so {rescan} cannot replace it.",
    )


def placement_refusal(manifest: Mapping[str, Any], placement: Placement) -> Refusal | None:
    """The placement's own rule: a position in range, or a page the notebook has."""
    if placement.at is not None:
        return position_refusal(manifest, placement.at)
    assert placement.after_page is not None
    return after_page_refusal(manifest, placement.after_page)


# -- blocks of new pages, each at its place ---------------------------------------------------


def blocks(
    source_ids: Sequence[str],
    placement: Placement | None,
    places: Sequence[tuple[str, Placement]] = (),
) -> list[tuple[Placement | None, list[str]]]:
    """The sources that land together, in order, and where each block goes: the maximal
    runs of consecutive sources with the same place, a source's place being its own in
    ``places`` (source id, place), else ``placement`` (None: the end). An item completing a
    notebook has one place per gap its names fill (planning/reimport.py); every other item
    one block. Each block lands after the ones before it, a transaction never spanning two."""
    own = dict(places)
    out: list[tuple[Placement | None, list[str]]] = []
    for sid in source_ids:
        where = own.get(sid, placement)
        if out and out[-1][0] == where:
            out[-1][1].append(sid)
        else:
            out.append((where, [sid]))
    return out


# -- landing pages by a placement ------------------------------------------------------------


def anchor(manifest: Mapping[str, Any], placement: Placement | None) -> dict[str, Any] | None:
    """What the journal records of ``placement`` (checked first): the page the new pages
    follow, ``None`` for the start; None for the end (a position one past the last page)."""
    if placement is None:
        return None
    if placement.at is not None:
        pages = live_records(manifest)
        if placement.at > len(pages):
            return None
        return {AFTER_PAGE_ID: None if placement.at == 1 else pages[placement.at - 2].get("id")}
    assert placement.after_page is not None
    return {AFTER_PAGE_ID: live_page(manifest, placement.after_page)}


def checked_anchor(
    manifest: Mapping[str, Any],
    placement: Placement | None,
    replaces: Sequence[tuple[str, str]],
    names: Mapping[str, str],
    *,
    item: str | None,
) -> dict[str, Any] | None:
    """``anchor`` of ``placement`` once every rule holds for the notebook as it is now (the
    ingest transaction asks under the notebook's lock); the first refusal raises its error.

    ``names``: the transaction's page ids and their files; rescans of other pages are not
    this transaction's to check.
    """
    again = "The notebook changed since the plan was validated; validate the plan again."
    if placement is not None:
        refusal = placement_refusal(manifest, placement)
        if refusal is not None:
            raise refusal.error(again, item=item)
    for new, old in replaces:
        if new in names:
            refusal = replaced_refusal(manifest, old, new, names[new])
            if refusal is not None:
                raise refusal.error(again, item=item)
    return anchor(manifest, placement)


def apply_pages(
    manifest: dict[str, Any],
    pages: Sequence[dict[str, Any]],
    *,
    placement: Mapping[str, Any] | None,
    replacements: Mapping[str, str],
    import_run_id: str | None,
    item_id: str | None,
    now: str,
) -> None:
    """Put ``pages`` (entries the manifest does not list yet) into ``manifest["pages"]``.

    A page in ``replacements`` takes the place of the page it replaces, whose record moves
    to ``replaced_pages`` (the cover follows it: the rescan becomes the cover); the others
    go, in order, after the anchor page (``placement``, from ``anchor``), at the start,
    or at the end. A replaced page or an anchor that is no longer there (the manifest was
    edited by hand since the journal was written) never loses a page: it lands in the block.
    """
    live: list[Any] = manifest["pages"]
    index = {p.get("id"): k for k, p in enumerate(live) if isinstance(p, dict)}
    block: list[dict[str, Any]] = []
    swapped: dict[str, str] = {}
    for page in pages:
        old = replacements.get(page["id"])
        k = index.pop(old, None) if old is not None else None
        if k is None:
            block.append(page)
            continue
        history = manifest.setdefault(project.REPLACED_PAGES, [])
        history.append(
            {
                "page": live[k],
                "replaced_by": page["id"],
                "import_run_id": import_run_id,
                "item_id": item_id,
                "replaced_at": now,
            }
        )
        live[k] = page
        swapped[str(old)] = page["id"]
        if manifest.get("cover_page_id") == old:
            manifest["cover_page_id"] = page["id"]
    if not block:
        return
    if placement is None:
        live.extend(block)
        return
    after = placement.get(AFTER_PAGE_ID)
    after = swapped.get(after, after) if isinstance(after, str) else None
    at = 0
    if after is not None:
        found = [k for k, p in enumerate(live) if isinstance(p, dict) and p.get("id") == after]
        at = found[0] + 1 if found else len(live)
    live[at:at] = block


def land_history(manifest: dict[str, Any], pages: Sequence[dict[str, Any]]) -> bool:
    """A restore's replaced pages landed (``pages``, their journal entries): their records
    in ``replaced_pages`` get the importer's own fields as they landed (render id, path,
    hash and size, source, page index), as every page's do; whether any changed."""
    landed = {p["id"]: p for p in pages}
    changed = False
    for record in project.replaced_records(manifest):
        entry = landed.get(record.get("id"))
        if entry is None:
            continue
        for key in ("source_id", "page_index", "render_id", "render"):
            if record.get(key) != entry.get(key):
                record[key] = entry.get(key)
                changed = True
    return changed
