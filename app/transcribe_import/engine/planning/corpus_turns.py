"""Turning pages already in a notebook: a plan whose pages take the turned pages' places.

A turn of a page in the corpus is a change to its notebook like a rescan's: a run of its
own (who asked and when in the run's history, crash-safe by the ingest transaction, undone
by ``revert``). Its plan has one ``import_into_notebook`` item. Each turned page is a new
page rendered, turned, from a copy of its source's stored bytes (the same sha256, so the
bytes are those imported, checked as they are copied); it replaces the page it turns, which
moves whole to the notebook's ``replaced_pages`` with its files. The new page keeps the
page's place, label, look and every key other tools wrote on it; its source keeps the name
of the file it was first imported from. Undoing the run takes the new page out and puts
the page as it was back, its render and its turn with it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.ingest.placement import live_records, notebook_words, page_words
from transcribe_import.engine.media.kinds import MEDIA_EXTENSIONS, Turn
from transcribe_import.engine.planning.plan import (
    ImportPlan,
    Op,
    Ordering,
    OrderingRule,
    PlanItem,
    PlanPage,
    PlanSource,
    SourceProvenance,
    new_plan_provenance,
    policy_id_for,
)
from transcribe_import.engine.planning.plan_values import DuplicatePolicy
from transcribe_import.engine.storage import project

MODE = "turn"  # the plan's and its run's ``mode``: a turn of pages in the corpus
TURN_KEY = "turns_pages"  # in an item's provenance: true for a turn of pages in the corpus
# What the importer writes on a page itself; every other key (a transcription, a tool's
# note) is carried to the turned page as it is.
_OWN_PAGE_KEYS = frozenset(
    {"id", "source_id", "page_index", "render_id", "render", "label", "look", project.TURN}
)


@dataclass(frozen=True)
class TurnedPage:
    """A page of the notebook to turn: its position, its id, its turn now and the turn it
    is given."""

    position: int
    page_id: str
    turn_now: Turn
    turn: Turn


def turn_plan(
    manifest: Mapping[str, Any], folder: Path, turns: Sequence[tuple[str, Turn]]
) -> tuple[ImportPlan, tuple[TurnedPage, ...]]:
    """The plan turning each of the notebook's pages in ``turns`` (page id, turn) so far
    clockwise from its file's upright (``Turn.NONE`` takes a turn back), and the pages it
    turns, in notebook order (a page turned so already is left as it is).

    ``manifest`` is the notebook's project.json and ``folder`` its folder. ValueError in
    words for a page the notebook does not have, a page named twice, a page whose stored
    file is missing or of a type this app does not render, or when every page named is
    turned so already (nothing to do).
    """
    pages = live_records(manifest)
    where = {str(p.get("id")): k for k, p in enumerate(pages)}
    sources = {str(s.get("id")): s for s in manifest.get("sources", []) if isinstance(s, dict)}
    nb = notebook_words(manifest)
    if not turns:
        raise ValueError("name the pages to turn, then the angle: PAGE... 90")
    if len({pid for pid, _turn in turns}) != len(turns):
        raise ValueError(f"a page of {nb} is named twice: name each page once")
    chosen: list[TurnedPage] = []
    for pid, turn in turns:
        if pid not in where:
            raise ValueError(f"notebook {nb} has no page {pid}")
        now = Turn(project.turn_of(pages[where[pid]]))
        if now is not turn:
            chosen.append(TurnedPage(where[pid] + 1, pid, now, turn))
    if not chosen:
        said = {"not turned" if t is Turn.NONE else f"turned {t.words}" for _p, t in turns}
        named = sorted(where[pid] + 1 for pid, _turn in turns)
        raise ValueError(
            f"{pages_words(named)} of {nb} {_is_are(len(named))} "
            f"{said.pop() if len(said) == 1 else 'turned so'} already: nothing to do"
        )
    chosen.sort(key=lambda c: c.position)
    # The pages of one file turned alike share one copy of it (a PDF's pages).
    by_source: dict[tuple[str, Turn], list[dict[str, Any]]] = {}
    for c in chosen:
        record = pages[c.position - 1]
        by_source.setdefault((str(record.get("source_id")), c.turn), []).append(record)
    plan_sources = tuple(
        _turned_source(sources.get(sid), records, folder, turn, nb)
        for (sid, turn), records in by_source.items()
    )
    replacements = tuple(
        (new.page_id, str(old.get("id")))
        for source, records in zip(plan_sources, by_source.values(), strict=True)
        for new, old in zip(source.pages, records, strict=True)
    )
    item = PlanItem(
        item_id=new_id(),
        op=Op.IMPORT_INTO_NOTEBOOK,
        notebook_id=str(manifest["id"]),
        title=None,
        sources=plan_sources,
        # The order is the notebook's: each page lands in the place of the page it turns.
        ordering=Ordering(OrderingRule.SEQUENCE, resolved=True),
        provenance={"label": _title(manifest), TURN_KEY: True},
        replacements=replacements,
    )
    plan = ImportPlan(
        plan_id=new_id(),
        # The notebook holds these bytes already: under skip_existing they would be skipped.
        import_policy_id=policy_id_for(DuplicatePolicy.CREATE_DUPLICATE.value),
        items=(item,),
        provenance=new_plan_provenance([], MODE, turned=item.notebook_id),
    )
    return plan, tuple(chosen)


def is_turn(item: PlanItem) -> bool:
    """Whether ``item`` turns pages in the corpus: its pages replace the pages they turn."""
    return item.op is Op.IMPORT_INTO_NOTEBOOK and item.provenance.get(TURN_KEY) is True


def item_turns(item: PlanItem) -> tuple[Turn, ...]:
    """The turns a turn of pages in the corpus gives its pages, in the order they replace
    the notebook's pages; () for every other item."""
    if not is_turn(item):
        return ()
    turn_of = {p.page_id: p.turn for s in item.sources for p in s.pages}
    return tuple(turn_of[new] for new, _old in item.replacements if new in turn_of)


