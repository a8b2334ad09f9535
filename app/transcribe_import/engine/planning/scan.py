"""Scan: find the page files under the folders and files a person gave, read-only and cancellable.

Two phases, both streamed as ``ScanProgress`` from one generator:

* **walking** (``walk``): ``os.scandir`` iteratively, classify every entry, stat page files.
  Junk, hidden entries and non-page files are kept as ``IgnoredFile`` so the UI can say
  why something was left out. Symbolic links to folders are followed; every visited
  folder's (st_dev, st_ino) is remembered so a loop ends the descent instead of the scan.
* **inspecting**: for each page file, in batches on a thread pool, one read that hashes
  it (``check.read_once``), then ``decode.probe`` of the bytes read: magic-byte sniff,
  headers, and the check that its data would decode at commit, as cheap as its format
  allows (``media/check.py``). A file that cannot be used keeps its place with a
  ``problem``: the planner decides about it. With the corpus's scan cache
  (``scan_cache.py``), a file whose stat is the one recorded when it was last read is
  taken from there instead, unread.

Nothing here writes to the disk but the scan cache's lines, nor imports Qt. About 800 lines,
over the usual 500: the two phases are one generator sharing the file records, the progress
throttle and the cancel checks, and the walk's pieces are only ever used together.
"""

from __future__ import annotations

import collections
import errno as errno_mod
import os
import stat as stat_mod
import threading
import time
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from pathlib import Path

import orjson

from transcribe_import.engine.base.clock import utc_from_ns
from transcribe_import.engine.base.errors import ErrorCode, Problem, TranscribeError
from transcribe_import.engine.base.progress import drive
from transcribe_import.engine.base.short_calls import sorted_in_slices
from transcribe_import.engine.base.text import (
    Parts,
    display_name,
    folder_parts,
    joined_key,
    name_parts,
    natural_key,
)
from transcribe_import.engine.media import check, decode, lookalike
from transcribe_import.engine.media.kinds import PAGE_FILE_SUFFIXES, MediaInfo, RenderSettings
from transcribe_import.engine.planning import scan_cache
from transcribe_import.engine.planning.scan_progress import ScanPhase, ScanProgress
from transcribe_import.engine.storage import fsio
from transcribe_import.engine.storage.corpus import CORPUS_FILE, CORPUS_FORMAT

# corpus.json is a few hundred bytes: anything much larger is not one.
CORPUS_FILE_MAX = 64 * 1024

# Progress is throttled so 100,000 files do not mean 100,000 GUI updates.
PROGRESS_INTERVAL_S = 0.1
PROGRESS_EVERY_FILES = 500

# Inspection batches: small enough that a cancel is noticed within one file per worker and
# progress moves smoothly, large enough that pool overhead is negligible for tiny files.
_BATCH_FILES = 64
_BATCH_BYTES = 64 * 1024 * 1024
# How long the generator waits for a batch before looking at should_stop() again.
_POLL_S = 0.05

DEFAULT_SETTINGS = RenderSettings()

_SYSTEM_FILES = frozenset({".ds_store", "thumbs.db", "ehthumbs.db", "desktop.ini", "icon\r"})
_SYSTEM_FOLDERS = frozenset({"__macosx", "$recycle.bin", "system volume information"})


# slots: a scan holds one of these per file, 100,000 of them or more.
@dataclass(frozen=True, slots=True)
class FoundFile:
    """A page file as the walk saw it, before anything was read from it."""

    # The path as a str, exactly as the file system spelled it: a Path per file would
    # cost the walk a quarter of its time, so ``path`` builds one only when asked.
    fspath: str
    root: Path
    rel: str  # relative to the root's parent, "/"-separated, NFC
    size: int
    mtime_ns: int
    # The rest of the file's identity (scan_cache.Identity): a file whose identity is what
    # the corpus's scan cache recorded is not read again.
    dev: int = 0
    ino: int = 0
    ctime_ns: int = 0

    @property
    def path(self) -> Path:
        return Path(self.fspath)

    @property
    def identity(self) -> scan_cache.Identity:
        return scan_cache.Identity(self.dev, self.ino, self.size, self.mtime_ns, self.ctime_ns)

    @property
    def name(self) -> str:
        return self.rel.rsplit("/", 1)[-1]


