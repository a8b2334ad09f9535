"""BagIt bags in one place: the export bag's names, manifests, chain hash; the one check of a bag.

A Transcribe export is a BagIt bag (RFC 8493) with a ``MANIFEST.json`` of its own
(docs/formats.md, "The export bag"). The export writes it with these names,
``manifest_lines`` and ``chain_hash``; the import (``plan --mode bag``) and the tests read it
back through ``verify_bag``, the one check of a bag. Any other valid bag (BagIt 1.0 or
0.97, made by Bagger, DART, bagit-python...) is checked by the same function against its
own manifests, whatever algorithms they use; only an export's own ``MANIFEST.json`` rules
are skipped for it. It sits in storage, below both planning (the import) and export,
because it is an on-disk format and neither side may import the other.

A bag is untrusted input. ``verify_bag``:

* walks it without following anything: a symbolic link, a device, a pipe or a socket
  anywhere in it refuses the bag, and so do two names that are equal in NFC;
* refuses a folder holding ``EXPORT-INCOMPLETE.txt``, with or without ``bagit.txt``: an
  export that did not end saying it finished;
* refuses a holey bag (a ``fetch.txt`` listing files to download);
* reads every manifest line by line, never more lines than the bag has files to list (so
  a manifest of a billion lines is refused after a few, not read into memory), and
  parses each strictly: a path that is absolute, holds ``..``, ``.``, an empty part, a
  backslash or a drive letter refuses the bag before any file is opened;
* checks every tag file against the tag manifests (so a manifest edited or cut short is
  seen); for an export, that ``MANIFEST.json`` says it is complete and agrees with
  ``manifest-sha256.txt`` and its chain hash; then that the payload and every payload
  manifest list exactly the same files (names compared in NFC), then every payload
  file's hash against every payload manifest. The sha256 of each payload file is taken
  from the same bytes, so what a plan records is what the bag's manifests vouched for.

Each refusal is a ``TranscribeError`` with a ``bag_*`` code naming the file and what to do;
the first one found ends the check. Paths from a manifest are only ever looked up among
the files the walk found, never opened as given, so nothing outside the bag is read.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat as stat_mod
import unicodedata
from collections.abc import Callable, Generator, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import orjson

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.text import counted, display_name, json_safe
from transcribe_import.engine.storage import fsio

# The bag's own files (docs/formats.md, "The export bag").
BAGIT_TXT = "bagit.txt"
BAG_INFO = "bag-info.txt"
PAYLOAD_MANIFEST = "manifest-sha256.txt"
TAG_MANIFEST = "tagmanifest-sha256.txt"
FETCH = "fetch.txt"
MANIFEST_JSON = "MANIFEST.json"  # the export's own tag file
README = "README.md"
DATA = "data"  # the payload folder: every payload path starts "data/"
NOTEBOOKS = f"{DATA}/notebooks"  # each notebook's folder: data/notebooks/<notebook_id>
# What an export writes beside the bag while it works: the marker says it is unfinished.
INCOMPLETE = "EXPORT-INCOMPLETE.txt"
LOCK_FILE = ".export.lock"
# What an export killed after removing its note (its last step but one) leaves beside a whole
# bag: a free lock file. The note itself refuses the bag (``_refuse_unfinished_export``).
EXPORT_LEFTOVERS = frozenset({LOCK_FILE})

EXPORT_FORMAT = "transcribe.export"
EXPORT_SCHEMA = 1
BAGIT_DECLARATION = b"BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n"
BAGIT_VERSIONS = frozenset({"0.97", "1.0"})  # the versions a bag may declare to be read
# Algorithms a manifest may use (manifest-<alg>.txt): the ones hashlib always has.
ALGORITHMS: dict[str, int] = {"sha256": 64, "sha512": 128, "sha1": 40, "md5": 32}

# A manifest line: a digest, white space, a path. Longer than any path a file system allows.
_MAX_LINE = 64 * 1024
# Lines (blank, or listing what is not there) a manifest may hold beyond one per file it may
# list, before it is refused unread: past that it is not a damaged list but a flood.
_SLACK_LINES = 64
_LINE = re.compile(r"([0-9A-Fa-f]+)[ \t]+(.+)")
_MANIFEST_NAME = re.compile(r"(tag)?manifest-([a-z0-9]+)\.txt")
_DRIVE = re.compile(r"[A-Za-z]:")


def is_payload(rel: str) -> bool:
    """Whether a bag path is in the payload (under ``data/``) rather than a tag file."""
    return rel.startswith(DATA + "/")


def notebook_folder(notebook_id: str) -> str:
    """A notebook's folder in the bag, as the export writes it and the import reads it."""
    return f"{NOTEBOOKS}/{notebook_id}"


