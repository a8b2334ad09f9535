"""Ingest: the per-notebook transaction (stage, journal, promote, commit) and its recovery."""
