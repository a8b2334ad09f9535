"""The custom data roles the review's models share (Qt.UserRole itself is base.SORT_ROLE)."""

from __future__ import annotations

from PySide6.QtCore import Qt

Role = Qt.ItemDataRole

ItemIdRole = Role.UserRole + 1  # str: the plan item a row concerns
StateRole = Role.UserRole + 2  # PlanItemState of a plan item (None: being checked)
SourceIdsRole = Role.UserRole + 3  # tuple[str, ...]: the sources a problem concerns
SeverityRole = Role.UserRole + 4  # validate.ProblemSeverity of a problem
