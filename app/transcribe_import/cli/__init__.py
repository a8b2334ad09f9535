"""The command line over engine.api: argument parsing, output in words or JSON, exit codes."""

import os

# numpy's OpenBLAS starts its worker threads when numpy is imported (the rescans' inks), and
# they do not block the stop signals: the kernel gave a Ctrl-C to one of them, and the main
# thread's wait for the command (cli/signals.answered_at_once) was not interrupted, so a
# commit heard its Ctrl-C only once the notebook had landed whole. The app does no linear
# algebra (FFTs and element-wise arithmetic only), so one BLAS thread costs it nothing. Set
# before anything imports numpy; a value the person set is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from transcribe_import.cli.main import main  # noqa: E402 - after the environment above

__all__ = ["main"]
