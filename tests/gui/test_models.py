"""The column-table base model, and every table model built on it, checked by qtmodeltester."""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from operator import attrgetter
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QIcon
from pytestqt.qtbot import QtBot

from transcribe_import.engine import api
from transcribe_import.engine.api import RunCounts
from transcribe_import.engine.planning import edits, ordering
from transcribe_import.engine.planning.plan import Op, PlanItem
from transcribe_import.engine.planning.planner import build_plan
from transcribe_import.engine.planning.problems import PlanProblem, ProblemCode, ProblemSeverity
from transcribe_import.engine.planning.scan import run_scan
from transcribe_import.engine.runs.model import ItemOutcome, ItemState, RunStatus
from transcribe_import.engine.storage.corpus import Corpus, NotebookSummary
from transcribe_import.gui.models import order_cues, plan_items
from transcribe_import.gui.models.base import (
    ID_ROLE,
    LEFT,
    RIGHT,
    SORT_ROLE,
    STATE_ROLE,
    Column,
    ColumnTableModel,
)
from transcribe_import.gui.models.notebooks import NotebookColumn, NotebookTableModel
from transcribe_import.gui.models.order_cues import ambiguities_of
from transcribe_import.gui.models.outcomes import OutcomeColumn, OutcomeTableModel
from transcribe_import.gui.models.page_rows import PageColumn, PageRow
from transcribe_import.gui.models.plan_items import ItemColumn, PlanItemsModel
from transcribe_import.gui.models.plan_pages import PageTableModel
from transcribe_import.gui.models.problems import ProblemsModel, _ProblemRows
from transcribe_import.gui.models.roles import ItemIdRole, StateRole
from transcribe_import.gui.models.runs import RunColumn, RunTableModel
from transcribe_import.gui.pages.start import StartPage
from transcribe_import.gui.session import ImportSession
from transcribe_import.gui.values import OutcomeRow, PlanItemState, RunSummary

from helpers.window import TIMEOUT_MS, wait_states_checked
from media_factory import make_jpeg, make_multiframe_tiff, make_truncated_jpeg

Role = Qt.ItemDataRole


# -- the base --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fruit:
    name: str
    count: int


class FruitModel(ColumnTableModel[Fruit]):
    context = "FruitModel"
    columns = (
        Column("Name", display=attrgetter("name"), tooltip=lambda f: f"a {f.name}"),
        Column(
            "Count",
            display=lambda f: str(f.count),
            sort=attrgetter("count"),
            align=RIGHT,
        ),
    )
    row_roles = {Role.UserRole + 1: attrgetter("name")}
    key = attrgetter("name")

    def row_header(self, row: int, role: int) -> object:
        return f"#{row + 1}" if role == Role.DisplayRole else None


def fruit_model() -> FruitModel:
    return FruitModel([Fruit("apple", 10), Fruit("pear", 9), Fruit("plum", 1)])


def test_the_declaration_answers_every_role_it_names(qtmodeltester) -> None:
    model = fruit_model()
    qtmodeltester.check(model)

    assert (model.rowCount(), model.columnCount()) == (3, 2)
    assert model.index(0, 0).data() == "apple"
    assert model.index(0, 0).data(Role.ToolTipRole) == "a apple"
    assert model.index(1, 1).data() == "9"
    assert model.index(1, 1).data(SORT_ROLE) == 9  # the raw value, not its text
    assert model.index(1, 1).data(Role.TextAlignmentRole) == RIGHT
    # A role a column does not declare has no value, in that column or any other.
    assert model.index(0, 0).data(SORT_ROLE) is None
    assert model.index(0, 1).data(Role.ToolTipRole) is None
    assert model.index(0, 0).data(Role.DecorationRole) is None
    # A row role reads the same in every column.
    assert [model.index(2, c).data(Role.UserRole + 1) for c in (0, 1)] == ["plum", "plum"]


def test_headers_come_from_the_columns_and_the_row_hook() -> None:
    model = fruit_model()
    horizontal, vertical = Qt.Orientation.Horizontal, Qt.Orientation.Vertical

    assert [model.headerData(c, horizontal) for c in range(2)] == ["Name", "Count"]
    assert model.headerData(0, horizontal, Role.TextAlignmentRole) is None
    assert model.headerData(1, horizontal, Role.TextAlignmentRole) == RIGHT
    assert model.headerData(2, horizontal) is None
    assert model.headerData(1, vertical) == "#2"
    assert model.headerData(3, vertical) is None  # no such row: the hook is not asked


