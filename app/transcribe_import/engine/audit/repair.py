"""Repair from a copy: each file whose last check failed, copied back from a folder that holds
its recorded bytes (an exported bag, another corpus, a backup), and the repair recorded.

Search, then decide: a copy is looked for first where the layouts this app writes put it
(a bag's ``data/notebooks/<id>/``, a data folder's ``corpus/notebooks/<id>/``, ...), then
among the folder's files of the recorded size; the decision is the copied bytes' sha256,
computed on the bytes written into the corpus, never a name or a size. A copy with other
bytes is refused and named. The write is a temporary file in the notebook's folder renamed
over the damaged one (one atomic replace), under the notebook's ingest lock, so an import
writing to the notebook is never raced.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from transcribe_import.engine.audit import log
from transcribe_import.engine.audit.check import repair_event
from transcribe_import.engine.audit.files import audited_files, recorded
from transcribe_import.engine.audit.model import (
    AuditedFile,
    NotRepaired,
    Repaired,
    RepairRefusal,
    RepairResult,
)
from transcribe_import.engine.audit.report import failures_now
from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.ingest import journal
from transcribe_import.engine.storage import fsio, locks
from transcribe_import.engine.storage.corpus import Corpus


class _Copies:
    """The files of the folder offered, found by where they should be, then by size."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._by_size: dict[int, list[Path]] | None = None
        self._hashes: dict[Path, str] = {}

    def where_expected(self, f: AuditedFile) -> list[Path]:
        rel = Path(f.path)
        guesses = [
            self.root / "data" / "notebooks" / f.notebook_id / rel,  # an exported bag
            self.root / "corpus" / "notebooks" / f.notebook_id / rel,  # a data folder
            self.root / "notebooks" / f.notebook_id / rel,  # a corpus folder
            self.root / f.notebook_id / rel,  # a notebook folder's parent
            self.root / rel,  # a notebook folder
            self.root / rel.name,  # a flat folder of copies
        ]
        return [p for p in guesses if _regular(p)]

    def _index(self) -> dict[int, list[Path]]:
        if self._by_size is None:
            self._by_size = {}
            for folder, dirs, names in os.walk(self.root):
                dirs.sort()
                for name in sorted(names):
                    p = Path(folder) / name
                    if _regular(p):
                        self._by_size.setdefault(fsio.stat(p).st_size, []).append(p)
        return self._by_size

    def by_content(self, f: AuditedFile, should_stop: Callable[[], bool]) -> Path | None:
        """A file of the folder whose bytes hash to ``f``'s sha256 (of its size if known)."""
        index = self._index()
        sizes = [f.size] if f.size is not None else sorted(index)
        for size in sizes:
            for p in index.get(size, []):
                if should_stop():
                    return None
                if p not in self._hashes:
                    try:
                        self._hashes[p] = fsio.hash_file(p, follow_links=False)[0]
                    except OSError:
                        continue
                if self._hashes[p] == f.sha256:
                    return p
        return None


def _regular(p: Path) -> bool:
    return not fsio.is_link(p) and fsio.is_file(p)


def repair_from(
    corpus: Corpus, source: Path, *, should_stop: Callable[[], bool] | None = None
) -> RepairResult:
    """Copy back every file whose last check failed from ``source``, where its bytes are.

    Raises TranscribeError(AUDIT_BUSY) while an audit runs, (SOURCE_MISSING) when
    ``source`` is not a folder.
    """
    if not fsio.is_dir(source):
        raise TranscribeError(
            ErrorCode.SOURCE_MISSING,
            f"{source} is not a folder; give an exported bag, a data folder or a backup "
            "folder to repair from.",
            path=str(source),
        )
    stop = should_stop or (lambda: False)
    lock = log.take_audit_lock(corpus)
    try:
        failures = failures_now(audited_files(corpus), log.read_log(corpus))
        copies = _Copies(source)
        repaired: list[Repaired] = []
        refused: list[NotRepaired] = []
        for failure in failures:
            if stop():
                break
            outcome = _repair_one(corpus, failure.file, copies, stop)
            if isinstance(outcome, Repaired):
                repaired.append(outcome)
            else:
                refused.append(outcome)
        return RepairResult(str(source), tuple(repaired), tuple(refused))
    finally:
        lock.release()


def _repair_one(
    corpus: Corpus, f: AuditedFile, copies: _Copies, stop: Callable[[], bool]
) -> Repaired | NotRepaired:
    seen: Path | None = None
    for candidate in copies.where_expected(f):
        got = _put_back(corpus, f, candidate)
        if isinstance(got, Repaired) or got.reason is not RepairRefusal.OTHER_BYTES:
            return got
        seen = seen or candidate
    found = copies.by_content(f, stop)
    if found is not None:
        return _put_back(corpus, f, found)
    if seen is not None:
        return NotRepaired(f, RepairRefusal.OTHER_BYTES, str(seen))
    return NotRepaired(f, RepairRefusal.NO_COPY, None)


def _remove_dead_temps(dst: Path) -> None:
    """The copies a killed repair of ``dst`` left; its ingest lock is held, so none is live."""
    for name in fsio.list_dir(dst.parent):
        if name.startswith(f".{dst.name}.tmp-") and name.endswith("-repair"):
            fsio.remove(dst.parent / name)


def _put_back(corpus: Corpus, f: AuditedFile, src: Path) -> Repaired | NotRepaired:
    """``src`` copied over the damaged file if its bytes are the recorded ones, under the
    notebook's ingest lock, and the repair appended to the log."""
    nb_dir = corpus.notebook_dir(f.notebook_id)
    ingest_lock = locks.make_lock(nb_dir / journal.LOCK_FILE)
    if not locks.try_acquire(ingest_lock):
        return NotRepaired(f, RepairRefusal.BUSY, None)
    try:
        now = recorded(corpus, f.notebook_id, f.path)
        if now is None or now.sha256 != f.sha256:
            return NotRepaired(f, RepairRefusal.CHANGED, None)
        dst = nb_dir / f.path
        tmp = dst.parent / f".{dst.name}.tmp-{os.getpid()}-repair"
        fsio.make_dirs(fsio.corpus_folder(corpus.root, dst.parent))
        _remove_dead_temps(dst)
        try:
            got, size = fsio.copy_hashed(src, tmp)
            if got != f.sha256:
                fsio.remove(tmp)
                return NotRepaired(f, RepairRefusal.OTHER_BYTES, str(src))
            crashpoint("audit.repair_before_replace")
            fsio.replace(tmp, dst)
        except BaseException:
            fsio.remove(tmp)
            raise
        fsio.fsync_dir(dst.parent)
        log.append(corpus, [repair_event(f, size, str(src))])
    finally:
        ingest_lock.release()
    return Repaired(f, str(src))
