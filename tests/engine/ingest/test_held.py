"""ingest/held: the one rule for a duplicate inside a notebook, asked by planning and commit."""

from __future__ import annotations

from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.ingest.held import held_as_another, source_hashes
from transcribe_import.engine.planning.dedupe import classify
from transcribe_import.engine.planning.plan import DedupeScope, Duplicate, DuplicatePolicy


def test_source_hashes_reads_only_well_formed_entries() -> None:
    first, second = new_id(), new_id()
    manifest = {
        "sources": [
            {"id": first, "sha256": "a" * 64},
            {"id": second, "sha256": "b" * 64},
            {"id": new_id(), "sha256": None},  # a damaged entry names no bytes
            {"sha256": "c" * 64},  # nor a source
            "not an entry",
        ]
    }
    assert source_hashes(manifest) == {"a" * 64: first, "b" * 64: second}


def test_bytes_held_as_another_source_are_a_duplicate_but_the_source_itself_is_not() -> None:
    mine, other = new_id(), new_id()
    hashes = {"a" * 64: other, "b" * 64: mine}
    assert held_as_another(hashes, "a" * 64, mine)
    assert held_as_another(hashes, "a" * 64, None)  # the planner's sources have new ids
    assert not held_as_another(hashes, "b" * 64, mine)  # a retry after its import landed
    assert not held_as_another(hashes, "c" * 64, mine)
    assert not held_as_another(None, "a" * 64, mine)  # a notebook not made yet holds nothing
    assert not held_as_another({}, "a" * 64, mine)


def test_planning_classifies_in_notebook_by_the_same_rule() -> None:
    mine, other = new_id(), new_id()
    hashes = {"a" * 64: other, "b" * 64: mine}
    for sha in ("a" * 64, "b" * 64, "c" * 64):
        found = classify(
            sha,
            policy=DuplicatePolicy.SKIP_EXISTING,
            scope=DedupeScope.NOTEBOOK,
            notebook_id=new_id(),
            in_notebook=hashes,
            source_id=mine,
        )
        assert (found is Duplicate.IN_NOTEBOOK) == held_as_another(hashes, sha, mine)
