"""The corpus-wide duplicate check re-reads only the manifests that changed since it last looked."""

from __future__ import annotations

from pathlib import Path

from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.ingest.transaction import ingest
from transcribe_import.engine.planning.dedupe import CorpusHashIndex
from transcribe_import.engine.storage.corpus import Corpus

from engine_helpers import page_image, request_for


def test_cache_rereads_only_changed_manifests(tmp_path: Path) -> None:
    corpus = Corpus.open(tmp_path / "data")
    ids, reqs = [], []
    for k in range(5):
        nbid = new_id()
        corpus.create_notebook(nbid, f"nb {k}")
        req = request_for(nbid, [page_image(tmp_path / f"{k}.jpg", f"page {k}")])
        ingest(corpus, req)
        ids.append(nbid)
        reqs.append(req)

    first = CorpusHashIndex(Corpus.open(tmp_path / "data"))
    first.refresh()
    assert first.manifests_read == 5
    assert first.notebooks_with(reqs[2].sources[0].sha256) == {ids[2]}

    # Another process, later: the cache on disk spares it every manifest but the changed one.
    ingest(corpus, request_for(ids[4], [page_image(tmp_path / "new.jpg", "new page")]))
    second = CorpusHashIndex(Corpus.open(tmp_path / "data"))
    second.refresh()
    assert second.manifests_read == 1
    assert second.notebooks_with(reqs[0].sources[0].sha256) == {ids[0]}
    new_sha = [s for s in request_for(ids[4], [tmp_path / "new.jpg"]).sources][0].sha256
    assert second.notebooks_with(new_sha) == {ids[4]}


def test_a_damaged_cache_is_rebuilt_not_trusted(tmp_path: Path) -> None:
    corpus = Corpus.open(tmp_path / "data")
    nbid = new_id()
    corpus.create_notebook(nbid, "nb")
    req = request_for(nbid, [page_image(tmp_path / "a.jpg", "a")])
    ingest(corpus, req)
    index = CorpusHashIndex(corpus)
    index.refresh()
    index.path.write_bytes(b"{not json")
    again = CorpusHashIndex(Corpus.open(tmp_path / "data"))
    again.refresh()
    assert again.manifests_read == 1
    assert again.notebooks_with(req.sources[0].sha256) == {nbid}
