"""Check an export bag as docs/formats.md defines it, without the bagit package: every problem.

This reads a finished export the way a careful reader would: it must be a BagIt bag
(``bagit.txt``), not marked incomplete, every tag file and payload file must have the hash
its manifest gives, the payload must be exactly what ``manifest-sha256.txt`` lists, and
``MANIFEST.json`` must agree with it and with its chain hash. It reads paths only from its
own walk of the folder, so a hostile manifest cannot make it open anything outside the bag.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from transcribe_import.engine.export.model import (
    BAGIT_DECLARATION,
    BAGIT_TXT,
    DATA,
    EXPORT_FORMAT,
    INCOMPLETE,
    MANIFEST_JSON,
    PAYLOAD_MANIFEST,
    TAG_MANIFEST,
    chain_hash,
)
from transcribe_import.engine.storage import fsio


@dataclass(frozen=True)
class BagCheck:
    """What ``verify_bag`` found: valid only with no problem and status ``complete``."""

    root: Path
    status: str | None  # MANIFEST.json's status, when it could be read
    problems: tuple[str, ...]

    @property
    def valid(self) -> bool:
        return not self.problems


def _walk(root: Path) -> dict[str, Path]:
    """Every plain file under ``root`` by its "/" path; links and the like are refused."""
    out: dict[str, Path] = {}
    for folder, dirs, names in os.walk(root, followlinks=False):
        for name in [*dirs, *names]:
            path = Path(folder) / name
            if path.is_symlink():
                raise ValueError(f"{path} is a symbolic link")
        for name in names:
            path = Path(folder) / name
            out[path.relative_to(root).as_posix()] = path
    return out


def _parse_manifest(data: bytes, where: str, problems: list[str]) -> dict[str, str]:
    entries: dict[str, str] = {}
    for no, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        digest, _, path = line.partition("  ")
        if len(digest) != 64 or not path:
            problems.append(f"{where} line {no} is not `<sha256>  <path>`")
            continue
        entries[path] = digest.lower()
    return entries


def verify_bag(root: Path) -> BagCheck:
    problems: list[str] = []
    try:
        found = _walk(root)
    except (OSError, ValueError) as exc:
        return BagCheck(root, None, (f"{root} cannot be walked: {exc}",))

    def read(name: str) -> bytes | None:
        if name not in found:
            problems.append(f"{root / name} is missing")
            return None
        return fsio.read_bytes(found[name])

    if INCOMPLETE in found:
        problems.append(f"{root / INCOMPLETE} is present: the export did not finish")
    bagit = read(BAGIT_TXT)
    if bagit is not None and bagit != BAGIT_DECLARATION:
        problems.append(f"{root / BAGIT_TXT} is not the BagIt 1.0 declaration")
    tag_data = read(TAG_MANIFEST)
    if tag_data is not None:
        for name, digest in _parse_manifest(tag_data, TAG_MANIFEST, problems).items():
            if name not in found:
                problems.append(f"{root / name} is listed in {TAG_MANIFEST} but missing")
            elif fsio.hash_file(found[name])[0] != digest:
                problems.append(f"{root / name} does not have the sha256 {TAG_MANIFEST} gives")
    payload_data = read(PAYLOAD_MANIFEST)
    listed: dict[str, str] = {}
    if payload_data is not None:
        listed = _parse_manifest(payload_data, PAYLOAD_MANIFEST, problems)
        payload = {rel for rel in found if rel.startswith(DATA + "/")}
        for rel in sorted(set(listed) - payload):
            problems.append(f"{root / rel} is listed in {PAYLOAD_MANIFEST} but missing")
        for rel in sorted(payload - set(listed)):
            problems.append(f"{root / rel} is in the payload but in no manifest")
        for rel in sorted(payload & set(listed)):
            if fsio.hash_file(found[rel])[0] != listed[rel]:
                problems.append(f"{root / rel} does not have the sha256 {PAYLOAD_MANIFEST} gives")
    status: str | None = None
    manifest_data = read(MANIFEST_JSON)
    if manifest_data is not None:
        try:
            doc: Any = orjson.loads(manifest_data)
        except orjson.JSONDecodeError as exc:
            doc = None
            problems.append(f"{root / MANIFEST_JSON} is not JSON ({exc})")
        if isinstance(doc, dict):
            status = doc.get("status") if isinstance(doc.get("status"), str) else None
            files = doc.get("files")
            if doc.get("format") != EXPORT_FORMAT or doc.get("schema_version") != 1:
                problems.append(f"{root / MANIFEST_JSON} is not a transcribe.export v1 manifest")
            if not isinstance(files, dict):
                problems.append(f"{root / MANIFEST_JSON} has no `files`")
            else:
                pairs = [(str(k), str(v)) for k, v in files.items()]
                if chain_hash(pairs) != doc.get("chain_hash"):
                    problems.append(f"{root / MANIFEST_JSON}: `chain_hash` does not match `files`")
                if payload_data is not None and dict(pairs) != {
                    rel: d for rel, d in listed.items() if rel in found
                }:
                    problems.append(
                        f"{root / MANIFEST_JSON}: `files` differs from {PAYLOAD_MANIFEST}"
                    )
            if status != "complete":
                problems.append(f"{root / MANIFEST_JSON} says the export is {status!r}")
        elif doc is not None:
            problems.append(f"{root / MANIFEST_JSON} is not a JSON object")
    return BagCheck(root, status, tuple(problems))
