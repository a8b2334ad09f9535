"""base/ids: what an id and a sha256 look like in every document."""

from __future__ import annotations

import hashlib

import pytest

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.ids import (
    IdKind,
    ShortIds,
    ids_by_prefix,
    is_sha256,
    resolve_id,
    short_id,
)

_SHA = hashlib.sha256(b"page").hexdigest()


def test_a_lower_case_sha256_hex_digest_is_one() -> None:
    assert is_sha256(_SHA)


@pytest.mark.parametrize(
    "value",
    [_SHA.upper(), _SHA[:-1], _SHA + "0", _SHA + "\n", "g" * 64, None, 1234, _SHA.encode()],
)
def test_anything_else_is_refused(value: object) -> None:
    assert not is_sha256(value)


_RUN = "6e5b520f-1de3-44ba-aa95-bd71a942c392"


def test_an_id_is_shown_by_its_8_characters_when_no_other_shares_them() -> None:
    others = ["6e5b5201-0000-4000-8000-000000000000", "ffffffff-0000-4000-8000-000000000000"]
    assert short_id(_RUN) == "6e5b520f"
    assert short_id(_RUN, [_RUN, *others]) == "6e5b520f"


def test_an_id_sharing_its_8_characters_is_shown_until_it_is_told_apart() -> None:
    twin = "6e5b520f-1de0-4000-8000-000000000000"
    shown = short_id(_RUN, [twin, _RUN])
    assert shown == "6e5b520f-1de3" and short_id(twin, [_RUN]) == "6e5b520f-1de0"
    # What is shown names the one id back, as every command takes a prefix.
    assert ids_by_prefix(shown, [_RUN, twin]) == [_RUN]


def test_a_list_shortens_each_id_against_its_neighbours_alone() -> None:
    ids = [_RUN, "6e5b520f-1de0-4000-8000-000000000000", "6e5b520e-0000-4000-8000-000000000000"]
    ids += [f"{k:08x}-0000-4000-8000-000000000000" for k in range(0, 2**32, 2**24)]
    shown = ShortIds.of(ids)
    assert {i: shown(i) for i in ids} == {i: short_id(i, ids) for i in ids}
    assert len({shown(i) for i in ids}) == len(ids)
    assert all(ids_by_prefix(shown(i), ids) == [i] for i in ids)


def test_short_ids_of_a_listing_the_disk_refuses_are_each_ids_8_characters() -> None:
    """A line's words never turn work done into an error: a purge done, then the runs not
    listed on a failing disk, exited 1 (the purge fault walk)."""

    def failing() -> list[str]:
        raise OSError(5, "Input/output error")

    shorten = ShortIds.listed(failing)
    assert shorten("4690d086-156c-4a5e-8c67-2b0bffdeb0c4") == "4690d086"
    twins = ["4690d0861-aaaa", "4690d0862-bbbb"]
    assert ShortIds.listed(lambda: twins)(twins[0]) == "4690d0861"


def test_resolve_id_takes_a_start_and_refuses_none_or_several_in_its_kinds_words() -> None:
    kind = IdKind(ErrorCode.RUN_NOT_FOUND, "import run", "import runs", "run id", "runs", " in X")
    run, twin = "6e5b520f-1de3-44ba-aa95-bd71a942c392", "6e5b520f-1de0-4000-8000-000000000000"

    def never() -> list[str]:
        raise AssertionError("a whole id is taken without listing the ids")

    assert resolve_id(run, never, kind) == run
    assert resolve_id("6e5b520f-1de3", lambda: [run, twin], kind) == run
    with pytest.raises(TranscribeError) as none:
        resolve_id("ffff", lambda: [run, twin], kind)
    assert none.value.code is ErrorCode.RUN_NOT_FOUND and str(none.value) == (
        "No import run 'ffff' in X: a run id, or its first 4 characters or more, is needed; "
        "`transcribe-import runs` lists them."
    )
    with pytest.raises(TranscribeError) as several:
        resolve_id("6e5b520f", lambda: [twin, run], kind)
    assert str(several.value) == (
        f"'6e5b520f' begins 2 import runs ({twin}, {run}); give more of the run id."
    )