@dataclass(frozen=True, slots=True)
class ScannedFile:
    path: Path  # absolute path as on disk (use it for I/O)
    root: Path  # the root (a folder or a file the user gave) it was found under
    rel: str  # relative to root's parent, "/"-separated, NFC: "box/nb1/p 1.jpg"
    size: int
    mtime: str  # ISO 8601 UTC with Z
    mtime_ns: int
    media_type: str | None  # by magic bytes; None when problem
    page_count: int  # 0 when problem
    captured_at: str | None  # from EXIF
    width: int | None
    height: int | None
    sha256: str | None  # None only if the file could not be read
    problem: Problem | None  # why this page file cannot be used, naming the file
    # Each page's look (media/lookalike.py, hex), None where it could not be made; ()
    # when the file has a problem or was recorded without them (a bag's).
    looks: tuple[str | None, ...] = ()
    dpi: float | None = None  # the resolution the file records (MediaInfo.dpi)

    @property
    def name(self) -> str:
        return self.rel.rsplit("/", 1)[-1]

    @classmethod
    def probed(
        cls,
        path: Path,
        root: Path,
        rel: str,
        size: int,
        mtime_ns: int,
        info: MediaInfo | None,
        sha256: str | None,
        problem: Problem | None = None,
        looks: tuple[str | None, ...] = (),
    ) -> ScannedFile:
        """A page file as the scan records it: what its probe found, nothing when it has a
        problem (a bag's files are recorded the same way, adapters/bag.py)."""
        if problem is not None:
            info = None
        return cls(
            path=path,
            root=root,
            rel=rel,
            size=size,
            mtime=utc_from_ns(mtime_ns),
            mtime_ns=mtime_ns,
            media_type=info.media_type if info else None,
            page_count=info.page_count if info else 0,
            captured_at=info.captured_at if info else None,
            width=info.width if info else None,
            height=info.height if info else None,
            sha256=sha256,
            problem=problem,
            looks=looks if problem is None else (),
            dpi=info.dpi if info else None,
        )


@dataclass(frozen=True, slots=True)
class IgnoredFile:
    path: Path
    rel: str
    reason: str  # plain words: "system file", "not a page file (.txt)", "symbolic link loop"...
    junk: bool  # system junk and hidden entries, which the UI may hide


@dataclass(frozen=True)
class WalkResult:
    roots: tuple[Path, ...]
    files: tuple[FoundFile, ...]  # by root order, then natural order of rel
    ignored: tuple[IgnoredFile, ...]


@dataclass(frozen=True)
class ScanResult:
    roots: tuple[Path, ...]
    files: tuple[ScannedFile, ...]  # by root order, then natural order of rel
    ignored: tuple[IgnoredFile, ...]


class ScanCancelled(Exception):
    """should_stop() turned true: the scan stopped and has no result."""


# -- names -----------------------------------------------------------------------------------


def _junk_reason(name: str, is_dir: bool) -> str | None:
    lowered = name.lower()
    if is_dir:
        if lowered in _SYSTEM_FOLDERS:
            return "system folder"
        if name.startswith("."):
            return "hidden folder"
        return None
    if lowered in _SYSTEM_FILES or name.startswith("._"):
        return "system file"
    if name.startswith("."):
        return "hidden file"
    return None


def _os_reason(exc: OSError) -> str:
    if isinstance(exc, PermissionError):
        return "permission denied"
    return (exc.strerror or str(exc)).lower()


# -- walking ---------------------------------------------------------------------------------


class _Throttle:
    """Decides when a progress event is due: after 100 ms or 500 more files, whichever first."""

    def __init__(self) -> None:
        self.at = time.monotonic()
        self.count = 0

    def due(self, count: int) -> bool:
        now = time.monotonic()
        if now - self.at >= PROGRESS_INTERVAL_S or count - self.count >= PROGRESS_EVERY_FILES:
            self.at, self.count = now, count
            return True
        return False


def _stopped(should_stop: Callable[[], bool] | None) -> None:
    if should_stop is not None and should_stop():
        raise ScanCancelled("the scan was cancelled")


