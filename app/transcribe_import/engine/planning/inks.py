"""The inks a rescan's verification compares, and its verdicts, kept in memory.

A verification (media/ink.py) needs both pages' ink at about 512 pixels. The look pass has
it in hand as it makes a page's look, and hands it here (``keep``); any other page's (a
page of the corpus, a PNG page whose look the scan made, a page of a plan opened again in
another session) is made when a candidate pair asks for it, from a small decode of its
file: the JPEG at a fraction, a PNG or TIFF whole (the page's file in the corpus, or the
plan's file, its bytes checked against its sha256 first). Only candidate pairs ask: a
third of a shelf of handwritten pages, whose sparse pages' looks crowd together
(bench/RESULTS.md); a plan's are made by ``score_many``'s worker processes.

Inks are kept as bytes (one byte a pixel), compressed (a page's ink is mostly paper, 0:
some 185 kB a page at 512 pixels shrinks to some 15 kB), the most recent up to
``LIMIT_BYTES`` of them; those let go go to a spill file in the corpus's cache folder
(``spill_into``: a file with no name, gone with the process), read back when a verification
asks for them, so that a shelf's plan makes no page's ink twice for its verifications
whatever its size (a shelf of 100,000 pages has some 1.7 GB of inks; without the spill its
verifications made most of them again from their files, round after round).

Verdicts (a pair's score) are kept for good, so a review validated again and again after
each edit verifies each pair once, and in the corpus (``verdicts_kept``,
look_cache.py), so ``validate`` after ``plan`` in another process verifies none again. Both
are keyed by page key (``sha256#index``): the same bytes are the same page whatever plan
holds them.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import threading
import zlib
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from transcribe_import.engine.base.background import worker_options
from transcribe_import.engine.media import check, ink, lookalike
from transcribe_import.engine.planning.look_cache import CACHE_FILE, VerdictCache, Verdicts
from transcribe_import.engine.storage import fsio

log = logging.getLogger(__name__)

# The bytes of the inks kept, compressed: 15,000-20,000 pages of handwriting at 512 pixels
# (a sparse page's written part at 2048 pixels with it). A look pass keeps every page's; on
# a larger shelf the earliest are let go, and made again from their files if a verification
# asks for them (about a third of a shelf's pages are candidates).
LIMIT_BYTES = 256 * 2**20
# zlib's fastest level: 0.6 ms to pack a page's ink and 0.25 ms to unpack it, where making
# it again from the file is 10-50 ms (bench/RESULTS.md).
PACK_LEVEL = 1
ENTRY_BYTES = 200  # an entry's key, its place in the order and its record, about
# The spill file's bounds: it grows to at most ``SPILL_LIMIT_BYTES`` (some 250,000 pages'
# inks), and only while its disk keeps ``SPILL_FREE_FLOOR`` free (asked every
# ``SPILL_CHECK_BYTES`` written), so it never takes the room an import needs; past either,
# an ink let go is made again from its file if asked for, as without a spill.
SPILL_LIMIT_BYTES = 4 * 2**30
SPILL_FREE_FLOOR = 2 * 2**30
SPILL_CHECK_BYTES = 64 * 2**20


@dataclass(frozen=True)
class PageFile:
    """Where a page's pixels are: its file (as it must still be) and its place in it."""

    path: Path
    sha256: str
    size: int
    media_type: str
    page_index: int
    page_count: int


@dataclass(frozen=True)
class Packed:
    """An ink kept: its pixels and its detail, each one byte a pixel, compressed (what a
    worker process sends back: ``packed``)."""

    pixels: bytes
    shape: tuple[int, int]
    detail: bytes | None
    detail_shape: tuple[int, int] | None

    @property
    def size(self) -> int:
        return len(self.pixels) + len(self.detail or b"")


_lock = threading.Lock()
_inks: OrderedDict[str, Packed | None] = OrderedDict()
_kept_bytes = 0
_scores: dict[tuple[str, str, int], float] = {}
# The verdicts of ``_scores`` made with a page's ink missing (its file gone, changed): 0,
# which says nothing of the pair for good (not kept: ``verdicts_read``).
_unread: set[tuple[str, str, int]] = set()


def keep(key: str, found: ink.Ink | None) -> None:
    """Keep a page's ink (None: it has none) for the verifications to come."""
    _keep_packed(key, None if found is None else _pack_ink(found))


def packed(found: ink.Ink) -> Packed:
    """A page's ink as it is kept, to be sent from a worker process and kept here
    (``keep_packed``)."""
    return _pack_ink(found)


def keep_packed(key: str, packed: Packed | None) -> None:
    """Keep a page's ink as ``packed`` made it (None: it has none)."""
    _keep_packed(key, packed)


