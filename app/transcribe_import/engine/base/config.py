"""Where the corpus lives: --data-dir, then TRANSCRIBE_DATA_DIR, then the platform default."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

ENV_DATA_DIR = "TRANSCRIBE_DATA_DIR"


def resolve_data_dir(cli_value: str | os.PathLike[str] | None = None) -> Path:
    """The data directory in the order of precedence given in docs/cli.md."""
    if cli_value:
        return Path(cli_value).expanduser().absolute()
    env = os.environ.get(ENV_DATA_DIR)
    if env:
        return Path(env).expanduser().absolute()
    return Path(platformdirs.user_data_dir("Transcribe", appauthor=False))
