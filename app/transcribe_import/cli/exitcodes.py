"""Exit statuses of the command line, as shared/spec/cli.md defines them."""

EXIT_OK = 0  # success; a run that ended complete; doctor found nothing to report
EXIT_PROBLEMS = 1  # a run that ended partial or failed; doctor reported problems
EXIT_USAGE = 2  # bad arguments, missing file, unreadable plan document
EXIT_INVALID_PLAN = 3  # validate errors: nothing was committed
EXIT_CANCELLED = 4  # the run ended cancelled or cancelled_with_commits
EXIT_LOCKED = 5  # the corpus or the run is locked by another process
EXIT_INTERRUPTED = 6  # paused, or stopped by a signal other than Ctrl-C: resumable