def chain_hash(files: Iterable[tuple[str, str]]) -> str:
    """The chain hash of (bag path, sha256 hex) pairs, as docs/formats.md defines it.

    h0 = sha256(b""); h_i = sha256(h_{i-1} || utf8(path) || 0x00 || ascii(hex)), raw
    32-byte digests chained, pairs sorted by path as UTF-8 bytes; the result in hex.
    """
    h = hashlib.sha256(b"").digest()
    for path, digest in sorted(files, key=lambda pair: pair[0].encode("utf-8")):
        h = hashlib.sha256(h + path.encode("utf-8") + b"\0" + digest.encode("ascii")).digest()
    return h.hex()


def manifest_lines(entries: Mapping[str, str]) -> bytes:
    """A BagIt manifest: ``<sha256>  <path>`` per entry, sorted by path as UTF-8 bytes."""
    names = sorted(entries, key=lambda name: name.encode("utf-8"))
    return "".join(f"{entries[name]}  {name}\n" for name in names).encode("utf-8")


# -- values ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BagFile:
    """One plain file found in the bag: its NFC name in the bag and where it is on disk."""

    rel: str  # "/"-separated, relative to the bag, NFC: "data/notebooks/<id>/project.json"
    path: Path
    size: int
    mtime_ns: int


@dataclass(frozen=True)
class BagProgress:
    """How far a bag's check is: ``checked`` of its ``total`` payload files hashed.

    The first event (``total`` 0) comes as the walk begins; ``current`` is the bag's name,
    then the last payload file hashed, as "<bag>/<path in the bag>".
    """

    total: int
    checked: int
    current: str


@dataclass(frozen=True)
class VerifiedBag:
    """A bag whose every file was checked against its manifests."""

    root: Path
    payload: dict[str, BagFile]  # under data/, by rel
    sha256: dict[str, str]  # payload rel -> its sha256, of the bytes the manifests vouched for
    info: dict[str, str]  # bag-info.txt, first value of each label
    exported: bool = True  # a Transcribe export (it has MANIFEST.json); else any other bag

    @property
    def name(self) -> str:
        return display_name(self.root.name or str(self.root))

    def shown(self, rel: str) -> str:
        return f"{self.root}/{rel}"


# -- errors ----------------------------------------------------------------------------------


def bag_error(code: ErrorCode, where: str, what: str) -> TranscribeError:
    """A refusal of the bag: its code, the file, what is wrong and what to do."""
    # The code in the words too: the CLI prints only the message, and an archivist quotes it.
    return TranscribeError(
        code, f"{where}: {what} Nothing was planned from this bag (code {code}).", path=where
    )


def _unsafe(where: str, what: str) -> TranscribeError:
    return bag_error(ErrorCode.BAG_UNSAFE_PATH, where, what)


def _invalid(where: str, what: str) -> TranscribeError:
    return bag_error(ErrorCode.BAG_INVALID, where, what)


# -- walking ---------------------------------------------------------------------------------


