"""Shared test setup: Qt offscreen, every test on its own temporary corpus, no stray warning.

Fixtures for every test folder:

- ``data_dir``: a fresh data directory; TRANSCRIBE_DATA_DIR points at it.
- ``corpus``: the corpus opened on ``data_dir``.
- ``notebook``: the id of an empty notebook ("Field notes") created in ``corpus``.
- ``notebook_with_history``: a notebook holding two earlier pages, plus a saved request
  for four more (see ``NotebookWithHistory``).
- ``logged_warnings``: the WARNING+ log records of the test, which it checks itself
  (asking for it turns off the automatic check; see helpers/logcheck.py).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import pytest
from hypothesis import settings as hypothesis_settings

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# The whole session runs in a home of its own, set before the app is imported: the CLI's log
# (platformdirs' user_log_dir, under XDG_STATE_HOME), Qt's and fontconfig's caches and
# anything else a library keeps "for the user" land there, never in the user's home
# (tests/packaging/test_home_untouched.py checks it). Removed when the session ends.
SESSION_HOME = Path(tempfile.mkdtemp(prefix="transcribe-tests-home-"))
os.environ["HOME"] = str(SESSION_HOME)
for _var, _sub in (
    ("XDG_CONFIG_HOME", ".config"),
    ("XDG_CACHE_HOME", ".cache"),
    ("XDG_DATA_HOME", ".local/share"),
    ("XDG_STATE_HOME", ".local/state"),
):
    os.environ[_var] = str(SESSION_HOME / _sub)
# Checkpoints of 32 pages whatever the pace (engine/ingest/checkpoints.py): the tests count
# them, and a busy machine's pace must not change what they count. The CLI's processes get
# it too (helpers/cli.cli_env); the tests of the sizing by time unset it.
os.environ["TRANSCRIBE_CHECKPOINT_SECONDS"] = "1000000"
# Tests import helper modules (helpers.*, media_factory, engine_helpers) from this folder.
sys.path.insert(0, str(Path(__file__).parent))

from helpers.logcheck import COLLECTOR, WarningCollector, describe  # noqa: E402

# Property tests are judged by what they find, never by how long an example took: a busy
# machine made one fail on hypothesis's 200 ms deadline. The profile holds for every test.
hypothesis_settings.register_profile("transcribe", deadline=None)
hypothesis_settings.load_profile("transcribe")

if TYPE_CHECKING:
    import logging

    from transcribe_import.engine.storage.corpus import Corpus

# The engine is imported inside the fixtures, not at the top: a module that does not import
# fails the tests that use it, not the collection of the whole suite.


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh data directory; TRANSCRIBE_DATA_DIR points at it so nothing touches the user's."""
    d = tmp_path / "data"
    monkeypatch.setenv("TRANSCRIBE_DATA_DIR", str(d))
    return d


@pytest.fixture
def corpus(data_dir: Path) -> Corpus:
    """The corpus in ``data_dir``, created on first use."""
    from transcribe_import.engine.storage.corpus import Corpus

    return Corpus.open(data_dir)


@pytest.fixture
def notebook(corpus: Corpus) -> str:
    """An empty notebook titled "Field notes" in ``corpus``: its id."""
    from engine_helpers import new_notebook

    return new_notebook(corpus, "Field notes")


class NotebookWithHistory(NamedTuple):
    data: Path  # the data directory (a fresh process opens the corpus from it)
    notebook_id: str
    earlier_pages: list[str]  # ids of the two pages imported earlier, in order
    request_path: Path  # an ingest request (4 new sources: 3 JPEGs, 1 PNG) saved as JSON


@pytest.fixture
def notebook_with_history(tmp_path: Path) -> NotebookWithHistory:
    """A corpus with one notebook that already holds two pages the user imported earlier,
    and a saved request to import four more (for a driver process to run)."""
    from transcribe_import.engine.storage.corpus import Corpus

    from engine_helpers import ingest_pages, new_notebook, page_ids, request_for, request_to_json
    from helpers.shelves import make_pages
    from media_factory import make_image

    data = tmp_path / "data"
    corpus = Corpus.open(data)
    nbid = new_notebook(corpus, "Field notes 1987")
    earlier = ingest_pages(corpus, nbid, make_pages(tmp_path / "earlier", 2, name="p{i}.jpg"))
    new = make_pages(tmp_path / "new", 3, tag="new ")
    new.append(make_image(tmp_path / "new" / "page 4.png", "new 4"))
    req_path = tmp_path / "request.json"
    req_path.write_bytes(request_to_json(request_for(nbid, new)))
    return NotebookWithHistory(data, nbid, page_ids(earlier), req_path)


# -- no unexpected WARNING through Python logging --------------------------------------------


@pytest.fixture(autouse=True)
def no_unexpected_log_warnings(request: pytest.FixtureRequest) -> Iterator[None]:
    """Collect WARNING+ records from setup to teardown; see helpers/logcheck.py."""
    collector = WarningCollector()
    request.node.stash[COLLECTOR] = collector
    collector.install()
    try:
        yield
    finally:
        collector.remove()
    # What the fixtures' teardown logged (the call phase was checked by the hook below).
    unexpected = collector.unchecked(request.node)
    if unexpected:
        pytest.fail(describe(unexpected), pytrace=False)


@pytest.fixture
def logged_warnings(request: pytest.FixtureRequest) -> list[logging.LogRecord]:
    """The test's WARNING+ log records so far (a live list); the test checks them itself."""
    return request.node.stash[COLLECTOR].records


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every crash test is a slow test too: ``-m "not slow"`` is the whole fast set."""
    for item in items:
        if item.get_closest_marker("crash") is not None:
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    result = yield
    collector = item.stash.get(COLLECTOR, None)
    unexpected = collector.unchecked(item) if collector is not None else []
    if unexpected:
        pytest.fail(describe(unexpected), pytrace=False)
    return result


def pytest_sessionfinish() -> None:
    """The session's home goes with it (what a test wanted to keep is in its tmp_path)."""
    shutil.rmtree(SESSION_HOME, ignore_errors=True)