def _check_roots(roots: Sequence[Path]) -> list[tuple[Path, os.stat_result | OSError]]:
    checked: list[tuple[Path, os.stat_result | OSError]] = []
    for given in roots:
        # abspath, not resolve: a root reached through a symbolic link keeps the name the
        # person sees, and rel is built from it.
        root = Path(os.path.abspath(given))
        try:
            checked.append((root, os.stat(root)))
        except (FileNotFoundError, NotADirectoryError) as exc:
            raise TranscribeError(
                ErrorCode.SOURCE_MISSING,
                f"{root}: no such file or folder; check the path (is the drive connected?).",
                path=str(root),
            ) from exc
        except OSError as exc:
            # Reported as an ignored entry: one root we cannot look at must not stop the
            # others from being scanned.
            checked.append((root, exc))
    return checked


@dataclass(frozen=True, slots=True)
class _Folder:
    index: int  # of the root it was found under
    root: Path
    path: str  # as walked (through links, if any)
    rel: str


@dataclass(frozen=True)
class _LinkedFolder:
    folder: _Folder
    st: os.stat_result  # of the target
    parent: str  # the folder holding the link


class _Walker:
    """The state of one walk over all roots."""

    def __init__(self) -> None:
        self.found: list[tuple[int, FoundFile]] = []
        self.ignored: list[IgnoredFile] = []
        # (st_dev, st_ino) of every folder entered -> its path as walked, and its rel.
        self.visited: dict[tuple[int, int], tuple[str, str]] = {}
        # Page files already listed: a file given as a root may also lie in a root folder.
        self.seen_paths: set[str] = set()
        # Links to folders are followed only once every real folder has been walked, so a
        # folder is listed under its own name, not under a link that happened to come first.
        self.links: collections.deque[_LinkedFolder] = collections.deque()

    def ignore(self, path: str, rel: str, reason: str, junk: bool = False) -> None:
        self.ignored.append(IgnoredFile(Path(path), rel, reason, junk))

    def add_file(self, index: int, path: str, root: Path, rel: str, st: os.stat_result) -> None:
        if path in self.seen_paths:
            self.ignore(path, rel, "file already scanned")
            return
        self.seen_paths.add(path)
        found = FoundFile(
            path, root, rel, st.st_size, st.st_mtime_ns, st.st_dev, st.st_ino, st.st_ctime_ns
        )
        self.found.append((index, found))

    def enter(self, path: str, rel: str, st: os.stat_result, parent: str | None) -> bool:
        """Whether the folder is new; if not, say why it is not entered again."""
        key = (st.st_dev, st.st_ino)
        seen = self.visited.get(key)
        if seen is None:
            self.visited[key] = (path, rel)
            return True
        seen_path, seen_rel = seen
        if parent is not None and (parent == seen_path or parent.startswith(seen_path + os.sep)):
            # It is the folder holding the link or one of its ancestors: following it
            # would never end.
            self.ignore(path, rel, "symbolic link loop")
        else:
            self.ignore(path, rel, f"folder already scanned ({seen_rel})")
        return False

    def root_file(self, index: int, root: Path, rel: str, st: os.stat_result) -> None:
        if _suffix(root.name) not in PAGE_FILE_SUFFIXES:
            self.ignore(str(root), rel, _not_page_reason(root.name))
        elif not stat_mod.S_ISREG(st.st_mode):
            self.ignore(str(root), rel, "not a regular file")
        else:
            self.add_file(index, str(root), root, rel, st)

    def list_folder(self, folder: _Folder) -> list[_Folder]:
        """List one folder: record its page files and ignored entries, return its subfolders."""
        subfolders: list[_Folder] = []
        links: list[_LinkedFolder] = []
        try:
            with os.scandir(folder.path) as listing:
                entries = list(listing)
            if any(e.name == CORPUS_FILE for e in entries) and _is_corpus(Path(folder.path)):
                # The app's own data (a data folder inside the folder planned, say): its
                # sources and renders would be planned as new notebooks, imported again.
                self.ignore(folder.path, folder.rel, f"a Transcribe corpus; {_OWN}")
                return []
            for entry in entries:
                self._entry(folder, entry, subfolders, links)
        except OSError as exc:
            # From scandir itself, or the listing failing part way: what was listed stays,
            # the folder is reported.
            self.ignore(folder.path, folder.rel, f"folder cannot be read: {_os_reason(exc)}")
        # By name, so which of two links to one folder is followed does not depend on the
        # order the file system lists them in.
        self.links.extend(sorted(links, key=lambda link: link.folder.path))
        return sorted(subfolders, key=lambda sub: sub.path)

    def _entry(
        self,
        folder: _Folder,
        entry: os.DirEntry[str],
        subfolders: list[_Folder],
        links: list[_LinkedFolder],
    ) -> None:
        name = entry.name
        rel = f"{folder.rel}/{display_name(name)}"
        is_link = False
        try:
            # Free on most file systems (d_type); is_dir follows links, False if broken.
            is_link = entry.is_symlink()
            is_dir = entry.is_dir()
        except OSError as exc:
            reason = _link_reason(exc) if is_link else f"cannot be read: {_os_reason(exc)}"
            self.ignore(entry.path, rel, reason)
            return
        junk = _junk_reason(name, is_dir)
        if junk is not None:
            self.ignore(entry.path, rel, junk, True)
            return
        if not is_dir and _suffix(name) not in PAGE_FILE_SUFFIXES:
            # Decided from the name alone: a non-page file costs no stat (unless a link).
            if is_link and not os.path.exists(entry.path):
                self.ignore(entry.path, rel, _link_reason())
            else:
                self.ignore(entry.path, rel, _not_page_reason(name))
            return
        try:
            st = entry.stat()  # follows links
        except OSError as exc:
            if is_link:
                self.ignore(entry.path, rel, _link_reason(exc))
            else:
                what = "folder" if is_dir else "file"
                self.ignore(entry.path, rel, f"{what} cannot be read: {_os_reason(exc)}")
            return
        if is_dir:
            sub = _Folder(folder.index, folder.root, entry.path, rel)
            if is_link:
                links.append(_LinkedFolder(sub, st, folder.path))
            elif self.enter(entry.path, rel, st, folder.path):
                subfolders.append(sub)
        elif not stat_mod.S_ISREG(st.st_mode):
            # Opening a named pipe or a device would block or read forever.
            self.ignore(entry.path, rel, "not a regular file")
        else:
            self.add_file(folder.index, entry.path, folder.root, rel, st)