def test_out_of_range_and_child_indexes_read_as_nothing() -> None:
    model = fruit_model()

    assert model.data(QModelIndex()) is None
    assert model.rowCount(model.index(0, 0)) == 0
    assert model.columnCount(model.index(0, 0)) == 0
    assert not model.index(3, 0).isValid()
    assert not model.index(0, 2).isValid()


def test_rows_are_plain_values_replaced_whole_or_by_key(qtbot: QtBot, qtmodeltester) -> None:
    model = fruit_model()
    kept = QPersistentModelIndex(model.index(2, 0))

    with qtbot.waitSignal(model.dataChanged) as changed:
        model.update_rows([Fruit("pear", 8), Fruit("plum", 2), Fruit("kiwi", 5)])

    first, last = changed.args[0], changed.args[1]
    assert (first.row(), first.column(), last.row(), last.column()) == (1, 0, 2, 1)
    assert [f.count for f in model.rows()] == [10, 8, 2]  # the kiwi is not a row: left out
    assert kept.row() == 2
    assert model.row_of("plum") == 2 and model.row_of("kiwi") is None

    with qtbot.waitSignal(model.modelReset):
        model.set_rows([Fruit("fig", 3)])
    assert model.rows() == [Fruit("fig", 3)]
    assert model.row_of("apple") is None
    qtmodeltester.check(model)


