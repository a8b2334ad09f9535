"""The one small interface every import adapter implements, and the helpers they share."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from transcribe_import.engine.base.text import display_name, natural_key
from transcribe_import.engine.planning.plan import Op
from transcribe_import.engine.planning.scan import ScannedFile, ScanResult


@dataclass(frozen=True)
class Group:
    """Files an adapter proposes as one plan item; the planner gives it ids and pages."""

    op: Op
    title: str | None  # create_notebook: the proposed title; None for import_into_notebook
    notebook_id: str | None  # import_into_notebook only: the target
    files: tuple[ScannedFile, ...]  # natural order of rel; problem files too (the planner decides)
    label: str  # what a person recognises: the folder rel, the PDF rel, the prefix
    provenance: dict[str, Any]  # JSON-serialisable only, e.g. {"adapter": "folders", ...}


@dataclass(frozen=True)
class NotPlanned:
    """A scanned file this adapter leaves out, and why, in plain words."""

    path: str
    rel: str
    reason: str


@dataclass(frozen=True)
class AdapterResult:
    groups: tuple[Group, ...]  # natural order of label
    not_planned: tuple[NotPlanned, ...]


class Adapter(Protocol):
    """Turns a scan into groups. Heuristics stay here: notebook ids never come from names."""

    name: str

    def group(
        self, scan: ScanResult, *, title: str | None = None, notebook_id: str | None = None
    ) -> AdapterResult: ...


def in_natural_order(files: Iterable[ScannedFile]) -> tuple[ScannedFile, ...]:
    # Stable: files whose rel compare equal keep the scan's (root, exact name) order.
    return tuple(sorted(files, key=lambda f: natural_key(f.rel)))


def result(groups: Iterable[Group], not_planned: Iterable[NotPlanned] = ()) -> AdapterResult:
    ordered = sorted(groups, key=lambda g: natural_key(g.label))
    return AdapterResult(tuple(ordered), tuple(not_planned))


def not_planned(f: ScannedFile, reason: str) -> NotPlanned:
    return NotPlanned(str(f.path), f.rel, reason)


def folder_label(f: ScannedFile) -> str:
    """The rel of the folder holding ``f``; for a file given directly, its folder's name."""
    head = posixpath.dirname(f.rel)
    return head or display_name(f.path.parent.name or str(f.path.parent))


def stem(name: str) -> str:
    return posixpath.splitext(name)[0]


def clean_title(text: str, fallback: str) -> str:
    return " ".join(text.split()) or fallback


def roots_label(roots: tuple[Path, ...]) -> str:
    """The roots' names, shortened: a person may pick hundreds of files at once."""
    names = [display_name(r.name or str(r)) for r in roots]
    if len(names) <= 3:
        return ", ".join(names)
    return f"{', '.join(names[:2])} and {len(names) - 2} more"
