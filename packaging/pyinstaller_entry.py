"""The bundled executable's entry point: the same `main` as `transcribe-import` and `python -m`."""

import multiprocessing
import sys

from transcribe_import.cli import main

if __name__ == "__main__":
    # A large look pass runs in spawned worker processes (planning/look_pass.py): in the
    # bundle they start this same executable, which must then run the worker, not the app.
    multiprocessing.freeze_support()
    sys.exit(main())