def _walk(root: Path) -> dict[str, BagFile]:
    """Every plain file in the bag by NFC rel; anything that is not a plain file or folder
    refuses the bag. Nothing is followed, so everything found is under ``root``."""
    real_root = os.path.realpath(root)
    found: dict[str, BagFile] = {}
    stack: list[tuple[str, str]] = [(str(root), "")]
    while stack:
        folder, rel = stack.pop()
        # Belt and braces: with links refused no folder can resolve elsewhere, but a bag
        # on a strange mount must not be read through a path we did not expect.
        real = os.path.realpath(folder)
        if real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep):
            raise _unsafe(folder, "resolves outside the bag; a bag must be one folder tree.")
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            raise bag_error(
                ErrorCode.SOURCE_UNREADABLE,
                folder,
                f"cannot be read ({exc.strerror or exc}); allow reading it.",
            ) from exc
        for entry in entries:
            name_rel = f"{rel}{entry.name}"
            nfc = unicodedata.normalize("NFC", json_safe(name_rel))
            shown = f"{root}/{json_safe(name_rel)}"
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError as exc:
                raise bag_error(
                    ErrorCode.SOURCE_UNREADABLE, shown, f"cannot be read ({exc.strerror or exc})."
                ) from exc
            if stat_mod.S_ISLNK(st.st_mode) or _is_reparse_point(st):
                raise _unsafe(
                    shown,
                    "is a symbolic link; a bag holds only plain files and folders. Replace it "
                    "by what it points to, or export the bag again.",
                )
            if stat_mod.S_ISDIR(st.st_mode):
                stack.append((entry.path, name_rel + "/"))
            elif stat_mod.S_ISREG(st.st_mode):
                if nfc in found:
                    raise _unsafe(
                        shown,
                        f"has the same name as {found[nfc].path} once both are normalised "
                        "(NFC); rename one of them.",
                    )
                found[nfc] = BagFile(nfc, Path(entry.path), st.st_size, st.st_mtime_ns)
            else:
                raise _unsafe(
                    shown,
                    "is not a plain file (a device, a pipe or a socket); remove it from the bag.",
                )
    return found


def _is_reparse_point(st: os.stat_result) -> bool:
    # Windows junctions are not symbolic links to stat, but are followed all the same.
    attributes = getattr(st, "st_file_attributes", 0)
    return bool(attributes & getattr(stat_mod, "FILE_ATTRIBUTE_REPARSE_POINT", 0))


# -- tag files -------------------------------------------------------------------------------


def _text(data: bytes, where: str) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        raise _invalid(where, "starts with a byte-order mark, which a bag's tag files must not.")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise _invalid(where, "is not UTF-8 text.") from None


def _labels(text: str) -> list[tuple[str, str]]:
    """``Label: value`` lines, a line starting with white space continuing the last value."""
    out: list[tuple[str, str]] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        if line[0] in " \t" and out:
            out[-1] = (out[-1][0], f"{out[-1][1]} {line.strip()}")
        elif ":" in line:
            label, _, value = line.partition(":")
            out.append((label.strip(), value.strip()))
        else:
            out.append((line.strip(), ""))
    return out


def _check_declaration(root: Path, files: Mapping[str, BagFile]) -> None:
    where = f"{root}/{BAGIT_TXT}"
    if INCOMPLETE in files:
        _refuse_unfinished_export(root, BAGIT_TXT in files)
    if BAGIT_TXT not in files:
        raise _invalid(
            str(root),
            f"is not a bag: it has no {BAGIT_TXT}. Give the folder that holds bagit.txt, "
            "data/ and manifest-sha256.txt.",
        )
    labels = dict(_labels(_text(_read(files[BAGIT_TXT]), where)))
    version = labels.get("BagIt-Version")
    if version not in BAGIT_VERSIONS:
        raise _invalid(where, f"declares BagIt-Version {version!r}; only 0.97 and 1.0 are read.")
    if (labels.get("Tag-File-Character-Encoding") or "").upper() != "UTF-8":
        raise _invalid(where, "does not declare Tag-File-Character-Encoding: UTF-8.")
    if FETCH in files:
        first = next(_lines(files[FETCH], f"{root}/{FETCH}", 1), None)
        if first is not None:
            raise bag_error(
                ErrorCode.BAG_MISSING_FILE,
                f"{root}/{FETCH}",
                f"lists files to download (line {first[0]}: {first[1][:200]!r}): the bag is "
                "holey, and a bag is imported only when it holds all its files. Fetch them "
                "first (bagit.py --fetch, or the tool that made the bag), then import it.",
            )


def _refuse_unfinished_export(root: Path, declared: bool) -> None:
    """A bag beside the note of an export that did not say it finished is never taken.

    Without ``bagit.txt`` the export was cut short before its commit point. With it, the
    export failed or was killed after it (or is still running): its bytes may all be there,
    but the export did not end saying so (a failure after ``bagit.txt`` exits 1), and the
    import takes only what its export vouched for. An export that ended with exit 0 and could
    not remove the note warned so: deleting the note is then the person's call.
    """
    if not declared:
        raise _invalid(
            f"{root}/{INCOMPLETE}",
            f"is here and {BAGIT_TXT} is not: this export did not finish (it was cancelled, failed "
            "or killed), so it is not a whole bag. Export the notebooks again.",
        )
    raise _invalid(
        f"{root}/{INCOMPLETE}",
        f"is here beside {BAGIT_TXT}: the export that wrote this bag did not end saying it "
        "finished (it failed, was killed after writing bagit.txt, or is still running), so the "
        "bag is not taken as whole. Export the notebooks again into a new folder; or, only if "
        f"that export ended with exit 0 and warned that it could not remove {INCOMPLETE}, "
        "delete that file and plan the bag again.",
    )