def _keep_packed(key: str, packed: Packed | None) -> None:
    global _kept_bytes
    with _lock:
        if key in _inks:
            _kept_bytes -= _size(_inks.pop(key))
        _inks[key] = packed
        _kept_bytes += _size(packed)
        while _kept_bytes > LIMIT_BYTES and len(_inks) > 1:
            gone, its = _inks.popitem(last=False)
            _kept_bytes -= _size(its)
            _spill_out(gone, its)


@dataclass
class _Spill:
    """The inks let go from memory, in a scratch file: each written once (a page key's ink
    never changes: the same bytes), where it is in the file kept here."""

    file: BinaryIO
    directory: Path
    # Where each ink is: its offset, its pixels' length and shape, its detail's (None:
    # none); None for a page with no ink.
    at: dict[str, tuple[int, int, tuple[int, int], int, tuple[int, int] | None] | None]
    end: int = 0
    checked_at: int = 0
    full: bool = False

    def put(self, key: str, packed: Packed | None) -> None:
        if key in self.at or self.full:
            return
        if packed is None:
            self.at[key] = None
            return
        data = packed.pixels + (packed.detail or b"")
        if self.end + len(data) > SPILL_LIMIT_BYTES or not self._room():
            self.full = True
            return
        try:
            self.file.seek(self.end)
            self.file.write(data)
        except OSError as exc:  # the disk full, failing: no more spilled
            log.info("inks no longer spilled to %s: %s", self.directory, exc)
            self.full = True
            return
        self.at[key] = (
            self.end,
            len(packed.pixels),
            packed.shape,
            len(packed.detail or b""),
            packed.detail_shape,
        )
        self.end += len(data)

    def _room(self) -> bool:
        """Whether the disk still has ``SPILL_FREE_FLOOR`` free (asked now and then)."""
        if self.end - self.checked_at < SPILL_CHECK_BYTES and self.checked_at:
            return True
        self.checked_at = max(self.end, 1)
        try:
            return shutil.disk_usage(self.directory).free >= SPILL_FREE_FLOOR
        except OSError:
            return False

    def get(self, key: str) -> tuple[bool, Packed | None]:
        """Whether ``key``'s ink was spilled, and it (None: the page has none)."""
        if key not in self.at:
            return False, None
        where = self.at[key]
        if where is None:
            return True, None
        offset, pixels, shape, detail, detail_shape = where
        try:
            self.file.seek(offset)
            data = self.file.read(pixels + detail)
        except OSError:
            data = b""
        if len(data) != pixels + detail:  # unreadable: made again from its file
            del self.at[key]
            return False, None
        return True, Packed(data[:pixels], shape, data[pixels:] or None, detail_shape)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.file.close()


# Where inks let go from memory are spilled (``spill_into``), and the spill once opened (or
# False: it could not be).
_spill_dir: Path | None = None
_spill: _Spill | None | bool = None


def spill_into(corpus_root: Path) -> None:
    """Spill the inks let go from memory into a scratch file in the cache folder of the
    corpus at ``corpus_root`` (the disk the import goes to, not a /tmp that may be memory),
    opened at the first ink let go. A spill already open stays where it is."""
    global _spill_dir, _spill
    directory = corpus_root / CACHE_FILE.parent
    with _lock:
        if _spill is False and directory != _spill_dir:
            _spill = None  # could not be had there: tried here
        _spill_dir = directory


def _spill_out(key: str, packed: Packed | None) -> None:
    """Keep ``key``'s ink, let go from memory, in the spill (when one can be had)."""
    global _spill
    if _spill is None:
        if _spill_dir is None:
            return
        try:
            fsio.make_dirs(_spill_dir)
            _spill = _Spill(fsio.scratch_file(_spill_dir), _spill_dir, {})
        except OSError as exc:  # no room, no such folder, a link: let go, as without one
            log.info("inks are not spilled to %s: %s", _spill_dir, exc)
            _spill = False
            return
    if isinstance(_spill, _Spill):
        _spill.put(key, packed)


def _known(key: str) -> tuple[bool, Packed | None]:
    """Whether ``key``'s ink is kept (in memory or spilled), and it: under ``_lock``."""
    if key in _inks:
        return True, _inks[key]
    if isinstance(_spill, _Spill):
        return _spill.get(key)
    return False, None


def _is_known(key: str) -> bool:
    """``_known(key)[0]``, without reading a spilled ink back: under ``_lock``."""
    return key in _inks or (isinstance(_spill, _Spill) and key in _spill.at)


