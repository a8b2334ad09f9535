"""Adapter "prefix": files named <notebook>_<page> or <notebook>-<page>, one notebook per prefix."""

from __future__ import annotations

import re
from pathlib import Path

from transcribe_import.engine.planning.adapters.base import (
    AdapterResult,
    Group,
    folder_label,
    in_natural_order,
    not_planned,
    result,
    stem,
)
from transcribe_import.engine.planning.plan import Op
from transcribe_import.engine.planning.scan import ScannedFile, ScanResult

_SEPARATORS = "_-"
_DIGIT = re.compile(r"\d")

NOT_A_PREFIX_NAME = (
    "the name does not look like <notebook>_<page> or <notebook>-<page> "
    "(e.g. NB12_p001.jpg), which prefix mode needs; rename it, or plan by folder"
)


def split_prefix(name: str) -> str | None:
    """The notebook part of a file name, or None when the name does not fit the pattern.

    Split at the last "_" or "-" whose right part contains a digit, so "NB12_p001",
    "NB12-001" and "NB-12_p001" give "NB12", "NB12" and "NB-12", and a trailing word
    without a number ("NB12_p001_back") does not become the page part.
    """
    text = stem(name)
    for i in range(len(text) - 1, 0, -1):
        if text[i] in _SEPARATORS and _DIGIT.search(text, i + 1):
            prefix = text[:i].rstrip(_SEPARATORS + " ").strip()
            return prefix or None
    return None


class PrefixAdapter:
    name = "prefix"

    def group(
        self, scan: ScanResult, *, title: str | None = None, notebook_id: str | None = None
    ) -> AdapterResult:
        # Per folder and prefix: NB12 in two different folders is two notebooks.
        by_key: dict[tuple[Path, str], list[ScannedFile]] = {}
        skipped = []
        for f in scan.files:
            prefix = split_prefix(f.name)
            if prefix is None:
                skipped.append(not_planned(f, NOT_A_PREFIX_NAME))
            else:
                by_key.setdefault((f.path.parent, prefix), []).append(f)
        groups = []
        for (folder, prefix), files in by_key.items():
            where = files[0].rel.rpartition("/")[0]
            groups.append(
                Group(
                    op=Op.CREATE_NOTEBOOK,
                    title=prefix,
                    notebook_id=None,
                    files=in_natural_order(files),
                    label=f"{where}/{prefix}" if where else prefix,
                    provenance={
                        "adapter": self.name,
                        "folder": str(folder),
                        "folder_label": folder_label(files[0]),
                        "prefix": prefix,
                    },
                )
            )
        return result(groups, skipped)