def _is_tag_manifest(rel: str) -> bool:
    m = _MANIFEST_NAME.fullmatch(rel)
    return m is not None and bool(m[1])


def _decode_path(raw: str) -> str:
    # RFC 8493 percent-encodes only these three in manifest paths.
    return re.sub(
        "%(0[Aa]|0[Dd]|25)", lambda m: {"0a": "\n", "0d": "\r", "25": "%"}[m[1].lower()], raw
    )


def _safe_rel(raw: str, where: str, number: int) -> str:
    """A manifest path as an NFC rel, or a refusal: nothing in it may leave the bag."""
    shown = f"{where} line {number}"
    if not raw or "\x00" in raw:
        raise _invalid(shown, "has an empty path (the manifest is damaged or cut short).")
    if raw.startswith("/") or _DRIVE.match(raw):
        raise _unsafe(shown, f"names an absolute path ({raw!r}); a bag lists paths inside it.")
    if "\\" in raw:
        raise _unsafe(shown, f"names {raw!r}, with a backslash; a bag separates names with /.")
    if any(part in ("", ".", "..") for part in raw.split("/")):
        raise _unsafe(
            shown,
            f"names {raw!r}, which holds '..', '.' or an empty part; a bag's paths must stay "
            "inside it.",
        )
    return unicodedata.normalize("NFC", raw)


def _lines(f: BagFile, where: str, most: int) -> Generator[tuple[int, str, bool], None, None]:
    """The non-blank lines of a tag file, numbered, read one at a time, and whether each
    ends with a line end (the last line of a file cut short does not).

    Far more than ``most`` lines refuse the file as soon as they are met, so a huge or
    endless manifest is never read whole; a few more (a line too many) are left for the
    checks of their content to name.
    """
    number = blank = listed = 0
    try:
        with fsio.open_read(f.path, size=f.size, follow_links=False) as fp:
            while raw := fp.readline(_MAX_LINE + 1):
                number += 1
                if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                    raise _invalid(
                        where, "starts with a byte-order mark, which a bag's tag files must not."
                    )
                if len(raw) > _MAX_LINE:
                    raise _invalid(f"{where} line {number}", "is longer than any path can be.")
                try:
                    line = raw.decode("utf-8").rstrip("\r\n")
                except UnicodeDecodeError:
                    raise _invalid(f"{where} line {number}", "is not UTF-8 text.") from None
                if not line.strip():
                    blank += 1
                    if blank > most + _SLACK_LINES:
                        raise _invalid(where, "holds far more blank lines than files.")
                    continue
                listed += 1
                if listed > most + _SLACK_LINES:
                    raise _invalid(
                        where,
                        f"has more than {most + _SLACK_LINES} lines, and the bag holds only "
                        f"{counted(most, 'file')} it could list: it is damaged or not this bag's.",
                    )
                yield number, line, raw.endswith(b"\n")
    except OSError as exc:
        raise fsio.problem_from_oserror(exc, f.path, "reading") from exc


def _parse_manifest(bag: Path, f: BagFile, algorithm: str, most: int) -> dict[str, str]:
    """rel -> hex digest, every path checked before any file is looked at; at most ``most``
    entries (the files of the bag it may list)."""
    where = f"{bag}/{f.rel}"
    width = ALGORITHMS[algorithm]
    out: dict[str, str] = {}
    for number, line, ended in _lines(f, where, most):
        m = _LINE.fullmatch(line)
        if m is None or len(m[1]) != width:
            why = "" if ended else "ends in the middle of a line: it was cut short"
            raise _invalid(
                f"{where} line {number}",
                (why or f"is not '<{algorithm}> <path>'")
                + "; make the bag again or restore it from a copy.",
            )
        rel = _safe_rel(_decode_path(m[2]), where, number)
        if rel in out:
            raise _invalid(f"{where} line {number}", f"lists {rel} a second time.")
        out[rel] = m[1].lower()
    return out


