"""What is in a watched folder: its drops, each one's contents as a signature, whether it is whole.

A drop is an entry of the watched folder whose name does not start with a dot (the watch's
own folders, ``.imported``, ``.refused`` and ``.transcribe-watch``, and hidden files are
not drops). It is read by polling with ``os.scandir``, never by change notification:
inotify and its like do not see what another machine writes on an SMB or NFS share.
"""

from __future__ import annotations

import hashlib
import os
import stat as stat_mod
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from transcribe_import.engine.storage import bag_format
from transcribe_import.engine.watch.records import DropKind

# A folder holding this file (at its top) is whole: taken at once, without a settle time.
DONE_MARKER = ".done"


@dataclass(frozen=True)
class Drop:
    """An entry of a watched folder, as a poll found it."""

    folder: Path  # the watched folder, absolute
    name: str
    kind: DropKind

    @property
    def path(self) -> Path:
        return self.folder / self.name


@dataclass(frozen=True)
class Contents:
    """A drop's files as one poll read them: (path in the drop, size, mtime in ns), sorted."""

    files: tuple[tuple[str, int, int], ...]
    signature: str  # sha256 of the listing: any file added, removed, grown or touched changes it

    @property
    def names(self) -> frozenset[str]:
        return frozenset(unicodedata.normalize("NFC", rel) for rel, _, _ in self.files)

    def size_of(self, rel: str) -> int | None:
        wanted = unicodedata.normalize("NFC", rel)
        for name, size, _ in self.files:
            if unicodedata.normalize("NFC", name) == wanted:
                return size
        return None


def list_drops(folder: Path) -> list[Drop]:
    """The drops in ``folder``, by name (OSError when the folder cannot be read: a share
    that went away)."""
    out = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                is_bag = os.path.isfile(os.path.join(entry.path, bag_format.BAGIT_TXT))
                out.append(Drop(folder, entry.name, DropKind.BAG if is_bag else DropKind.FOLDER))
            elif entry.is_file(follow_symlinks=False):
                out.append(Drop(folder, entry.name, DropKind.FILE))
    out.sort(key=lambda d: d.name)
    return out


def read_contents(drop: Drop) -> Contents:
    """Every file under the drop with its size and mtime, links not followed
    (FileNotFoundError when the drop went away while it was read)."""
    files: list[tuple[str, int, int]] = []
    if drop.kind is DropKind.FILE:
        st = os.lstat(drop.path)
        files.append((drop.name, st.st_size, st.st_mtime_ns))
    else:
        _walk(drop.path, "", files)
    files.sort()
    h = hashlib.sha256()
    for rel, size, mtime in files:
        h.update(f"{rel}\0{size}\0{mtime}\n".encode("utf-8", "surrogateescape"))
    return Contents(tuple(files), h.hexdigest())


def _walk(root: Path, prefix: str, out: list[tuple[str, int, int]]) -> None:
    with os.scandir(root / prefix if prefix else root) as entries:
        for entry in entries:
            rel = f"{prefix}{entry.name}"
            st = entry.stat(follow_symlinks=False)
            if stat_mod.S_ISDIR(st.st_mode):
                # A folder's own entry too: an empty folder made, or one removed, is a change.
                out.append((rel + "/", 0, 0))
                _walk(root, rel + "/", out)
            else:
                out.append((rel, st.st_size, st.st_mtime_ns))


def done_marked(contents: Contents) -> bool:
    """Whether the writer said the folder is whole (a ``.done`` file at its top)."""
    return DONE_MARKER in contents.names


def bag_lacks(drop: Drop, contents: Contents) -> str | None:
    """What a bag still lacks before it can be whole, in words (None: nothing).

    Cheap, from the listing and the bag's small text files, never a payload file's bytes:
    ``bagit.txt`` there, no ``EXPORT-INCOMPLETE.txt``, every manifest ending on a whole line,
    every file a manifest lists present, and the payload's count and bytes what
    ``Payload-Oxum`` says. A bag that passes is then verified whole (every hash) by the plan.
    """
    names = contents.names
    if bag_format.INCOMPLETE in names:
        return f"{bag_format.INCOMPLETE} says its export has not finished"
    manifests = sorted(n for n in names if "/" not in n and bag_format.is_manifest_name(n))
    if not any(not n.startswith("tag") for n in manifests):
        return f"no payload manifest ({bag_format.PAYLOAD_MANIFEST}) yet"
    if bag_format.MANIFEST_JSON in names and bag_format.TAG_MANIFEST not in names:
        return f"no {bag_format.TAG_MANIFEST} yet (an export writes one)"
    for name in manifests:
        try:
            text = (drop.path / name).read_bytes()
        except OSError:
            return f"{name} cannot be read yet"
        if text and not text.endswith(b"\n"):
            return f"{name} ends inside a line (still being written)"
        for line in text.decode("utf-8", "replace").splitlines():
            parts = line.split(None, 1)
            rel = bag_format.manifest_path(parts[1].strip()) if len(parts) == 2 else ""
            if rel and rel not in names:
                return f"{rel}, listed in {name}, is not there yet"
    oxum = bag_format.payload_oxum(drop.path)
    if oxum is None:
        return None
    payload = [(rel, size) for rel, size, _ in contents.files if bag_format.is_payload(rel)]
    payload = [(rel, size) for rel, size in payload if not rel.endswith("/")]
    have = (sum(size for _, size in payload), len(payload))
    if have != oxum:
        return (
            f"its payload is {have[1]} files of {have[0]} bytes so far, and bag-info.txt's "
            f"Payload-Oxum says {oxum[1]} of {oxum[0]}"
        )
    return None


def has_oxum(drop: Drop) -> bool:
    """Whether the bag says its payload's size (``Payload-Oxum``): then a bag whose every
    file is there with its size is taken at once; without it, after the settle time."""
    return bag_format.payload_oxum(drop.path) is not None
