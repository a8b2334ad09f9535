"""The window's pages as the parts it holds see them: one Protocol the parts' hosts extend.

The flow, the path intake, the health check, the dialogs and closing each name what they use
of the window in a Protocol of their own; the pages they share are named here once.
"""

from __future__ import annotations

from typing import Protocol

from transcribe_import.gui.pages.commit import CommitPage
from transcribe_import.gui.pages.corpus import CorpusPage
from transcribe_import.gui.pages.review import ReviewPage
from transcribe_import.gui.pages.runs import RunsPage
from transcribe_import.gui.pages.scan import ScanPage
from transcribe_import.gui.pages.start import StartPage


class WindowPages(Protocol):
    """The window's pages: Start, Scan, Review and Commit (the import's steps), Runs, Corpus."""

    @property
    def start_page(self) -> StartPage: ...
    @property
    def scan_page(self) -> ScanPage: ...
    @property
    def review_page(self) -> ReviewPage: ...
    @property
    def commit_page(self) -> CommitPage: ...
    @property
    def runs_page(self) -> RunsPage: ...
    @property
    def corpus_page(self) -> CorpusPage: ...
