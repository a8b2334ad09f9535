"""The bundled executable's entry point: the same `main` as `transcribe-import` and `python -m`."""

import sys

from transcribe_import.cli import main

if __name__ == "__main__":
    sys.exit(main())