def walk(
    roots: Sequence[Path], *, should_stop: Callable[[], bool] | None = None
) -> Generator[ScanProgress, None, WalkResult]:
    """The walking phase of ``scan`` alone: find page files and stat them, read nothing.

    ``scan`` runs it first; on its own it gives a quick count before anything is hashed
    (and it is what bench/bench_scan.py measures as "walk"). Yields throttled
    ``ScanProgress`` (phase WALKING, inspected 0) and returns the ``WalkResult``.
    """
    checked = _check_roots(roots)
    walker = _Walker()
    throttle = _Throttle()

    def walk_tree(top: _Folder) -> Generator[ScanProgress, None, None]:
        # Iterative, depth first: no recursion limit, and memory bounded by the pending
        # subfolders of the open folders rather than by the whole tree.
        stack = [top]
        while stack:
            _stopped(should_stop)
            folder = stack.pop()
            if throttle.due(len(walker.found)):
                yield ScanProgress(ScanPhase.WALKING, len(walker.found), 0, folder.rel)
            # Reversed so subfolders are entered in name order; the result is sorted anyway.
            stack.extend(reversed(walker.list_folder(folder)))

    for index, (root, st) in enumerate(checked):
        _stopped(should_stop)
        root_rel = display_name(root.name or str(root))
        holder = _corpus_holding(root)
        if holder is not None:
            walker.ignore(str(root), root_rel, f"inside the Transcribe corpus {holder}; {_OWN}")
        elif isinstance(st, OSError):
            walker.ignore(str(root), root_rel, f"cannot be read: {_os_reason(st)}")
        elif not stat_mod.S_ISDIR(st.st_mode):
            walker.root_file(index, root, root_rel, st)
        elif walker.enter(str(root), root_rel, st, None):
            yield from walk_tree(_Folder(index, root, str(root), root_rel))
    while walker.links:
        link = walker.links.popleft()
        folder = link.folder
        if walker.enter(folder.path, folder.rel, link.st, link.parent):
            yield from walk_tree(folder)
    yield ScanProgress(ScanPhase.WALKING, len(walker.found), 0, "")
    return WalkResult(
        tuple(root for root, _ in checked),
        _sorted_files(walker.found),
        tuple(sorted_in_slices(walker.ignored, key=lambda f: (natural_key(f.rel), str(f.path)))),
    )