def _size(packed: Packed | None) -> int:
    """What an entry costs to keep: its bytes and about what the entry itself takes (a page
    with no ink costs that alone)."""
    return ENTRY_BYTES + (0 if packed is None else packed.size)


def _pack_ink(found: ink.Ink) -> Packed:
    detail = found.detail
    return Packed(
        _pack(found.pixels),
        (found.pixels.shape[0], found.pixels.shape[1]),
        None if detail is None else _pack(detail),
        None if detail is None else (detail.shape[0], detail.shape[1]),
    )


def _pack(pixels: np.ndarray) -> bytes:
    return zlib.compress(np.round(pixels * 255).astype(np.uint8).tobytes(), PACK_LEVEL)


def _unpack(packed: bytes, shape: tuple[int, int]) -> np.ndarray:
    flat = np.frombuffer(zlib.decompress(packed), dtype=np.uint8)
    out: np.ndarray = flat.reshape(shape).astype(np.float32) / 255
    return out


# The inks last unpacked, as ``ink.Ink``s, in this process (the main one or a worker): the
# same page's next pair finds the same arrays, and with them what ``ink.score`` made of them
# for its last pair (its spectra, its tiles', kept by the arrays' identity). A few pages'
# worth: a page's pairs come together (``score_many`` orders them by page).
UNPACKED_KEPT = 8
_unpacked_lock = threading.Lock()
_unpacked_kept: OrderedDict[str, tuple[Packed, ink.Ink]] = OrderedDict()


def _unpacked_of(key: str, packed: Packed) -> ink.Ink:
    """``_unpacked(packed)``, the same ``ink.Ink`` as last time for the same ink."""
    with _unpacked_lock:
        known = _unpacked_kept.get(key)
        if known is not None and (known[0] is packed or known[0] == packed):
            _unpacked_kept.move_to_end(key)
            return known[1]
    made = _unpacked(packed)
    with _unpacked_lock:
        _unpacked_kept[key] = (packed, made)
        _unpacked_kept.move_to_end(key)
        while len(_unpacked_kept) > UNPACKED_KEPT:
            _unpacked_kept.popitem(last=False)
    return made


def _unpacked(packed: Packed) -> ink.Ink:
    detail = (
        None
        if packed.detail is None or packed.detail_shape is None
        else _unpack(packed.detail, packed.detail_shape)
    )
    return ink.Ink(_unpack(packed.pixels, packed.shape), detail)


def ink_of(key: str, where: PageFile | None) -> ink.Ink | None:
    """A page's ink: kept, else made from ``where`` (None when it cannot be: no file, or
    the file gone, changed or undecodable)."""
    with _lock:
        in_memory = key in _inks
        known, packed = _known(key)
        if in_memory:
            _inks.move_to_end(key)
    if known:  # unpacked outside the lock: other threads' lookups go on
        if not in_memory:  # read back from the spill: its next pairs find it in memory
            _keep_packed(key, packed)
        return None if packed is None else _unpacked_of(key, packed)
    if where is None:
        return None
    made = _packed_from(where)
    _keep_packed(key, made)
    # As kept (to a 255th), so a pair scores the same whether its inks were just made, kept
    # or sent to a worker process (``score_many``).
    return None if made is None else _unpacked(made)


def _packed_from(where: PageFile) -> Packed | None:
    """A page's ink made from its file, packed (what a worker process sends back)."""
    made = _made(where)
    return None if made is None else _pack_ink(made)


def _made(where: PageFile) -> ink.Ink | None:
    try:
        # A corpus page's size is its file's (the manifest may not say it): its sha256 is
        # checked all the same.
        size = where.size if where.size >= 0 else fsio.stat(where.path).st_size
        read = check.read_once(where.path, size=size)
    except OSError:
        return None
    if read.sha256 != where.sha256:
        return None
    return lookalike.page_ink(
        where.path,
        where.media_type,
        where.page_count,
        where.page_index,
        size=size,
        data=read.data,
    )


def score(
    key: str, where: PageFile | None, other: str, other_where: PageFile | None, turn: int
) -> float:
    """How much page ``key`` is page ``other`` (``ink.score``), ``key`` turned ``turn``
    quarters anticlockwise to stand as ``other`` does; 0 when either has no ink."""
    memo = (key, other, turn)
    with _lock:
        known = _scores.get(memo)
    if known is not None:
        return known
    mine, theirs = ink_of(key, where), ink_of(other, other_where)
    value = _verdict(mine, theirs, turn)
    _settle(memo, value, read=mine is not None and theirs is not None)
    return value


