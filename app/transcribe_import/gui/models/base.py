"""The table models' base: columns declared once, over a plain Python list of row objects.

A model is a thin adapter: its rows are plain values (engine summaries, frozen GUI
values) and each column says how a row reads in each role. The base answers Qt's
rowCount, columnCount, headerData and data from that declaration; a model overrides
``cell`` or ``row_header`` only for what a row alone cannot say (a badge that depends on
the validation report, a thumbnail from a cache).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, MutableSequence, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, ClassVar, Generic, TypeVar

from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
)

Role = Qt.ItemDataRole

# What the sort proxy compares: raw values, so "10" pages sorts after "9" and dates sort by time.
SORT_ROLE = Role.UserRole
# What the tests and the views read of a row of a run: its raw state (not its words), its id.
STATE_ROLE = Role.UserRole + 1
ID_ROLE = Role.UserRole + 2

LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter

Index = QModelIndex | QPersistentModelIndex
ROOT = QModelIndex()

R = TypeVar("R")
Read = Callable[[R], Any]


def record_roles(id_name: str, state_name: str) -> Mapping[int, Callable[[Any], Any]]:
    """The row roles of a table of engine records: its id (ID_ROLE) and raw state (STATE_ROLE).

    For ``row_roles``: the views and the tests read a row's identity and its state's code
    through them, never through its words.
    """
    read_id, read_state = attrgetter(id_name), attrgetter(state_name)
    return {ID_ROLE: read_id, STATE_ROLE: lambda row: str(read_state(row))}


@dataclass(frozen=True)
class Column(Generic[R]):
    """One column: its title, and how a row reads in each role (None: no value in that role)."""

    # The English title, marked with QT_TRANSLATE_NOOP in the model's ``context`` so lupdate
    # finds it (typed object, as PySide's stub types what that returns); the header
    # translates it when asked, so a language change applies at once.
    title: object
    display: Read[R] | None = None
    tooltip: Read[R] | None = None
    decoration: Read[R] | None = None
    accessible: Read[R] | None = None  # AccessibleTextRole: what a screen reader says
    sort: Read[R] | None = None  # SORT_ROLE
    align: Qt.AlignmentFlag | None = None  # the cells' and the header's; None: the view's
    _reads: dict[int, Read[R]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Looked up once here: data() runs for every role of every visible cell on each paint.
        align = self.align
        reads: dict[int, Read[R] | None] = {
            Role.DisplayRole: self.display,
            Role.ToolTipRole: self.tooltip,
            Role.DecorationRole: self.decoration,
            Role.AccessibleTextRole: self.accessible,
            SORT_ROLE: self.sort,
            Role.TextAlignmentRole: None if align is None else (lambda _row: align),
        }
        object.__setattr__(self, "_reads", {r: f for r, f in reads.items() if f is not None})

    def read(self, row: R, role: int) -> Any:
        f = self._reads.get(role)
        return None if f is None else f(row)


class ColumnTableModel(QAbstractTableModel, Generic[R]):
    """Rows of plain values under declared columns; replace or update the rows to change it.

    A subclass sets ``columns`` (indexed by an IntEnum of its own, so views can name
    them), ``context`` (the translation context of the titles), ``row_roles`` (roles that
    read the same in every cell of a row: ids, raw states) and ``key`` (a row's identity,
    for ``row_of`` and ``update_rows``; an ``operator.attrgetter``, since a function set in a
    class body would be bound to the model).
    """

    columns: Sequence[Column[Any]] = ()
    context: ClassVar[str] = ""
    row_roles: ClassVar[Mapping[int, Callable[[Any], Any]]] = {}
    key: ClassVar[attrgetter[Any] | None] = None

    def __init__(self, rows: Iterable[R] = (), parent: QObject | None = None) -> None:
        super().__init__(parent)
        # A list, or rows made as they are read (plan_pages.py: a notebook of 5,000 pages).
        self._rows: MutableSequence[R] = []
        self._row_of: dict[Hashable, int] = {}
        self._load_rows(rows)

    # -- the plain data ------------------------------------------------------------------

    def rows(self) -> list[R]:
        return list(self._rows)

    def row(self, i: int) -> R:
        return self._rows[i]

    def row_of(self, key: Hashable) -> int | None:
        """The row whose ``key`` is ``key``, or None."""
        return self._row_of.get(key)

    def set_rows(self, rows: Iterable[R]) -> None:
        self.beginResetModel()
        self._load_rows(rows)
        self.endResetModel()

    def update_rows(self, changed: Iterable[R]) -> None:
        """Replace rows by their key; one dataChanged for the span they cover."""
        assert self.key is not None, "update_rows needs the model's key"
        touched = []
        for row in changed:
            i = self._row_of.get(self.key(row))
            if i is not None:
                self._rows[i] = row
                touched.append(i)
        if touched:
            self.rows_changed(min(touched), max(touched))

    def rows_changed(self, first: int, last: int, roles: Sequence[int] = ()) -> None:
        """Tell the views that every cell of rows ``first`` to ``last`` may read differently."""
        if self._rows and first <= last:
            self.dataChanged.emit(
                self.index(first, 0), self.index(last, len(self.columns) - 1), list(roles)
            )

    def _load_rows(self, rows: Iterable[R]) -> None:
        self._rows = list(rows)
        key = self.key
        self._row_of = {} if key is None else {key(r): i for i, r in enumerate(self._rows)}

    # -- Qt's model interface ------------------------------------------------------------

    def index(self, row: int, column: int, parent: Index = ROOT) -> QModelIndex:
        # Qt's own asks this model's rowCount and columnCount, two calls into Python, for
        # each index: a list view's pass over a notebook of 5,000 pages (a change of all of
        # them) made 10,000 such calls on the window's thread.
        if parent.isValid() or not (0 <= row < len(self._rows) and 0 <= column < len(self.columns)):
            return QModelIndex()
        return self.createIndex(row, column)

    def rowCount(self, parent: Index = ROOT) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = ROOT) -> int:
        return 0 if parent.isValid() else len(self.columns)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Role.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Vertical:
            if not 0 <= section < len(self._rows):
                return None
            return self.row_header(section, role)
        if not 0 <= section < len(self.columns):
            return None
        column = self.columns[section]
        if role == Role.DisplayRole:
            return QCoreApplication.translate(self.context, str(column.title))
        if role == Role.TextAlignmentRole:
            return column.align
        return None

    def data(self, index: Index, role: int = Role.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        if not 0 <= index.column() < len(self.columns):
            return None
        return self.cell(self._rows[index.row()], index.column(), role)

    # -- hooks -----------------------------------------------------------------------------

    def cell(self, row: R, column: int, role: int) -> Any:
        """What one cell holds in ``role``: the row roles, then the column's declaration."""
        read = self.row_roles.get(role)
        if read is not None:
            return read(row)
        return self.columns[column].read(row, role)

    def row_header(self, row: int, role: int) -> Any:
        """The vertical header of ``row`` (a valid row); none unless a model says so."""
        return None
