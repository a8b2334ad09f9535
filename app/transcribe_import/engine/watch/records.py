"""The corpus's record of every drop a watch saw: ``corpus/watch/drops.jsonl``, append-only."""

from __future__ import annotations

import enum
import logging
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import orjson

from transcribe_import.engine.base.clock import utc_now
from transcribe_import.engine.storage import fsio
from transcribe_import.engine.storage.corpus import Corpus

log = logging.getLogger(__name__)

RECORD_FORMAT = "transcribe.watch-drop"
RECORD_SCHEMA = 1


class DropKind(enum.StrEnum):
    BAG = "bag"  # a folder holding bagit.txt: verified against its manifests, keeps its ids
    FOLDER = "folder"  # page files: planned with the defaults, one notebook per folder
    FILE = "file"  # a page file dropped on its own: planned as the window plans a file


class DropState(enum.StrEnum):
    """What a drop's latest record says (docs/formats.md, "The drop records")."""

    FOUND = "found"  # first seen with these contents
    WAITING = "waiting"  # changed since it was last seen: still being written
    COMMITTING = "committing"  # whole and valid: its plan is committed without a person
    IMPORTED = "imported"  # its run ended complete
    NEEDS_REVIEW = "needs_review"  # a person decides: its plan waits among the drafts
    REFUSED = "refused"  # cannot be imported: moved to .refused/ with a README
    TAKEN_ELSEWHERE = "taken_elsewhere"  # another corpus's watcher claimed it first

    @property
    def settled(self) -> bool:
        """Whether nothing more happens to the drop while its contents stay the same."""
        return self in _SETTLED


_SETTLED = frozenset({DropState.IMPORTED, DropState.REFUSED, DropState.TAKEN_ELSEWHERE})


@dataclass(frozen=True)
class DropRecord:
    """One line of the drop records: a drop (``folder``/``name``) and what became of it."""

    folder: str  # the watched folder, absolute
    name: str  # the drop's name in it
    kind: DropKind
    state: DropState
    signature: str  # sha256 of its files' names, sizes and mtimes when this was written
    seen_at: float  # the watch's clock (seconds since the epoch): settle times count from it
    at: str = ""  # UTC, ISO 8601
    plan_id: str | None = None
    run_id: str | None = None
    code: str | None = None  # a refusal's or a problem's code
    message: str | None = None  # in words: why it waits, why it was refused
    moved_to: str | None = None  # where it went (.imported/…, .refused/…), None: left in place

    @property
    def key(self) -> tuple[str, str]:
        return (self.folder, self.name)

    @property
    def path(self) -> Path:
        return Path(self.folder) / self.name

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"format": RECORD_FORMAT, "schema_version": RECORD_SCHEMA}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None:
                doc[f.name] = str(value) if isinstance(value, enum.Enum) else value
        return doc

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> DropRecord:
        """A record read back (KeyError, ValueError or TypeError when it is not one)."""
        if doc.get("format") != RECORD_FORMAT or doc.get("schema_version") != RECORD_SCHEMA:
            raise ValueError("not a drop record of this version")
        optional = {"plan_id", "run_id", "code", "message", "moved_to"}
        for name in optional:
            if doc.get(name) is not None and not isinstance(doc[name], str):
                raise TypeError(name)
        if not all(isinstance(doc[k], str) for k in ("folder", "name", "signature", "at")):
            raise TypeError("folder")
        return cls(
            folder=doc["folder"],
            name=doc["name"],
            kind=DropKind(doc["kind"]),
            state=DropState(doc["state"]),
            signature=doc["signature"],
            seen_at=float(doc["seen_at"]),
            at=doc["at"],
            **{k: doc.get(k) for k in optional},
        )


def records_path(corpus: Corpus) -> Path:
    return fsio.corpus_folder(corpus.root, corpus.root / "watch") / "drops.jsonl"


def plans_dir(corpus: Corpus) -> Path:
    """Where the plan of a drop committed without a person is kept (a resume reads it)."""
    return fsio.corpus_folder(corpus.root, corpus.root / "watch" / "plans")


def append(corpus: Corpus, record: DropRecord) -> DropRecord:
    """Add ``record`` (stamped now) to the drop records, durably; return it as written."""
    stamped = replace(record, at=utc_now())
    path = records_path(corpus)
    fsio.make_dirs(path.parent)
    if fsio.ends_torn(path):
        # A kill cut the last append short: that line is ignored, and the next one must
        # start on a line of its own.
        fsio.append_durable(path, b"\n")
    fsio.append_durable(path, orjson.dumps(stamped.to_json()) + b"\n")
    log.info("drop %s in %s: %s", record.name, record.folder, record.state)
    return stamped


@dataclass(frozen=True)
class _Read:
    """The records read from one file up to ``offset`` (the end of its last whole line)."""

    inode: int
    offset: int
    lines: int
    records: tuple[DropRecord, ...]
    tail: bytes = b""  # the last bytes read: still there, the file was only appended to


# The file is only ever appended to: a later read parses only what was added since (a pass
# reads it once, the window's drafts listing each time its plan changes; 10,000 records
# parse in about 0.3 s).
_read: dict[Path, _Read] = {}
_read_lock = threading.Lock()


def read_all(corpus: Corpus) -> list[DropRecord]:
    """Every drop record, oldest first. A line that is not one (a torn last line, a line
    edited by hand) is skipped and logged: the records are an account, not the authority
    for what landed (the run records are)."""
    path = records_path(corpus)
    try:
        with fsio.open_read(path) as f:
            st = os.fstat(f.fileno())
            with _read_lock:
                known = _read.get(path)
            if known is None or known.inode != st.st_ino or known.offset > st.st_size:
                known = _Read(st.st_ino, 0, 0, ())
            f.seek(known.offset - len(known.tail))
            data = f.read()
            if not data.startswith(known.tail):  # rewritten, not appended to: read it all
                known = _Read(st.st_ino, 0, 0, ())
                f.seek(0)
                data = f.read()
            else:
                data = data[len(known.tail) :]
    except FileNotFoundError:
        return []
    whole = data[: data.rfind(b"\n") + 1]  # a line still being appended waits for its end
    out = list(known.records)
    number = known.lines
    for line in whole.splitlines():
        number += 1
        if not line.strip():
            continue
        try:
            out.append(DropRecord.from_json(orjson.loads(line)))
        except (orjson.JSONDecodeError, KeyError, ValueError, TypeError):
            log.info(
                "%s line %d is not a drop record (cut short by a kill?); skipped", path, number
            )
    with _read_lock:
        seen = (known.tail + whole)[-64:]
        _read[path] = _Read(st.st_ino, known.offset + len(whole), number, tuple(out), seen)
    return out


def latest(records: Iterable[DropRecord]) -> dict[tuple[str, str], DropRecord]:
    """Each drop's latest record, by (folder, name)."""
    out: dict[tuple[str, str], DropRecord] = {}
    for r in records:
        out[r.key] = r
    return out


def seen_since(
    records: Iterable[DropRecord], key: tuple[str, str], signature: str
) -> DropRecord | None:
    """The record of when the drop was first seen with ``signature`` and unchanged since
    (None: it does not have these contents now): its settle time counts from there."""
    since: DropRecord | None = None
    for r in records:
        if r.key != key:
            continue
        if r.signature != signature:
            since = None
        elif since is None:
            since = r
    return since
