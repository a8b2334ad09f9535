"""What a run record's update left when a disk error cut it short, in words that are true.

An update (``RunStore._mutate``) writes the record, then removes the outcomes log the
record now holds, then rewrites the runs listing. Before the record is written nothing was
changed; after it the change is saved, and what a failure left is only tidying that the
run's next change does.
"""

from __future__ import annotations

import enum


class UpdateStep(enum.Enum):
    """How far a record update got when it failed."""

    RECORD = "record"  # writing the record itself (atomic: the old one stays whole)
    LOG = "log"  # removing the outcomes log the written record holds
    INDEX = "index"  # rewriting the runs listing (index.json)


def left_after(run_id: str, step: UpdateStep) -> str:
    """The end of "Check the disk and …" for an update of ``run_id`` that failed at ``step``."""
    if step is UpdateStep.RECORD:
        return "try again; nothing was changed"
    saved = f"know that the change was saved in run {run_id}'s record"
    if step is UpdateStep.LOG:
        return (
            f"{saved}; only its outcomes log was left behind, which repeats outcomes the "
            "record holds already and is removed by the run's next change"
        )
    return (
        f"{saved}; only the runs listing was left out of date, which the run's next change "
        "rewrites (every command reads the run's record, not the listing)"
    )