def _verdict(mine: ink.Ink | None, theirs: ink.Ink | None, turn: int) -> float:
    return 0.0 if mine is None or theirs is None else ink.score(theirs, ink.turned(mine, turn))


def _settle(memo: tuple[str, str, int], value: float, *, read: bool) -> None:
    with _lock:
        _scores[memo] = value
        if read:  # a page not read says nothing for good
            _unread.discard(memo)
            for made in _recording:
                made[memo] = value
        else:
            _unread.add(memo)


def take_verdicts(verdicts: Verdicts) -> None:
    """Take ``verdicts`` (each made from both pages' inks, kept elsewhere: a kept candidate
    search's, look_cache.PairCache) as if made here, where this process has none of its own."""
    with _lock:
        for memo, value in verdicts.items():
            _scores.setdefault(memo, value)


def verdicts_read(memos: Iterable[tuple[str, str, int]]) -> Verdicts:
    """The verdicts this process holds of ``memos`` that were made from both pages' inks
    (here, in a worker, or kept): what can be kept for good."""
    with _lock:
        return {m: _scores[m] for m in memos if m in _scores and m not in _unread}


# A pair to verify: a page's key and file, the other page's, and the turn (``score``).
Pair = tuple[str, PageFile | None, str, PageFile | None, int]

# From this many pairs not verified yet, ``score_many`` spreads them over worker processes:
# a verification is 10-30 ms of numpy and Pillow that holds the GIL for much of it, and a
# worker costs some 0.5 s to start (it imports numpy and Pillow), won back from about here.
PARALLEL_FROM = 64
# The pairs a worker is handed at a time, with their inks (packed: some 15 kB a page).
PAIRS_A_TASK = 16
# The pairs whose inks are made, then verified, in one round: their inks (at most twice as
# many pages, some 20 kB each packed) stay well within ``LIMIT_BYTES`` whatever the shelf.
PAIRS_A_ROUND = 4096
# The tasks handed to the pool ahead of its workers, a worker: enough that none waits.
TASKS_AHEAD = 4


def score_many(
    pairs: Sequence[Pair],
    workers: int = 2,
    progress: Callable[[int, int], None] | None = None,
) -> None:
    """Verify ``pairs`` ahead of their ``score``, spread over ``workers`` worker processes
    when there are ``PARALLEL_FROM`` or more not verified yet (a shelf's plan: its
    verifications were most of its time, on one core); their ``score`` then finds each
    verdict made, the same value as made here. Fewer pairs, or no worker processes to be
    had, are left to ``score``, one after another in this process. ``progress(done,
    total)``: the pairs verified here of those to verify, from 0, as the workers hand them
    back (told only when they are spread: fewer take seconds)."""
    _take_kept(pairs)
    with _lock:
        todo = [p for p in dict.fromkeys(pairs) if (p[0], p[2], p[4]) not in _scores]
    if workers < 2 or len(todo) < PARALLEL_FROM:
        return
    tell = _Told(progress, len(todo))
    # A page's pairs together, so that a worker's tasks reuse what was made of its ink (its
    # spectra, its tiles': ``ink.score``) where handed out as found they were scattered: by
    # the page the other is brought onto, then by that other, as it stands.
    todo.sort(key=lambda p: (p[2], p[0], p[4]))
    try:
        pool = ProcessPoolExecutor(workers, **worker_options())  # spawned (see there)
    except (OSError, ImportError) as exc:  # no semaphores here (a sandbox): one by one
        log.info("verifications run in this process: no worker processes (%s)", exc)
        return
    try:
        for start in range(0, len(todo), PAIRS_A_ROUND):
            _spread(pool, todo[start : start + PAIRS_A_ROUND], tell, workers)
    except BrokenProcessPool:  # its workers died (killed, out of memory): ``score`` does the rest
        log.info("verifications left to this process: a worker process ended")
    finally:
        # Stopped early (Ctrl-C in the command line): the tasks not begun are dropped, not
        # waited for.
        pool.shutdown(wait=True, cancel_futures=True)


@dataclass
class _Told:
    """``score_many``'s pairs verified so far, told to its ``progress`` (if any)."""

    progress: Callable[[int, int], None] | None
    total: int
    done: int = 0

    def __post_init__(self) -> None:
        self.add(0)

    def add(self, n: int) -> None:
        self.done += n
        if self.progress is not None:
            self.progress(min(self.done, self.total), self.total)


