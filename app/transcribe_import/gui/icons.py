"""The icons the window shows for engine states, made once each (QIcon needs the GUI thread).

The words for the same states are in the wording package; an icon never says anything the
words do not, so a screen reader and a colour-blind reader lose nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPen, QPixmap, QTransform
from PySide6.QtWidgets import QApplication, QStyle

from transcribe_import.engine.base.findings import Severity as FindingSeverity
from transcribe_import.engine.planning.problems import ProblemSeverity
from transcribe_import.engine.runs.model import ItemState, RunStatus
from transcribe_import.gui.values import OutcomeRow, PlanItemState, RunSummary

SP = QStyle.StandardPixmap

# Views ask for an icon on every repaint of every row; the style makes a new QIcon each time.
_standard: dict[SP, QIcon] = {}
_standard_style: list[QStyle | None] = [None]  # the style those icons came from


def standard_icon(pixmap: SP) -> QIcon:
    """The application style's icon, made once per style."""
    style = QApplication.style()
    if style is not _standard_style[0]:
        _standard.clear()
        _standard_style[0] = style
    icon = _standard.get(pixmap)
    if icon is None:
        icon = _standard[pixmap] = style.standardIcon(pixmap)
    return icon


def small_pixmap(icon: QIcon) -> QPixmap:
    """The icon at the style's small size: a pixmap keeps it, where a view would scale an icon."""
    side = QApplication.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize)
    return icon.pixmap(QSize(side, side))


def turned(pixmap: QPixmap, degrees: int) -> QPixmap:
    """A picture of a page's file turned ``degrees`` clockwise, as the page's turn (in the
    plan) will make its render: the thumbnails and previews are of the file as it is."""
    if not degrees:
        return pixmap
    out = pixmap.transformed(QTransform().rotate(degrees))
    out.setDevicePixelRatio(pixmap.devicePixelRatio())
    return out


def untinted(pixmap: QPixmap) -> QIcon:
    """An icon that looks the same in a selected row: a page or a badge keeps its colours."""
    icon = QIcon(pixmap)
    icon.addPixmap(pixmap, QIcon.Mode.Selected)
    return icon


# -- the plan under review -------------------------------------------------------------------

# Semantic colours, the one exception to "palette roles only": mid-tone fills with a darker
# rim, so a badge reads on a light and on a dark base alike (its words are in the text too).
_BADGE_COLOURS = {
    PlanItemState.ERROR: QColor(0xD3, 0x2F, 0x2F),
    PlanItemState.NEEDS_ORDER_DECISION: QColor(0xF5, 0xA6, 0x23),
    PlanItemState.PARTLY_IMPORTED: QColor(0xF5, 0xA6, 0x23),
    PlanItemState.LOOKS_LIKE: QColor(0xF5, 0xA6, 0x23),
    # Grey: the notebook imports nothing (every page left out, or in the corpus already).
    PlanItemState.NOTHING_TO_IMPORT: QColor(0x9E, 0x9E, 0x9E),
    PlanItemState.ALREADY_IMPORTED: QColor(0x9E, 0x9E, 0x9E),
    PlanItemState.DUPLICATE_SKIPS: QColor(0x42, 0x85, 0xF4),
    PlanItemState.READY: QColor(0x43, 0xA0, 0x47),
}
_badges: dict[PlanItemState, QIcon] = {}
_drawn: dict[str, QIcon] = {}


def _painted(draw: Callable[[QPainter, int], None]) -> QIcon:
    """An icon ``draw`` paints at 16 and 32 pixels (32 for a 2x screen), alike when selected."""
    icon = QIcon()
    for side in (16, 32):
        pixmap = QPixmap(side, side)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        draw(painter, side)
        painter.end()
        icon.addPixmap(pixmap)
        icon.addPixmap(pixmap, QIcon.Mode.Selected)
    return icon


def badge_icon(state: PlanItemState) -> QIcon:
    """A filled dot in the state's colour."""
    icon = _badges.get(state)
    if icon is None:
        fill = _BADGE_COLOURS[state]

        def dot(painter: QPainter, side: int) -> None:
            painter.setPen(fill.darker(160))
            painter.setBrush(fill)
            radius = side * 0.34
            painter.drawEllipse(QPointF(side / 2, side / 2), radius, radius)

        icon = _badges[state] = _painted(dot)
    return icon


def not_imported_icon() -> QIcon:
    """A page struck through: files found that the plan does not import."""
    icon = _drawn.get("not_imported")
    if icon is None:

        def page(painter: QPainter, side: int) -> None:
            u = side / 16
            painter.setPen(QPen(QColor(0x80, 0x80, 0x80), 1.2 * u))
            painter.setBrush(QColor(0xF4, 0xF4, 0xF4))
            painter.drawRect(QRectF(3.5 * u, 1.5 * u, 9 * u, 13 * u))
            painter.setPen(QPen(_BADGE_COLOURS[PlanItemState.ERROR], 2 * u))
            painter.drawLine(QPointF(2 * u, 14 * u), QPointF(14 * u, 2 * u))

        icon = _drawn["not_imported"] = _painted(page)
    return icon


def severity_icon(severity: ProblemSeverity) -> QIcon:
    return standard_icon(
        {
            ProblemSeverity.ERROR: SP.SP_MessageBoxCritical,
            ProblemSeverity.WARNING: SP.SP_MessageBoxWarning,
            ProblemSeverity.INFO: SP.SP_MessageBoxInformation,
        }[severity]
    )


# -- import runs -----------------------------------------------------------------------------

_OUTCOME_PIXMAPS = {
    ItemState.COMMITTED: SP.SP_DialogApplyButton,
    ItemState.SKIPPED: SP.SP_MessageBoxInformation,
    ItemState.FAILED: SP.SP_MessageBoxCritical,
    ItemState.CANCELLED_PENDING: SP.SP_DialogCancelButton,
}

_RUN_PIXMAPS = {
    RunStatus.COMPLETE: SP.SP_DialogApplyButton,
    RunStatus.PARTIAL: SP.SP_MessageBoxWarning,
    RunStatus.FAILED: SP.SP_MessageBoxCritical,
    RunStatus.CANCELLED: SP.SP_DialogCancelButton,
    RunStatus.CANCELLED_WITH_COMMITS: SP.SP_DialogCancelButton,
    RunStatus.REVERTED: SP.SP_TrashIcon,
    RunStatus.RUNNING: SP.SP_MediaPlay,
    RunStatus.PENDING: SP.SP_MediaPlay,
}


def outcome_icon(row: OutcomeRow) -> QIcon | None:
    """An item's outcome; a pending item has none until it is being imported."""
    if row.state is ItemState.PENDING:
        return standard_icon(SP.SP_MediaPlay) if row.started else None
    return standard_icon(_OUTCOME_PIXMAPS[row.state])


def run_icon(run: RunSummary) -> QIcon:
    return standard_icon(SP.SP_MediaPause if run.state.resumable else _RUN_PIXMAPS[run.status])


# -- the corpus ------------------------------------------------------------------------------

_FINDING_PIXMAPS = {
    FindingSeverity.PROBLEM: SP.SP_MessageBoxWarning,
    FindingSeverity.REPAIRED: SP.SP_DialogApplyButton,
    FindingSeverity.INFO: SP.SP_MessageBoxInformation,
}


def finding_icon(severity: FindingSeverity) -> QIcon:
    pixmap = _FINDING_PIXMAPS.get(severity)
    return QIcon() if pixmap is None else standard_icon(pixmap)
