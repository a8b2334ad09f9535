"""Duplicates: the one classifier, and the corpus-wide check re-reading only changed manifests."""

from __future__ import annotations

from pathlib import Path

from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.ingest.transaction import ingest
from transcribe_import.engine.planning.dedupe import CorpusHashIndex, classify, corpus_index_for
from transcribe_import.engine.planning.plan import DedupeScope, Duplicate, DuplicatePolicy
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


# -- the classifier ------------------------------------------------------------------------

SHA = "a" * 64
TARGET = "11111111-1111-4111-8111-111111111111"
OTHER = "22222222-2222-4222-8222-222222222222"


class FakeIndex:
    def __init__(self, **held: set[str]) -> None:
        self.held = held

    def notebooks_with(self, sha256: str) -> set[str]:
        return set(self.held.get(sha256, set()))


def judge(**kw) -> Duplicate | None:  # type: ignore[no-untyped-def]
    facts = {
        "policy": DuplicatePolicy.SKIP_EXISTING,
        "scope": DedupeScope.CORPUS,
        "notebook_id": TARGET,
    }
    return classify(SHA, **{**facts, **kw})


def test_classify_in_the_order_notebook_corpus_plan() -> None:
    everywhere = {
        "in_notebook": {SHA: "source-x"},
        "corpus_index": FakeIndex(**{SHA: {OTHER}}),
        "earlier": {SHA},
    }
    assert judge(**everywhere) is Duplicate.IN_NOTEBOOK
    assert judge(**{**everywhere, "in_notebook": {}}) is Duplicate.IN_CORPUS
    assert judge(earlier={SHA}) is Duplicate.IN_PLAN
    assert judge() is None
    assert judge(in_notebook={"b" * 64: "source-y"}, earlier={"b" * 64}) is None


def test_create_duplicate_never_classifies() -> None:
    held = {"in_notebook": {SHA: "x"}, "corpus_index": FakeIndex(**{SHA: {OTHER}})}
    assert judge(policy=DuplicatePolicy.CREATE_DUPLICATE, earlier={SHA}, **held) is None


def test_the_corpus_counts_only_with_corpus_scope_and_not_the_target_itself() -> None:
    index = FakeIndex(**{SHA: {OTHER}})
    assert judge(scope=DedupeScope.NOTEBOOK, corpus_index=index) is None
    assert judge(corpus_index=FakeIndex(**{SHA: {TARGET}})) is None
    assert judge(corpus_index=FakeIndex(**{SHA: {TARGET, OTHER}})) is Duplicate.IN_CORPUS


def test_a_notebook_holding_the_source_itself_holds_no_duplicate_of_it() -> None:
    # A retry after the source's import landed: commit finds its own id, not a copy.
    assert judge(in_notebook={SHA: "source-1"}, source_id="source-1") is None
    assert judge(in_notebook={SHA: "source-1"}, source_id="source-2") is Duplicate.IN_NOTEBOOK


def test_the_corpus_index_is_read_only_when_classify_will_ask_it(tmp_path: Path) -> None:
    corpus = Corpus.open(tmp_path / "data")
    nbid = new_id()
    corpus.create_notebook(nbid, "nb")
    req = request_for(nbid, [page_image(tmp_path / "p.jpg", "page")])
    ingest(corpus, req)
    skip, copy = DuplicatePolicy.SKIP_EXISTING, DuplicatePolicy.CREATE_DUPLICATE
    notebook, whole = DedupeScope.NOTEBOOK, DedupeScope.CORPUS
    assert corpus_index_for(corpus, skip, [notebook, notebook]) is None
    assert corpus_index_for(corpus, copy, [whole]) is None
    assert corpus_index_for(None, skip, [whole]) is None  # planning without a corpus
    index = corpus_index_for(corpus, skip, iter([notebook, whole]))
    assert index is not None and index.manifests_read == 1  # refreshed, ready to ask
    assert index.notebooks_with(req.sources[0].sha256) == {nbid}
