"""base/ids: what an id and a sha256 look like in every document."""

from __future__ import annotations

import hashlib

import pytest

from transcribe_import.engine.base.ids import is_sha256

_SHA = hashlib.sha256(b"page").hexdigest()


def test_a_lower_case_sha256_hex_digest_is_one() -> None:
    assert is_sha256(_SHA)


@pytest.mark.parametrize(
    "value",
    [_SHA.upper(), _SHA[:-1], _SHA + "0", _SHA + "\n", "g" * 64, None, 1234, _SHA.encode()],
)
def test_anything_else_is_refused(value: object) -> None:
    assert not is_sha256(value)