def _read(f: BagFile) -> bytes:
    """A bag's file as it was found: a plain file (never a link) of the size found."""
    try:
        return fsio.read_bytes(f.path, size=f.size, follow_links=False)
    except OSError as exc:
        raise fsio.problem_from_oserror(exc, f.path, "reading") from exc


def _digests(bf: BagFile, algorithms: Iterable[str]) -> dict[str, str]:
    hashes = {a: hashlib.new(a) for a in algorithms}
    try:
        with fsio.open_read(bf.path, size=bf.size, follow_links=False) as f:
            while chunk := f.read(fsio.CHUNK):
                for h in hashes.values():
                    h.update(chunk)
    except OSError as exc:
        raise fsio.problem_from_oserror(exc, bf.path, "reading") from exc
    return {a: h.hexdigest() for a, h in hashes.items()}


def _mismatch(shown: str, manifest: str) -> TranscribeError:
    return bag_error(
        ErrorCode.BAG_HASH_MISMATCH,
        shown,
        f"does not match {manifest} (it was changed, damaged or cut short after the bag was "
        "made). Restore the bag from a copy, or make (or export) it again.",
    )


# -- verifying -------------------------------------------------------------------------------


def _refuse_listed(
    root: Path,
    kind: str,
    manifests: Mapping[str, Mapping[str, str]],
    wrong: Callable[[str], bool],
    why: str,
) -> None:
    """Refuse a ``{kind}-{algorithm}.txt`` that lists a file it must not (``wrong``)."""
    for algorithm, listed in manifests.items():
        found = sorted(rel for rel in listed if wrong(rel))
        if found:
            raise _invalid(f"{root}/{kind}-{algorithm}.txt", f"lists {found[0]}{why}")


def verify_bag(root: Path) -> Generator[BagProgress, None, VerifiedBag]:
    """Check the whole bag at ``root`` against its manifests, yielding progress.

    Raises ``TranscribeError`` (a ``bag_*`` code, naming the file) at the first problem.
    A caller that stops reading the events stops the check: one comes before any file is
    read and one after each payload file is hashed.
    """
    root = Path(os.path.abspath(root))
    if not root.is_dir():
        if not root.exists():
            raise TranscribeError(
                ErrorCode.SOURCE_MISSING,
                f"{root}: no such folder; check the path (is the drive connected?).",
                path=str(root),
            )
        raise _invalid(str(root), "is not a folder; a bag is a folder holding bagit.txt.")
    yield BagProgress(0, 0, root.name)
    files = _walk(root)
    _check_declaration(root, files)

    exported = MANIFEST_JSON in files
    payload = {rel: f for rel, f in files.items() if is_payload(rel)}
    manifests: dict[str, dict[str, str]] = {}  # algorithm -> payload manifest
    tag_manifests: dict[str, dict[str, str]] = {}
    for rel in sorted(files):
        m = _MANIFEST_NAME.fullmatch(rel)
        if m is None:
            continue
        if m[2] not in ALGORITHMS:
            raise _invalid(
                f"{root}/{rel}",
                f"uses the algorithm {m[2]!r}; only {', '.join(ALGORITHMS)} are read.",
            )
        # Each manifest may list each file it is about once: no more lines than that.
        most = len(files) - len(payload) if m[1] else len(payload)
        parsed = _parse_manifest(root, files[rel], m[2], most)
        (tag_manifests if m[1] else manifests)[m[2]] = parsed
    if not manifests:
        raise _invalid(
            str(root),
            "has no payload manifest (manifest-sha256.txt, -sha512, -sha1 or -md5), the list "
            "of its files and hashes.",
        )
    if exported and "sha256" not in manifests:
        raise _invalid(str(root), f"has no {PAYLOAD_MANIFEST}, the list of its files and hashes.")
    if exported and "sha256" not in tag_manifests:
        raise _invalid(
            str(root),
            f"has no {TAG_MANIFEST}, without which a changed manifest cannot be told from the "
            "real one. Export the bag again.",
        )
    _refuse_listed(
        root,
        "manifest",
        manifests,
        lambda rel: not is_payload(rel),
        ", which is not under data/; a payload manifest lists only the payload.",
    )
    _refuse_listed(
        root,
        "tagmanifest",
        tag_manifests,
        lambda rel: is_payload(rel) or _is_tag_manifest(rel),
        "; a tag manifest lists only tag files (not the payload, not tag manifests).",
    )

    # Tag files first: a manifest edited or cut short is caught here, before it is trusted.
    for algorithm, listed in tag_manifests.items():
        name = f"tagmanifest-{algorithm}.txt"
        for rel, digest in listed.items():
            if rel not in files:
                raise bag_error(
                    ErrorCode.BAG_MISSING_FILE,
                    f"{root}/{rel}",
                    f"is listed in {name} but is not in the bag; restore the bag from a copy "
                    "or make it again.",
                )
            if _digests(files[rel], [algorithm])[algorithm] != digest:
                raise _mismatch(f"{root}/{rel}", name)
    vouched = set().union(*tag_manifests.values())
    for algorithm in manifests:
        if tag_manifests and f"manifest-{algorithm}.txt" not in vouched:
            tags = (
                TAG_MANIFEST
                if "sha256" in tag_manifests
                else f"tagmanifest-{min(tag_manifests)}.txt"
            )
            raise _invalid(
                f"{root}/{tags}",
                f"does not list manifest-{algorithm}.txt, so a change to it could not be seen; "
                "make the bag again.",
            )
    if exported:
        _check_export(root, files, manifests["sha256"], tag_manifests["sha256"])
    _check_listed(root, files, manifests, vouched if exported else None)
    info = _bag_info(root, files)
    _check_oxum(root, info, payload)

    sha256: dict[str, str] = {}
    total = len(payload)
    for done, rel in enumerate(sorted(payload), 1):
        wanted = {a: listed[rel] for a, listed in manifests.items()}
        # sha256 from the same read: the hash a plan records is of the bytes checked here.
        got = _digests(payload[rel], {*wanted, "sha256"})
        for algorithm, digest in wanted.items():
            if got[algorithm] != digest:
                raise _mismatch(f"{root}/{rel}", f"manifest-{algorithm}.txt")
        sha256[rel] = got["sha256"]
        yield BagProgress(total, done, f"{root.name}/{rel}")
    return VerifiedBag(root, payload, sha256, info, exported)


