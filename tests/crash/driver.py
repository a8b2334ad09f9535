"""A real process for the crash tests: runs one engine action; TRANSCRIBE_CRASH_AT kills it.

usage: driver.py DATA_DIR create NOTEBOOK_ID TITLE
       driver.py DATA_DIR ingest REQUEST.json
       driver.py DATA_DIR recover
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from transcribe_import.engine.doctor import doctor  # noqa: E402
from transcribe_import.engine.ingest.transaction import ingest  # noqa: E402
from transcribe_import.engine.storage.corpus import Corpus  # noqa: E402

from engine_helpers import request_from_json  # noqa: E402


def main(argv: list[str]) -> int:
    corpus = Corpus.open(Path(argv[0]))
    action = argv[1]
    if action == "create":
        corpus.create_notebook(argv[2], argv[3])
    elif action == "ingest":
        ingest(corpus, request_from_json(Path(argv[2]).read_bytes()), workers=1)
    elif action == "recover":
        doctor(corpus)
    else:
        raise SystemExit(f"unknown action {action}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