def turned_words(turns: Sequence[Turn]) -> str:
    """``turned 90° clockwise``, ``no longer turned`` (every turn taken back), as a turn's
    pages are said to be once it is done."""
    how = turns_words(turns)
    return "no longer turned" if how == "back upright" else f"turned {how}"


def turns_words(turns: Sequence[Turn]) -> str:
    """``90° clockwise`` when every page is turned alike (``back upright``: no turn), else
    ``each its own way``."""
    alike = set(turns)
    if len(alike) != 1:
        return "each its own way"
    turn = alike.pop()
    return "back upright" if turn is Turn.NONE else turn.words


def turn_words(item: PlanItem, manifest: Mapping[str, Any] | None) -> str:
    """What a turn item does, in words: ``turns page 2 (2.jpg) 90° clockwise``, each page
    named as the notebook has it now: the turned page once it landed, else the page it
    turns (by its id when the notebook cannot be read)."""
    live = {str(p.get("id")) for p in live_records(manifest)} if manifest is not None else set()
    said = [
        page_words(manifest, new if new in live else old) if manifest is not None else f"page {old}"
        for new, old in item.replacements
    ]
    listed = said[0] if len(said) == 1 else ", ".join(said[:-1]) + f" and {said[-1]}"
    return f"turns {listed} {turns_words(item_turns(item))}"


def _turned_source(
    source: Mapping[str, Any] | None,
    records: list[dict[str, Any]],
    folder: Path,
    turn: Turn,
    nb: str,
) -> PlanSource:
    """A copy of ``source``'s stored file with the pages ``records``, turned ``turn``."""
    first = records[0]
    rel = source.get("path") if source is not None else None
    media_type = source.get("media_type") if source is not None else None
    sha = source.get("sha256") if source is not None else None
    if not isinstance(rel, str) or not isinstance(sha, str) or media_type not in MEDIA_EXTENSIONS:
        raise ValueError(
            f"page {first.get('id')} of {nb} has no stored file this app can render; "
            "run `transcribe-import doctor`, which says what is wrong with the notebook"
        )
    path = folder / rel
    try:
        st = path.stat()
    except OSError as exc:
        raise ValueError(
            f"{path}: the stored file of page {first.get('id')} of {nb} cannot be read "
            f"({exc.strerror}); run `transcribe-import doctor`, which puts a lost file back "
            "from the trash or says what to do"
        ) from None
    given = source.get("provenance") if source is not None else None
    prov: Mapping[str, Any] = given if isinstance(given, dict) else {}
    original = prov.get("original_path")
    name = prov.get("rel") if isinstance(prov.get("rel"), str) else None
    pages = tuple(
        PlanPage(
            page_id=new_id(),
            render_id=new_id(),
            page_index=int(r.get("page_index", 0)),
            # Keys other tools wrote on the page (a transcription) stay with it.
            extra={k: v for k, v in r.items() if k not in _OWN_PAGE_KEYS} or None,
            label=r["label"] if isinstance(r.get("label"), str) else None,
            look=r["look"] if isinstance(r.get("look"), str) else None,
            turn=turn,
        )
        for r in records
    )
    return PlanSource(
        source_id=new_id(),
        sha256=sha,
        media_type=str(media_type),
        pages=pages,
        provenance=SourceProvenance.for_path(
            path,
            rel=name or (original if isinstance(original, str) else rel),
            size=st.st_size,
            mtime=str(prov.get("mtime", "")),
            mtime_ns=st.st_mtime_ns,
            original=original if isinstance(original, str) else None,
        ),
    )


def _title(manifest: Mapping[str, Any]) -> str:
    title = manifest.get("title")
    return title if isinstance(title, str) and title.strip() else str(manifest.get("id"))


def _is_are(n: int) -> str:
    return "is" if n == 1 else "are"


def pages_words(positions: Sequence[int]) -> str:
    """``page 3``, ``pages 3 and 4``, ``pages 2, 5 and 7``: pages by their place."""
    if len(positions) == 1:
        return f"page {positions[0]}"
    listed = [str(n) for n in positions]
    return f"pages {', '.join(listed[:-1])} and {listed[-1]}"
