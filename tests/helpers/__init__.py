"""Shared test helpers (tests/ is on sys.path, so ``from helpers.cli import run_cli``).

- helpers.cli: the real command line (and the crash driver) in a subprocess.
- helpers.shelves: folders of page images, as a shelf of scanned notebooks comes.
- helpers.runs: plans ready to commit, and commits, in-process.
- helpers.logcheck: the autouse check that no unexpected WARNING is logged.
- helpers.journals: ingest journals as a killed process leaves them.
- helpers.faults: the fault walks' step (a command run with its N-th file-system call failed).

Single page files come from ``media_factory`` (``make_image`` and the ``make_*`` family);
engine-level builders and checks (notebooks, ingest requests) from ``engine_helpers``;
the fixtures (data_dir, corpus, notebook, notebook_with_history, logged_warnings) from
tests/conftest.py.
"""
