"""`python -m transcribe_import`: the same entry point as the `transcribe-import` command."""

import sys

from transcribe_import.cli import main

sys.exit(main())
