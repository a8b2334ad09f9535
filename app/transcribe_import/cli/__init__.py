"""The command line over engine.api: argument parsing, output in words or JSON, exit codes."""

from transcribe_import.cli.main import main

__all__ = ["main"]