def test_titles_are_translated_in_the_models_context(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []

    def translate(context: str, text: str, *args: object) -> str:
        seen.append((context, text))
        return text.upper()

    monkeypatch.setattr("transcribe_import.gui.models.base.QCoreApplication.translate", translate)
    assert fruit_model().headerData(0, Qt.Orientation.Horizontal) == "NAME"
    assert seen == [("FruitModel", "Name")]


# -- the corpus's models ---------------------------------------------------------------------


def _notebook(title: str, pages: int | None, created: str, problem: str | None = None):
    return NotebookSummary(
        f"id-{title}", title, pages, pages, created, Path(f"/c/{title}"), problem
    )


def test_notebook_model_with_rows(qtmodeltester) -> None:
    model = NotebookTableModel()
    qtmodeltester.check(model)
    model.set_notebooks(
        [
            _notebook("b", 10, "2026-01-02T08:00:00.000000Z"),
            _notebook("A", None, "2026-01-01T08:00:00.000000Z", problem="no manifest"),
        ]
    )
    qtmodeltester.check(model)

    assert [model.index(r, NotebookColumn.PAGES).data() for r in range(2)] == ["10", "?"]
    assert model.index(1, NotebookColumn.PAGES).data(SORT_ROLE) == -1
    assert model.index(1, NotebookColumn.TITLE).data(SORT_ROLE) == 0  # "A" before "b"
    assert isinstance(model.index(1, NotebookColumn.TITLE).data(Role.DecorationRole), QIcon)
    assert model.index(0, NotebookColumn.TITLE).data(Role.DecorationRole) is None
    assert model.index(1, NotebookColumn.CREATED).data(Role.ToolTipRole) == (
        "This notebook cannot be read: no manifest"
    )
    assert model.index(0, NotebookColumn.TITLE).data(Role.ToolTipRole) == str(Path("/c/b"))
    assert model.index(1, 0).data(Role.AccessibleDescriptionRole) == "no manifest"
    assert model.index(0, 0).data(Role.AccessibleDescriptionRole) is None


def _run(status: RunStatus, interrupted: bool = False, run_id: str = "") -> RunSummary:
    return RunSummary(
        run_id or f"run-{status}-{interrupted}",
        status,
        interrupted,
        "2026-12-02T10:00:00.000000Z",
        "",
        1,
        2,
        1,
        0,
        0,
        6,
        ("/media/scans/box 3/", "/media/scans/box 4"),
        counts=RunCounts(pages_landed=6, notebooks_complete=2),
    )


def test_run_model_with_rows(qtmodeltester) -> None:
    model = RunTableModel()
    model.set_runs([_run(s) for s in RunStatus] + [_run(RunStatus.RUNNING, interrupted=True)])
    qtmodeltester.check(model)

    last = model.rowCount() - 1
    assert model.index(last, RunColumn.STATUS).data() == "Interrupted, resumable"
    assert (
        model.index(last, RunColumn.STATUS)
        .data(Role.ToolTipRole)
        .startswith("It stopped before its end")
    )
    assert model.index(0, RunColumn.FROM).data() == "box 3, box 4"
    assert model.index(0, RunColumn.PAGES).data() == "6"
    assert model.index(0, RunColumn.PAGES).data(Role.TextAlignmentRole) == RIGHT
    assert model.index(0, RunColumn.STATUS).data(Role.TextAlignmentRole) == LEFT
    assert all(
        isinstance(model.index(r, RunColumn.STATUS).data(Role.DecorationRole), QIcon)
        for r in range(model.rowCount())
    )
    assert model.row_of(model.run(3).run_id) == 3
    assert model.index(3, 0).data(ID_ROLE) == model.run(3).run_id


def _outcome(i: int, state: ItemState, **kw: object) -> OutcomeRow:
    return OutcomeRow(
        item_id=f"item-{i}",
        label=f"Notebook {i}",
        op=Op.CREATE_NOTEBOOK,
        notebook_id=f"nb-{i}",
        pages_planned=3,
        outcome=ItemOutcome(f"item-{i}", state, f"nb-{i}", page_count=2, **kw),  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("live", [True, False])
def test_outcome_model_with_rows(qtmodeltester, live: bool) -> None:
    rows = [
        _outcome(0, ItemState.COMMITTED),
        _outcome(1, ItemState.FAILED, failure_code="disk_full"),
        replace(_outcome(2, ItemState.PENDING), started=True),
        _outcome(3, ItemState.PENDING),
    ]
    model = OutcomeTableModel(rows, live=live)
    qtmodeltester.check(model)

    words = [model.index(r, OutcomeColumn.OUTCOME).data() for r in range(4)]
    assert words == ["Committed", "Failed", "Importing…", "Waiting" if live else "Not done yet"]
    assert model.index(0, OutcomeColumn.PAGES).data() == "2 / 3"  # fewer landed than planned
    # A failure recorded without its message is told in words, not by its code.
    assert model.index(1, OutcomeColumn.DETAILS).data() == "The disk is full"
    assert model.index(0, OutcomeColumn.OUTCOME).data(Role.AccessibleTextRole) == (
        "Committed: 2 pages into a new notebook"
    )
    assert model.index(3, OutcomeColumn.OUTCOME).data(Role.DecorationRole) is None
    assert model.index(2, 0).data(STATE_ROLE) == "pending"


# -- the plan's models, over a plan the engine made of real files ------------------------------


@pytest.fixture
def session(corpus: Corpus, tmp_path: Path) -> ImportSession:
    root = tmp_path / "shelf"
    for n in (9999, 1):  # a camera counter that rolled over: an order decision
        make_jpeg(root / "camera" / f"IMG_{n:04}.jpg", label=str(n))
    make_jpeg(root / "diary" / "page1.jpg", label="diary 1")
    make_multiframe_tiff(root / "diary" / "page2.tif", 2)
    make_jpeg(root / "loose" / "alpha.jpg", label="a")
    make_truncated_jpeg(root / "loose" / "broken.jpg")
    session = ImportSession(corpus)
    session.set_plan(build_plan(corpus, run_scan([root])))
    return session


def test_plan_items_model_with_rows(qtbot: QtBot, qtmodeltester, session: ImportSession) -> None:
    model = PlanItemsModel(session)
    qtmodeltester.check(model)
    assert session.plan is not None
    assert model.rowCount() == len(session.plan.items)

    def states() -> dict[str, str]:
        return {model.index(r, 0).data(): model.index(r, 0).data(StateRole) for r in range(3)}

    wait_states_checked(qtbot, model)  # order checks may be left to a later event-loop turn
    assert states()["camera"] == PlanItemState.NEEDS_ORDER_DECISION
    assert states()["diary"] == PlanItemState.READY
    session.validate_now()
    qtmodeltester.check(model)
    # Validated, the order decision and the unreadable file are errors that block a commit.
    assert states() == {
        "camera": PlanItemState.ERROR,
        "diary": PlanItemState.READY,
        "loose": PlanItemState.ERROR,
    }
    first = session.plan.items[0]
    assert model.row_of(first.item_id) == 0
    assert model.index(0, ItemColumn.STATE).data(ItemIdRole) == first.item_id
    assert model.index(0, ItemColumn.STATE).data() in {"Error", "Ready", "Needs a decision"}


def test_page_model_with_rows(qtmodeltester, session: ImportSession) -> None:
    model = PageTableModel(session)
    assert session.plan is not None
    diary = next(it for it in session.plan.items if it.label == "diary")
    model.set_item(diary.item_id)
    qtmodeltester.check(model)
    session.validate_now()
    qtmodeltester.check(model)

    assert model.rowCount() == 3  # a JPEG and a two-page TIFF
    assert [model.index(r, PageColumn.SOURCE_PAGE).data() for r in range(3)] == [
        "",
        "p. 1 of 2",
        "p. 2 of 2",
    ]
    assert model.index(2, PageColumn.SIZE).data() == ""  # a file's size is said once

    def numbers() -> list[str]:
        return [model.headerData(r, Qt.Orientation.Vertical) for r in range(3)]

    assert numbers() == ["1", "2", "3"]
    tiff_page = model.page_at(1).page_id
    first_file = model.source_at(0).provenance.rel  # the name validate shows
    assert session.edit_item(diary.item_id, lambda it: edits.set_cover(it, tiff_page), "cover")
    assert numbers() == ["1", "★ 2", "3"]
    assert session.edit_item(diary.item_id, lambda it: ordering.exclude(it, [first_file]), "x")
    assert numbers() == ["–", "★ 1", "2"]  # an excluded page has no number
    qtmodeltester.check(model)


def test_page_model_finds_an_items_order_cues_once_per_item(
    monkeypatch: pytest.MonkeyPatch, session: ImportSession
) -> None:
    # Finding them reads every name of the item (0.25 s for 5,000 pages): a report of the
    # plan as it stands told them already, so none is read while it stands (each validation,
    # and twice as a plan is shown); an edit is a new item, with no report: looked at once.
    looked_at: list[str] = []
    find = ordering.find_ambiguities

    def counted(item: PlanItem) -> list[ordering.Ambiguity]:
        looked_at.append(item.item_id)
        return find(item)

    model = PageTableModel(session)
    assert session.plan is not None
    diary = next(it for it in session.plan.items if it.label == "diary")
    report = session.validate_now()  # validate looks at every item itself: before counting
    monkeypatch.setattr(ordering, "find_ambiguities", counted)
    model.set_item(diary.item_id)
    session.set_report(report)
    session.set_report(report)
    assert looked_at == []
    first_file = model.source_at(0).provenance.rel
    assert session.edit_item(diary.item_id, lambda it: ordering.exclude(it, [first_file]), "x")
    assert session.report is None
    assert looked_at == [diary.item_id]
    assert model.rowCount() == 3


def test_a_badge_asked_while_an_order_check_runs_is_checked_after_it(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, session: ImportSession
) -> None:
    # The checks run on a worker, one batch at a time: rows asked for meanwhile wait for
    # its thread to end, then are checked, never left saying "Checking…".
    release = threading.Event()
    real = order_cues.orders_checked
    batches: list[list[str]] = []

    def held(items: tuple[PlanItem, ...]) -> tuple[tuple[PlanItem, list[Any]], ...]:
        batches.append([it.label for it in items])
        release.wait(TIMEOUT_MS / 1000)
        return real(items)

    monkeypatch.setattr(plan_items, "orders_checked", held)
    model = PlanItemsModel(session)
    assert model.state(model.item_at(0)) is None
    qtbot.waitUntil(lambda: len(batches) == 1, timeout=TIMEOUT_MS)
    assert model.state(model.item_at(1)) is None  # asked while the first batch runs
    release.set()
    wait_states_checked(qtbot, model)
    labels = [model.item_at(r).label for r in range(model.rowCount())]
    assert batches[0] == labels[:1]
    assert sorted(sum(batches, [])) == sorted(labels)  # each checked once


def test_page_model_builds_its_rows_again_only_when_what_they_show_changed(
    monkeypatch: pytest.MonkeyPatch, session: ImportSession
) -> None:
    # A notebook of 5,000 pages is 60 ms of rows on the window's thread, more beside a
    # worker: built once as a plan is shown (which reports a validation change too), once
    # for a new report, and its hints read once per item, whatever the reports.
    assert session.plan is not None
    model = PageTableModel(session)
    diary = next(it for it in session.plan.items if it.label == "diary")
    model.set_item(diary.item_id)
    built: list[str | None] = []
    hinted: list[str] = []
    real_rows, real_hints = PageTableModel._page_rows, api.page_hints

    def rows(self: PageTableModel) -> list[PageRow]:
        built.append(self.item_id())
        return real_rows(self)

    def hints(item: PlanItem, chosen: frozenset[api.Hint]) -> list[api.PageHint]:
        hinted.append(item.item_id)
        return real_hints(item, chosen)

    monkeypatch.setattr(PageTableModel, "_page_rows", rows)
    monkeypatch.setattr(api, "page_hints", hints)
    session.set_plan(session.plan)  # shown again: one build, and no second for its report
    assert built == [diary.item_id] and hinted == []
    report = session.validate_now()
    session.set_report(report)
    session.set_report(report)
    assert built == [diary.item_id] * 2 and hinted == []
    session.set_hints(frozenset())
    assert built == [diary.item_id] * 3 and hinted == [diary.item_id]


def test_an_items_order_cues_read_from_its_report_are_those_found(session: ImportSession) -> None:
    # The rows' notes and the decisions panel read them from the report: the same cues.
    assert session.plan is not None
    report = session.validate_now()
    told = {it.item_id: ambiguities_of(it, report) for it in session.plan.items}
    assert any(told.values())  # the fixture's plan has a notebook whose order needs a decision
    assert told == {it.item_id: ordering.find_ambiguities(it) for it in session.plan.items}


def test_problems_model_with_rows(qapp, qtmodeltester, session: ImportSession) -> None:
    # ``qapp``: its icons need the application's style, when this runs alone.
    model = ProblemsModel(session)
    qtmodeltester.check(model)
    session.validate_now()
    qtmodeltester.check(model)

    assert model.rowCount() > 0
    assert {model.index(r, 0).data(Role.AccessibleDescriptionRole) for r in range(2)} <= {
        "Error",
        "Warning",
    }


def test_a_report_of_a_shelf_lists_its_problems_making_only_the_rows_read(
    qapp, qtmodeltester, session: ImportSession
) -> None:
    # A shelf whose disk is not there: a problem a page. The list is errors first, then the
    # warnings, then the rest, each in the report's order (the stable sort by severity), and
    # a row is made when a view reads it, not all of them at each report.
    assert session.plan is not None
    report = session.validate_now()
    items = [it.item_id for it in session.plan.items]
    severities = (ProblemSeverity.WARNING, ProblemSeverity.INFO, ProblemSeverity.ERROR)
    many = tuple(
        PlanProblem(severities[n % 3], ProblemCode.SOURCE_MISSING, items[n % len(items)], f"p{n}")
        for n in range(30_000)
    )
    hints = (PlanProblem(ProblemSeverity.INFO, ProblemCode.BLANK_PAGES, items[0], "blank"),)
    shelf = replace(report, problems=many, information=hints)
    model = ProblemsModel(session)
    session.set_report(shelf)
    rows = model._rows
    assert isinstance(rows, _ProblemRows) and rows._made == {}
    assert model.rowCount() == 30_001
    rank = {ProblemSeverity.ERROR: 0, ProblemSeverity.WARNING: 1, ProblemSeverity.INFO: 2}
    expected = sorted(many + hints, key=lambda p: rank[p.severity])
    for r in (0, 1, 9_999, 10_000, 19_999, 20_000, 29_999, 30_000):
        assert model.problem(r) is expected[r]
    assert model.index(30_000, 1).data() == "blank"
    assert len(rows._made) == 8
    assert model.rows() == [model.row(r) for r in range(30_001)]  # read whole when asked
    assert [row.problem for row in model.rows()] == expected
    session.set_report(report)
    qtmodeltester.check(model)


def test_notebook_titles_sort_in_the_natural_order(qtbot: QtBot) -> None:
    titles = ("Notebook 10", "notebook 2", "Notebook 1")
    notebooks = [_notebook(t, 1, "2026-01-01T08:00:00.000000Z") for t in titles]
    model = NotebookTableModel()
    model.set_notebooks(notebooks)
    proxy = QSortFilterProxyModel()
    proxy.setSourceModel(model)
    proxy.setSortRole(SORT_ROLE)
    proxy.sort(NotebookColumn.TITLE)
    shown = [proxy.index(r, NotebookColumn.TITLE).data() for r in range(proxy.rowCount())]
    assert shown == ["Notebook 1", "notebook 2", "Notebook 10"]

    start = StartPage()
    qtbot.addWidget(start)
    start.set_notebooks(notebooks)
    combo = [start.notebook_combo.itemText(i) for i in range(start.notebook_combo.count())]
    assert combo == ["Notebook 1 (1 page)", "notebook 2 (1 page)", "Notebook 10 (1 page)"]