_OWN = "the app's own data, never imported"


def _is_corpus(folder: Path) -> bool:
    """Whether ``folder`` is a corpus: its ``corpus.json`` says so (any corpus, not only ours)."""
    try:
        doc = orjson.loads(fsio.read_bytes(folder / CORPUS_FILE, max_bytes=CORPUS_FILE_MAX))
    except (OSError, orjson.JSONDecodeError):
        return False
    return isinstance(doc, dict) and doc.get("format") == CORPUS_FORMAT


def _corpus_holding(root: Path) -> Path | None:
    """The corpus ``root`` lies inside (not the corpus folder itself: that is listed), if any."""
    for folder in root.parents:
        if _is_corpus(folder):
            return folder
    return None


def _not_page_reason(name: str) -> str:
    archive = _archive_suffix(name)
    if archive:
        # Said as what it is, with what to do: a zipped bag or folder of scans is common.
        return f"an archive ({archive}), not a page file: unpack it, then plan the folder it holds"
    suffix = _suffix(name)
    return f"not a page file ({suffix})" if suffix else "not a page file (no extension)"


# The archives a folder of scans, or a bag, is sent in; the two-part ones first.
_ARCHIVE_SUFFIXES = (
    ".tar.gz",
    ".tar.bz2",
    ".tar.xz",
    ".tar.zst",
    ".zip",
    ".tar",
    ".tgz",
    ".tbz2",
    ".txz",
    ".7z",
    ".rar",
)


def _archive_suffix(name: str) -> str:
    """The archive suffix ``name`` ends with (".tar.gz", ".zip", …), lower case; "" if none."""
    lower = name.lower()
    return next((s for s in _ARCHIVE_SUFFIXES if lower.endswith(s) and len(lower) > len(s)), "")


def _link_reason(exc: OSError | None = None) -> str:
    if exc is not None and exc.errno == errno_mod.ELOOP:
        return "symbolic link loop"
    if exc is None or isinstance(exc, FileNotFoundError | NotADirectoryError):
        return "broken symbolic link"
    return f"file cannot be read: {_os_reason(exc)}"


def _suffix(name: str) -> str:
    # os.path.splitext, minus its care for leading dots (such names are hidden, so
    # ignored before this is asked), at a third of the cost.
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


def _sorted_files(found: list[tuple[int, FoundFile]]) -> tuple[FoundFile, ...]:
    """The files in natural order (``text.natural_key`` of their rel, then their exact path:
    names that differ only in normalisation share a rel), by root first.

    A natural key is a tuple: natsort's key of each part of the path (each folder, the
    name's stem and its extension), then the case-folded rel and the rel itself. Here each
    distinct part's key is made once (a shelf's notebooks share their page names, its pages
    their folder) and ranked among all the distinct ones, and a file's key is bytes that
    sort as its tuple would (``_ranked``): one comparison of bytes where sorting 100,000
    files compared natsort's nested tuples, 0.9 s of the scan's worker holding the GIL a
    slice at a time while the window's thread waited.
    """
    folder_keys: dict[str, Parts] = {}
    name_keys: dict[str, Parts] = {}
    for _, f in found:
        head, _, last = f.rel.rpartition("/")
        if head not in folder_keys:
            folder_keys[head] = folder_parts(head)
        if last not in name_keys:
            name_keys[last] = name_parts(last)
    parts = {part for keys in (folder_keys, name_keys) for key in keys.values() for part in key}
    ranked = sorted_in_slices(parts, key=_itself)
    width = max(1, (len(ranked) + 1).bit_length() + 7) // 8
    rank = {part: (r + 1).to_bytes(width, "big") for r, part in enumerate(ranked)}
    folder_ranks = {k: b"".join(rank[part] for part in key) for k, key in folder_keys.items()}
    name_ranks = {k: b"".join(rank[part] for part in key) for k, key in name_keys.items()}
    end = bytes(width)  # after the parts' ranks, before anything of a longer path's
    # Kept for the slices' sorts: made from them as one dict each, never a key per file twice.
    keys = [_ranked(index, folder_ranks, name_ranks, end, f) for index, f in found]
    del folder_ranks, name_ranks, rank
    # In slices: one sort of 100,000 keys held the GIL for 0.25 s, the window waiting.
    order = sorted_in_slices(range(len(found)), key=keys.__getitem__)
    return tuple(found[i][1] for i in order)