def _check_listed(
    root: Path,
    files: Mapping[str, BagFile],
    manifests: Mapping[str, dict[str, str]],
    listed_tags: set[str] | None,
) -> None:
    """The payload manifests and the bag list exactly the same files; for an export
    (``listed_tags`` given), no tag file is outside its tag manifest either. Another
    bag may hold tag files no tag manifest lists (RFC 8493 allows it): none is imported."""
    for algorithm, listed in manifests.items():
        name = f"manifest-{algorithm}.txt"
        missing = sorted(rel for rel in listed if rel not in files)
        if missing:
            more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
            raise bag_error(
                ErrorCode.BAG_MISSING_FILE,
                f"{root}/{missing[0]}",
                f"is listed in {name} but is not in the bag{more}; the bag is incomplete. "
                "Copy it again, or make it again.",
            )
    first = min(manifests, key=lambda a: (a != "sha256", a))
    listed_payload = manifests[first]
    extra = sorted(
        rel
        for rel in files
        if not (
            rel in listed_payload
            or (listed_tags is None and not is_payload(rel))
            or (listed_tags is not None and rel in listed_tags)
            or _is_tag_manifest(rel)
            or rel in EXPORT_LEFTOVERS
        )
    )
    if extra:
        more = f" (and {len(extra) - 1} more)" if len(extra) > 1 else ""
        where = f"manifest-{first}.txt" if is_payload(extra[0]) else TAG_MANIFEST
        raise bag_error(
            ErrorCode.BAG_UNLISTED_FILE,
            f"{root}/{extra[0]}",
            f"is in the bag but not listed in {where}{more}, so nothing vouches for it. "
            "Remove it, or make the bag again.",
        )
    for algorithm, listed in manifests.items():
        if set(listed) != set(listed_payload):
            raise _invalid(
                f"{root}/manifest-{algorithm}.txt",
                f"does not list the same files as manifest-{first}.txt; make the bag again.",
            )


