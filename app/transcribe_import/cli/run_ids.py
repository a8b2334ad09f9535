"""How every command names a run: the help of its RUN_ID argument, shared by runs and undo."""

from __future__ import annotations

RUN_ID_HELP = (
    "an import run's id, or a unique prefix of it (4 characters or more); `runs` lists them"
)