def _ranked(
    index: int, folders: dict[str, bytes], names: dict[str, bytes], end: bytes, f: FoundFile
) -> bytes:
    """``(index, natural_key(f.rel), f.fspath)`` as bytes that sort as the tuple does.

    The root's index, big-endian; each part's rank (``width`` bytes, from 1), then ``end``
    (zeros: a path that is the start of another sorts first, as the shorter tuple does);
    then the case-folded NFC rel, the rel and the path in UTF-8 (whose bytes sort as the
    code points do; lone surrogates, a name's undecodable bytes, too), each ended by a zero
    byte, which no path or name holds (a name that is the start of another sorts first).
    """
    head, _, last = f.rel.rpartition("/")
    _parts, folded, rel = joined_key((), (), f.rel)
    return b"".join(
        (
            index.to_bytes(4, "big"),
            folders[head],
            names[last],
            end,
            folded.encode("utf-8", "surrogatepass"),
            b"\0",
            rel.encode("utf-8", "surrogatepass"),
            b"\0",
            f.fspath.encode("utf-8", "surrogatepass"),
        )
    )


def _itself(part: object) -> object:
    return part


# -- inspecting ------------------------------------------------------------------------------


def _read_problem(exc: OSError, dp: str) -> Problem:
    if isinstance(exc, fsio.FileChanged):
        return Problem(
            ErrorCode.SOURCE_CHANGED,
            f"{dp}: the file changed while it was being scanned (still being copied?); "
            "wait for the copy to finish and scan again.",
            dp,
        )
    if isinstance(exc, FileNotFoundError):
        return Problem(
            ErrorCode.SOURCE_MISSING,
            f"{dp}: the file disappeared after it was found; scan again.",
            dp,
        )
    if isinstance(exc, PermissionError):
        return Problem(
            ErrorCode.SOURCE_UNREADABLE,
            f"{dp}: file cannot be read: permission denied. Allow reading it, or remove it "
            "from the import.",
            dp,
        )
    return fsio.problem_from_oserror(exc, dp, "reading").problem


def _inspect(
    found: FoundFile, settings: RenderSettings, should_stop: Callable[[], bool] | None = None
) -> ScannedFile:
    # The words name the file as a plan's problems do (its rel, problems.file_name); its
    # path on disk is the problem's own field.
    dp = found.rel
    path = found.path
    problem: Problem | None = None
    info: MediaInfo | None = None
    sha: str | None = None
    read: check.FileRead | None = None
    decoded = lookalike.DecodedLooks()  # the check's whole decodes, shrunk for the looks
    try:
        # One read: hashed as it is read, and kept for the probe when small enough.
        # Exactly the size found while walking, or FileChanged: never read past it.
        read = check.read_once(path, size=found.size, should_stop=should_stop)
        sha = read.sha256
    except OSError as exc:
        problem = _read_problem(exc, dp)
    if problem is None:
        try:
            info = decode.probe(
                path,
                settings,
                display_path=dp,
                size=found.size,
                check_data=True,
                data=read.data if read is not None else None,
                decoded=decoded.seen,
            )
        except TranscribeError as exc:
            # media words a vanished or forbidden file as a generic read error; say which.
            cause = exc.__cause__
            if isinstance(cause, FileNotFoundError | PermissionError | fsio.FileChanged):
                problem = _read_problem(cause, dp)
            else:
                problem = exc.problem
    if problem is not None:
        problem = replace(problem, path=found.fspath)
    looks = _looks(info, decoded) if problem is None and info is not None else ()
    return ScannedFile.probed(
        path, found.root, found.rel, found.size, found.mtime_ns, info, sha, problem, looks
    )


