"""Pages of a PDF moved among its own pages: which drags and keys do that, and the edit they make.

A plan's page order is its files' order, a file of several pages (a PDF, a multi-page
TIFF) holding its pages together in the order chosen for them (``source.pages``). So a
drag or a Move key on some, not all, of one such file's pages reorders them among that
file's pages: the engine's own ``FILE#N`` sequence (``api.reorder(sequence=…)``, what the
CLI's ``order --sequence scan.pdf#3 …`` makes), one undoable edit. Anything else moves
whole files, as before (``ordering.move``). A page of a PDF cannot stand between two other
files: that would split the file in two, which a plan does not do; the refusal says so.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication

from transcribe_import.engine import api
from transcribe_import.engine.planning.plan import PageRef, PlanItem, PlanSource
from transcribe_import.gui.models.page_rows import PageRow

PageKey = tuple[str, int]  # a page of the plan: its source's id and its index in that file


def _tr(text: str) -> str:
    return QCoreApplication.translate("PageMoves", text)


def part_of_one_file(item: PlanItem, keys: Sequence[PageKey]) -> PlanSource | None:
    """The file whose pages ``keys`` are, when they are some, not all, of the imported pages
    of one file of several; None otherwise (then whole files move)."""
    source_ids = {source_id for source_id, _index in keys}
    if len(source_ids) != 1:
        return None
    [source_id] = source_ids
    source = next((s for s in item.sources if s.source_id == source_id), None)
    if source is None or not source.imported:
        return None
    picked = {index for _sid, index in keys}
    ours = {p.page_index for p in source.pages}
    return source if picked < ours else None


def move_in_file(item: PlanItem, source: PlanSource, picked: Sequence[int], to: int) -> PlanItem:
    """The pages ``picked`` (indexes in the file) of ``source`` moved to land before its page
    at position ``to`` among its pages (``len(source.pages)``: after the last), in their
    order; the item unchanged when nothing moves (a drop in place is not a decision)."""
    wanted = set(picked)
    moving = [p for p in source.pages if p.page_index in wanted]
    before = sum(1 for p in source.pages[:to] if p.page_index in wanted)
    rest = [p for p in source.pages if p.page_index not in wanted]
    at = to - before
    order = rest[:at] + moving + rest[at:]
    if order == list(source.pages):
        return item
    rel = source.provenance.rel
    return api.reorder(item, sequence=[PageRef(rel, p.page_index + 1) for p in order])


def step_in_file(item: PlanItem, source: PlanSource, picked: Sequence[int], step: int) -> PlanItem:
    """The pages ``picked`` one place earlier (``step`` -1) or later (+1) among the file's
    pages, together; ValueError in words at the file's first or last page."""
    wanted = set(picked)
    positions = [i for i, p in enumerate(source.pages) if p.page_index in wanted]
    to = positions[0] - 1 if step < 0 else positions[-1] + 2
    if not 0 <= to <= len(source.pages):
        raise ValueError(alone_words(source))
    return move_in_file(item, source, picked, to)


def can_step(item: PlanItem, keys: Sequence[PageKey], step: int) -> bool | None:
    """Whether those pages can move one place within their file; None when they are not
    part of one file (whole files move)."""
    source = part_of_one_file(item, keys)
    if source is None:
        return None
    wanted = {index for _sid, index in keys}
    positions = [i for i, p in enumerate(source.pages) if p.page_index in wanted]
    return positions[0] > 0 if step < 0 else positions[-1] < len(source.pages) - 1


def place_in_file(rows: Sequence[PageRow], source_id: str, row: int) -> int | None:
    """Where among the file's pages a drop before ``row`` lands (its position in
    ``source.pages``); None when ``row`` is outside the file's pages. A drop just after the
    file's last page lands there, at the file's end."""
    mine = [r for r, page_row in enumerate(rows) if page_row.source.source_id == source_id]
    if not mine or not mine[0] <= row <= mine[-1] + 1:
        return None
    return row - mine[0]


def alone_words(source: PlanSource) -> str:
    """Why a page of a file of several does not move out of it, and what does."""
    return _tr(
        "A page of {file} moves only among the pages of {file}: to move the whole file, "
        "select all of its pages."
    ).format(file=source.name)
