"""The commit view's last line says what the attempt did, never a speed it did not have.

A folder committed a second time lands nothing (every file is in the corpus already): the
end says no page landed and how long it took, not "0 pages in 0.4 s (0.0 pages/s)". A run
stopped with notebooks not started counts them in a sentence that agrees with its number.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from pytestqt.qtbot import QtBot

from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.main_window import MainWindow

from helpers.shelves import make_png_shelf
from helpers.window import commit, scan, wait_run_end


def test_an_import_with_nothing_to_land_says_so_and_no_speed(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    shelf = make_png_shelf(tmp_path / "shelf", notebooks=1, pages=3)
    window = open_window()
    scan(qtbot, window, shelf)
    commit(qtbot, window)
    wait_run_end(qtbot, window)
    assert re.fullmatch(
        r"3 pages in \d+\.\d s \(\d+\.\d pages/s\)\.", window.commit_page.rate_label.text()
    )

    window.flow.new_import()
    scan(qtbot, window, shelf)  # the same folder: already imported, nothing to land
    commit(qtbot, window)
    wait_run_end(qtbot, window)
    said = window.commit_page.rate_label.text()
    assert re.fullmatch(r"No page landed \(it took \d+\.\d s\)\.", said), said
    assert [nb.page_count for nb in corpus.list_notebooks()] == [3]