def _check_export(
    root: Path,
    files: Mapping[str, BagFile],
    payload_manifest: Mapping[str, str],
    tag_manifest: Mapping[str, str],
) -> None:
    """MANIFEST.json says the export is complete, and agrees with manifest-sha256.txt.

    The export's contract (docs/formats.md, "The export bag") makes a bag importable only
    then: a partial export is a valid bag structure whose manifest names files it lacks.
    """
    where = f"{root}/{MANIFEST_JSON}"
    if MANIFEST_JSON not in tag_manifest:
        # Its MANIFEST.json makes it an export (and asks for the export's checks), but
        # nothing vouches for that file: not trusted either way.
        raise _invalid(
            where,
            f"is not listed in {TAG_MANIFEST}, so this export's own manifest cannot be "
            "trusted. Export the bag again.",
        )
    try:
        doc = orjson.loads(_read(files[MANIFEST_JSON]))
    except orjson.JSONDecodeError as exc:
        raise _invalid(where, f"is not valid JSON ({exc}).") from None
    if not isinstance(doc, dict) or doc.get("format") != EXPORT_FORMAT:
        raise _invalid(where, f"is not a Transcribe export manifest ({EXPORT_FORMAT}).")
    if doc.get("schema_version") != EXPORT_SCHEMA:
        raise _invalid(
            where,
            f"has schema_version {doc.get('schema_version')!r}; this app reads version 1.",
        )
    missing = doc.get("missing")
    if doc.get("status") != "complete" or missing:
        first = missing[0] if isinstance(missing, list) and missing else {}
        named = first.get("path") if isinstance(first, dict) else None
        why = first.get("message") if isinstance(first, dict) else None
        raise bag_error(
            ErrorCode.BAG_MISSING_FILE,
            f"{root}/{named}" if isinstance(named, str) else where,
            f"is missing from this partial export ({why or 'see ' + MANIFEST_JSON}); repair "
            "the corpus it came from and export again.",
        )
    listed = doc.get("files")
    if not isinstance(listed, dict) or listed != dict(payload_manifest):
        raise _invalid(
            where,
            f"does not list the same files and hashes as {PAYLOAD_MANIFEST}; export the bag again.",
        )
    if doc.get("chain_hash") != chain_hash(listed.items()):
        raise _invalid(where, "has a chain_hash that does not match its files; export again.")


def _bag_info(root: Path, files: Mapping[str, BagFile]) -> dict[str, str]:
    if BAG_INFO not in files:
        return {}
    info: dict[str, str] = {}
    for label, value in _labels(_text(_read(files[BAG_INFO]), str(root))):
        info.setdefault(label, value)
    return info


def _check_oxum(root: Path, info: Mapping[str, str], payload: Mapping[str, BagFile]) -> None:
    oxum = info.get("Payload-Oxum")
    if not oxum:
        return
    octets, _, count = oxum.partition(".")
    size = sum(f.size for f in payload.values())
    if not (octets.isdigit() and count.isdigit()):
        raise _invalid(f"{root}/{BAG_INFO}", f"has a malformed Payload-Oxum {oxum!r}.")
    if (int(octets), int(count)) != (size, len(payload)):
        raise bag_error(
            ErrorCode.BAG_MISSING_FILE,
            f"{root}/{BAG_INFO}",
            f"says the payload is {counted(int(count), 'file')} of {octets} bytes, but the bag "
            f"holds {len(payload)} of {size}; it was cut short or added to. Export the bag again.",
        )


# -- a bag being written (engine/watch): what its listing lacks, before it is verified ----------


def is_manifest_name(name: str) -> bool:
    """Whether a file at a bag's top is a payload or tag manifest (any algorithm)."""
    return _MANIFEST_NAME.fullmatch(name) is not None


def manifest_path(raw: str) -> str:
    """A manifest line's path as the bag's listing names it (decoded, NFC); ``verify_bag``
    alone judges whether it is safe."""
    return unicodedata.normalize("NFC", _decode_path(raw))


def payload_oxum(root: Path) -> tuple[int, int] | None:
    """The payload's bytes and file count ``bag-info.txt`` declares (``Payload-Oxum``); None
    when there is no such file or line, or it cannot be read or parsed yet."""
    try:
        data = (root / BAG_INFO).read_bytes()
        labels = _labels(_text(data, str(root)))
    except (OSError, TranscribeError):
        return None
    for label, value in labels:
        if label == "Payload-Oxum":
            octets, _, count = value.partition(".")
            if octets.isdigit() and count.isdigit():
                return int(octets), int(count)
            return None
    return None