def _spread(pool: ProcessPoolExecutor, todo: list[Pair], tell: _Told, workers: int) -> None:
    # The inks neither in memory nor spilled, made by the workers from their files, each once.
    with _lock:
        wanted = {
            k: w
            for key, where, other, other_where, _turn in todo
            for k, w in ((key, where), (other, other_where))
            if w is not None and not _is_known(k)
        }
    made = pool.map(_packed_from, wanted.values(), chunksize=8)
    for key, packed in zip(wanted, made, strict=True):
        _keep_packed(key, packed)
    # Handed out a few tasks ahead of the workers, each with its inks as it is handed out
    # (those read back from the spill are copies: a round's at once would be some 150 MB).
    tasks = _tasks(todo)
    running: deque[tuple[tuple[list[Pair], dict[str, Packed | None]], Future[list[float]]]]
    running = deque()

    def top_up() -> None:
        while len(running) < TASKS_AHEAD * max(1, workers):
            task = next(tasks, None)
            if task is None:
                return
            running.append((task, pool.submit(_scored, task)))

    top_up()
    while running:
        (chunk, sent), future = running.popleft()
        values = future.result()
        for (key, _w, other, _o, turn), value in zip(chunk, values, strict=True):
            read = sent[key] is not None and sent[other] is not None
            _settle((key, other, turn), value, read=read)
        tell.add(len(chunk))
        top_up()


def _tasks(todo: list[Pair]) -> Iterator[tuple[list[Pair], dict[str, Packed | None]]]:
    """``todo`` cut into a worker's tasks, each with the inks of its pairs' pages; a pair
    with a page whose ink is not kept (no file, or the file gone or changed, and no spill to
    hold it) is left to ``score``."""
    for start in range(0, len(todo), PAIRS_A_TASK):
        chunk: list[Pair] = []
        sent: dict[str, Packed | None] = {}
        with _lock:
            for pair in todo[start : start + PAIRS_A_TASK]:
                mine = sent[pair[0]] if pair[0] in sent else _found(pair[0])
                theirs = sent[pair[2]] if pair[2] in sent else _found(pair[2])
                if mine is not _MISSING and theirs is not _MISSING:
                    chunk.append(pair)
                    sent[pair[0]], sent[pair[2]] = mine, theirs
        if chunk:
            yield chunk, sent


# ``_found``'s answer for an ink not kept.
_MISSING = Packed(b"", (0, 0), None, None)


def _found(key: str) -> Packed | None:
    """``key``'s ink kept (None: the page has none), or ``_MISSING``: under ``_lock``."""
    known, packed = _known(key)
    return packed if known else _MISSING


def _scored(task: tuple[list[Pair], dict[str, Packed | None]]) -> list[float]:
    """A worker's verdicts of its pairs, from the inks it was sent."""
    pairs, sent = task
    unpacked = {k: None if v is None else _unpacked_of(k, v) for k, v in sent.items()}
    return [_verdict(unpacked[key], unpacked[other], turn) for key, _w, other, _o, turn in pairs]


# The verdicts made while each ``verdicts_kept`` is open, to be kept when it closes.
_recording: list[Verdicts] = []
# The caches of the ``verdicts_kept`` open: where a pair not verified yet is looked for.
_caches: list[VerdictCache] = []


@contextlib.contextmanager
def verdicts_kept(cache: VerdictCache) -> Iterator[None]:
    """Take the verdicts ``cache`` kept of the pairs asked about until this closes (a pair
    verified in another process, by ``plan`` before this ``validate``, is not verified
    again: ``score_many`` reads them, as far back in the file as they are), and keep there
    the verdicts made meanwhile."""
    made: Verdicts = {}
    with _lock:
        _recording.append(made)
        _caches.append(cache)
    try:
        yield
    finally:
        with _lock:
            _recording.remove(made)
            _caches.remove(cache)
        cache.add(made)


def _take_kept(pairs: Sequence[Pair]) -> None:
    """The verdicts the open ``verdicts_kept`` caches hold of ``pairs`` not verified yet in
    this process, taken as if made here."""
    with _lock:
        caches = list(_caches)
        wanted = {(p[0], p[2], p[4]) for p in pairs} - _scores.keys() if caches else set()
    for cache in caches:
        if not wanted:
            return
        kept = cache.read(wanted)
        with _lock:
            for memo, value in kept.items():
                _scores.setdefault(memo, value)
        wanted -= kept.keys()


def forget() -> None:
    """Let every ink and verdict go (tests that count decodes start from nothing), the
    spill's included, and where to spill (``spill_into`` again)."""
    global _kept_bytes, _spill, _spill_dir
    with _lock:
        _inks.clear()
        _kept_bytes = 0
        if isinstance(_spill, _Spill):
            _spill.close()
        _spill = None
        _spill_dir = None
        _scores.clear()
        _unread.clear()
    with _unpacked_lock:
        _unpacked_kept.clear()
    ink.forget_derived()