def _looks(info: MediaInfo, decoded: lookalike.DecodedLooks) -> tuple[str | None, ...]:
    """Each page's look, for finding rescans (planning/lookalikes.py), where the check's
    decode of the pages whole made it for nothing (PNG, TIFF, WebP, HEIC); () for the rest.
    A JPEG's or a PDF page's look needs a decode of its own (the probe walks a JPEG's
    markers, it does not decode them): the look pass makes those after the plan
    (planning/look_pass.py), so that a plan costs little more than hashing its files."""
    made = decoded.looks(info.page_count, info.orientation)
    return () if made is None else made


def _inspect_batch(
    batch: list[tuple[int, FoundFile]], settings: RenderSettings, stop: threading.Event
) -> list[tuple[int, ScannedFile]]:
    out = []
    for i, found in batch:
        if stop.is_set():
            break
        out.append((i, _inspect(found, settings, stop.is_set)))
    return out


def _batches(
    files: Sequence[tuple[int, FoundFile]], workers: int
) -> Generator[list[tuple[int, FoundFile]], None, None]:
    # At most a quarter of each worker's share of the bytes a batch, so a small shelf of big
    # scans is shared out evenly: with 64 MiB batches, 60 A4 pages (96 MiB) went two thirds
    # to one worker while the other sat idle (bench/bench_scan.py --a4).
    total = sum(f.size for _, f in files)
    most = max(1, min(_BATCH_BYTES, total // (4 * workers)))
    batch: list[tuple[int, FoundFile]] = []
    size = 0
    for i, f in files:
        batch.append((i, f))
        size += f.size
        if len(batch) >= _BATCH_FILES or size >= most:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _from_cache(found: FoundFile, kept: scan_cache.Scanned) -> ScannedFile:
    """The file as its last read found it (its identity unchanged since: scan_cache)."""
    return ScannedFile(
        path=found.path,
        root=found.root,
        rel=found.rel,
        size=found.size,
        mtime=utc_from_ns(found.mtime_ns),
        mtime_ns=found.mtime_ns,
        media_type=kept.media_type,
        page_count=kept.page_count,
        captured_at=kept.captured_at,
        width=kept.width,
        height=kept.height,
        sha256=kept.sha256,
        problem=None,
        looks=kept.looks,
        dpi=kept.dpi,
    )


def _to_keep(found: FoundFile, f: ScannedFile, settings: str) -> scan_cache.Trusted | None:
    """What the scan cache keeps of a file just read: only a usable one (a problem is looked
    at again each time), with the identity the walk saw before the read, so a file
    written while it was read has moved on from it and is read again next time."""
    if f.problem is not None or f.sha256 is None or f.media_type is None or f.page_count < 1:
        return None
    kept = scan_cache.Scanned(
        f.sha256, f.media_type, f.page_count, f.captured_at, f.width, f.height, f.dpi, f.looks
    )
    return scan_cache.Trusted(found.fspath, found.identity, 0, settings, kept)


class _Keeper:
    """The lines a scan gives its cache, appended a few hundred at a time as files are read
    (a scan stopped part way keeps what it read), each recorded at the time it is written:
    the racy rule compares a file's time with that."""

    EVERY = 512

    def __init__(self, cache: scan_cache.ScanCache | None) -> None:
        self.cache = cache
        self.waiting: list[scan_cache.Trusted] = []

    def add(self, entry: scan_cache.Trusted | None) -> None:
        if self.cache is None or entry is None:
            return
        self.waiting.append(entry)
        if len(self.waiting) >= self.EVERY:
            self.flush()

    def flush(self) -> None:
        if self.cache is None or not self.waiting:
            return
        at = scan_cache.now_ns()
        self.cache.add(replace(entry, recorded_ns=at) for entry in self.waiting)
        self.waiting = []


def _trusted(
    files: Sequence[FoundFile], cache: scan_cache.ScanCache | None, settings: str
) -> dict[int, ScannedFile]:
    """The files (by index) the scan cache holds unchanged: taken from it, not read."""
    if cache is None or not files:
        return {}
    kept = cache.read([f.fspath for f in files])
    now = scan_cache.now_ns()
    out: dict[int, ScannedFile] = {}
    for i, f in enumerate(files):
        entry = kept.get(f.fspath)
        if entry is not None and entry.holds(f.identity, settings, now):
            out[i] = _from_cache(f, entry.found)
    return out


def scan(
    roots: Sequence[Path],
    *,
    settings: RenderSettings = DEFAULT_SETTINGS,
    workers: int = 2,
    should_stop: Callable[[], bool] | None = None,
    cache: scan_cache.ScanCache | None = None,
) -> Generator[ScanProgress, None, ScanResult]:
    """Walk ``roots``, then sniff, probe and hash every page file on ``workers`` threads.

    A generator: yields throttled ``ScanProgress`` (plus one at the end of each phase) and
    returns the ``ScanResult`` as ``StopIteration.value`` (``run_scan`` drives it). Raises,
    once iteration starts, ``TranscribeError(SOURCE_MISSING)`` for a root that does not
    exist, and
    ``ScanCancelled`` soon after ``should_stop()`` turns true: it is asked per folder
    while walking and at least every 50 ms while inspecting.

    ``cache``: the corpus's scan cache; a file it holds with the identity the walk just
    saw is taken from it unread (``scan_cache.Trusted.holds``), and each usable file read
    is added to it. None: every file is read.
    """
    walked = yield from walk(roots, should_stop=should_stop)
    files = walked.files
    total = len(files)
    token = scan_cache.settings_token(settings)
    known = _trusted(files, cache, token)
    results: list[ScannedFile | None] = [None] * total
    for i, scanned in known.items():
        results[i] = scanned
    to_read = [(i, f) for i, f in enumerate(files) if i not in known]
    keeper = _Keeper(cache)
    stop = threading.Event()
    throttle = _Throttle()
    inspected = len(known)
    batches = _batches(to_read, max(1, workers))
    executor = ThreadPoolExecutor(max(1, workers), thread_name_prefix="scan")
    pending: set[Future[list[tuple[int, ScannedFile]]]] = set()
    try:
        # A bounded window of batches in flight: memory stays flat for 100,000 files and a
        # cancel has little queued work to discard.
        def refill() -> None:
            while len(pending) < 2 * max(1, workers):
                batch = next(batches, None)
                if batch is None:
                    return
                pending.add(executor.submit(_inspect_batch, batch, settings, stop))

        refill()
        while pending:
            done, _ = wait(pending, timeout=_POLL_S, return_when=FIRST_COMPLETED)
            _stopped(should_stop)
            current = ""
            for future in done:
                pending.discard(future)
                for i, scanned in future.result():
                    results[i] = scanned
                    keeper.add(_to_keep(files[i], scanned, token))
                    inspected += 1
                    current = scanned.rel
            refill()
            if done and throttle.due(inspected):
                yield ScanProgress(ScanPhase.INSPECTING, total, inspected, current)
    finally:
        # Queued batches are dropped and running ones stop after their current file; waiting
        # for them means no read of the user's files outlives the scan.
        stop.set()
        executor.shutdown(wait=True, cancel_futures=True)
        keeper.flush()  # what was read is kept, a scan stopped part way included
    yield ScanProgress(ScanPhase.INSPECTING, total, inspected, "")
    assert all(r is not None for r in results)
    return ScanResult(walked.roots, tuple(r for r in results if r is not None), walked.ignored)


def run_scan(
    roots: Sequence[Path],
    *,
    on_progress: Callable[[ScanProgress], None] | None = None,
    settings: RenderSettings = DEFAULT_SETTINGS,
    workers: int = 2,
    should_stop: Callable[[], bool] | None = None,
    cache: scan_cache.ScanCache | None = None,
) -> ScanResult:
    """Drive ``scan`` to the end, handing each progress event to ``on_progress``."""
    work = scan(roots, settings=settings, workers=workers, should_stop=should_stop, cache=cache)
    return drive(work, on_progress)
