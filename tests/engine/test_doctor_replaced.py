"""doctor and a notebook's history: the files of a page a rescan replaced are the notebook's.

They are neither orphans nor unchecked: a replaced page's render that goes missing is
told (and rendered again from its source, which stays listed), like any page's.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from transcribe_import.engine.base.findings import FindingCode
from transcribe_import.engine.doctor import doctor
from transcribe_import.engine.ingest.transaction import ingest
from transcribe_import.engine.storage import project
from transcribe_import.engine.storage.corpus import Corpus

from engine_helpers import ingest_pages, page_ids, request_for
from helpers.shelves import make_pages


def _replaced(corpus: Corpus, notebook: str, tmp_path: Path) -> dict:
    req = ingest_pages(corpus, notebook, make_pages(tmp_path / "old", 3, name="old {i}.jpg"))
    [rescan] = request_for(notebook, make_pages(tmp_path / "new", 1, tag="N")).sources
    swap = replace(req, sources=(rescan,), replaces=((rescan.pages[0].page_id, page_ids(req)[1]),))
    ingest(corpus, swap)
    [entry] = project.read(corpus.notebook_dir(notebook), notebook)["replaced_pages"]
    return entry["page"]


def test_a_replaced_page_is_no_orphan_and_no_missing_page(corpus, notebook, tmp_path) -> None:
    _replaced(corpus, notebook, tmp_path)
    report = doctor(corpus)
    assert report.clean and report.findings == []


def test_a_replaced_page_whose_render_is_lost_is_rendered_again(corpus, notebook, tmp_path) -> None:
    old = _replaced(corpus, notebook, tmp_path)
    render = corpus.notebook_dir(notebook) / old["render"]["path"]
    render.unlink()
    [finding] = doctor(corpus).findings
    assert finding.code is FindingCode.FILE_RESTORED and old["render"]["path"] in finding.message
    assert render.is_file()
    assert doctor(corpus).findings == []
