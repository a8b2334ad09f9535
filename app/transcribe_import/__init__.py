"""Transcribe Import: bring scanned notebooks into a local Transcribe corpus, safely."""

__version__ = "0.1.0"
