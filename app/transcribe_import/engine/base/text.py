"""Text rules shared by every layer: the one natural sort order, display names, JSON-safe text.

The natural order is natsort's (path-aware, numbers by value, case ignored), on the NFC
form of the text, with ties broken by the case-folded NFC text and then the text itself,
so that sorting is total: the result never depends on the order the file system listed
the names in. Scan, the adapters and page ordering all sort with it, so a folder, a
notebook and its pages come out in one order whichever step sorted them.
"""

from __future__ import annotations

import functools
import os
import re
import unicodedata
from pathlib import PurePath
from typing import Any

from natsort import natsort_keygen, ns

# (per path component: natsort's tuple), case-folded NFC text, the text as given.
# natsort types its keys loosely (tuples of comparables); they are compared, never read.
Parts = tuple[Any, ...]
NaturalKey = tuple[Parts, str, str]

# PATH: split at "/" and split off the extension ("p1.jpg" < "p1 back.jpg", and a folder
# before its longer-named siblings: "a/2.jpg" < "a 1/1.jpg").
_path_key = natsort_keygen(alg=ns.PATH | ns.IGNORECASE)
# The key of one folder name: natsort's PATH key is exactly this per component.
_component_key = natsort_keygen(alg=ns.IGNORECASE)


def natural_key(text: str) -> NaturalKey:
    """Sort key of a "/"-separated name: page2 < page10, "Page" ~ "page", NFC ~ NFD."""
    head, _, name = text.rpartition("/")
    if name in ("", ".", ".."):  # a last part PurePath drops or keeps apart: natsort's way
        # natsort compares the NFD form itself, so only the tie-break needs normalising.
        return (_path_key(text), unicodedata.normalize("NFC", text).casefold(), text)
    # natsort's PATH key is the folder's parts and the name's (``joined_key``); a folder's
    # are made once for all its files: natsort's own split costs plan again 0.2 ms a page.
    return joined_key(_folder_parts(head), name_parts(name), text)


@functools.lru_cache(maxsize=4096)
def _folder_parts(folder: str) -> Parts:
    return folder_parts(folder)


def folder_parts(folder: str) -> Parts:
    """The natural-key parts of a "/"-separated folder rel ("" for none).

    For callers that sort many files of few folders: ``joined_key(folder_parts(head),
    name_parts(name), f"{head}/{name}")`` equals ``natural_key(f"{head}/{name}")``, so a
    folder's parts can be computed once for all its files.
    """
    if not folder:
        return ()
    # PurePath splits the way natsort's PATH mode does, so the parts join up exactly.
    return tuple(_component_key(part) for part in PurePath(folder).parts)


# Kept for the last names read: a shelf's notebooks share their names ("page 001.jpg"), and
# one notebook's are sorted more than once (the adapter's order, the proposed order).
@functools.lru_cache(maxsize=8192)
def name_parts(name: str) -> Parts:
    """The natural-key parts of one file name (no "/"), extension split off."""
    stem, _, ext = name.rpartition(".")
    # The usual "stem.ext", split here as natsort's PATH mode would split it (it keeps an
    # extension of at most 4 characters not starting with a digit): natsort's own split
    # goes through PurePath and cost scan 1 s per 100,000 distinct names. Anything else
    # ("a.b.jpg", "x.12", "a:b.jpg" on Windows) takes natsort's way.
    if stem and 0 < len(ext) <= 4 and not ext[0].isdecimal() and not _unusual(stem, ext):
        return (_component_key(stem), _extension_key(ext))
    return _path_key(name)


# A second dot, or a character some PurePath flavour splits at.
_UNUSUAL = re.compile(r"[./\\:]").search


def _unusual(stem: str, ext: str) -> bool:
    return _UNUSUAL(stem) is not None or _UNUSUAL(ext) is not None


@functools.lru_cache(maxsize=256)
def _extension_key(ext: str) -> tuple[Any, ...]:
    return _component_key(f".{ext}")


def joined_key(folder: Parts, name: Parts, text: str) -> NaturalKey:
    """``natural_key(text)`` from the parts of its folder and its name (see ``folder_parts``)."""
    nfc = text if text.isascii() else unicodedata.normalize("NFC", text)
    return (folder + name, nfc.casefold(), text)


def display_name(name: str) -> str:
    """A file-system name as NFC text; undecodable bytes become U+FFFD (path keeps them)."""
    if name.isascii():
        return name
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        # os.fsdecode turned bytes that are not UTF-8 into lone surrogates; they cannot be
        # written as UTF-8 JSON or shown, so rel shows a replacement character instead.
        name = os.fsencode(name).decode("utf-8", errors="replace")
    return unicodedata.normalize("NFC", name)


def json_safe(text: str) -> str:
    """``text`` as valid UTF-8 for a JSON document: undecodable bytes of a file name shown as �."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def json_safe_deep(value: Any) -> Any:
    """``value`` with every string in it (keys too) made ``json_safe``; tuples become lists."""
    if isinstance(value, str):
        return json_safe(value)
    if isinstance(value, dict):
        return {json_safe(str(k)): json_safe_deep(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe_deep(v) for v in value]
    return value


# Bidirectional embeddings, overrides and isolates, and the marks: invisible, and able to
# make "gpj.exe" read as "exe.jpg" on a terminal.
_BIDI = frozenset({0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)})


def for_terminal(text: str) -> str:
    """``text`` safe to print on one terminal line: every control visible, nothing obeyed.

    C0 controls (newline, tab and escape included) become their Control Pictures
    (``\\x1b`` shows as ``␛``, a newline as ``␤``), DEL ``␡``, and C1 controls and
    bidirectional formatting characters ``⟨U+202E⟩``: a file name can neither move the
    cursor, retitle the terminal, clear the screen, forge an output line nor reverse
    its text. Everything else, any script, is kept as it is.
    """
    if text.isascii() and text.isprintable():
        return text
    out = []
    for ch in text:
        code = ord(ch)
        if code < 0x20:
            out.append("\u2424" if ch == "\n" else chr(0x2400 + code))
        elif code == 0x7F:
            out.append("\u2421")
        elif 0x80 <= code < 0xA0 or code in _BIDI:
            out.append(f"\u27e8U+{code:04X}\u27e9")
        else:
            out.append(ch)
    return "".join(out)


def counted(n: int, noun: str, nouns: str = "") -> str:
    """``n`` and its noun as English says them: "1 page", "2 pages", never "page(s)".

    ``nouns`` where the plural is not the noun and an s ("1 copy", "2 copies").
    """
    return f"{n} {noun}" if n == 1 else f"{n} {nouns or noun + 's'}"


def agreeing(n: int, one: str, many: str) -> str:
    """The word of a sentence that agrees with a count of ``n``: ``one`` ("is") or ``many``."""
    return one if n == 1 else many


# The most characters a title takes in a listing line (``notebooks``, ``trash``): a title of a
# million characters must not pad every row of the listing to its width.
SHOWN_TITLE_LIMIT = 60


def shown_within(text: str, limit: int = SHOWN_TITLE_LIMIT) -> str:
    """``text`` as shown in a bounded place: itself when it fits in ``limit`` characters,
    else its start and its end with an ellipsis in the middle (both ends tell titles apart)."""
    if len(text) <= limit:
        return text
    head = (limit - 1) // 2 + (limit - 1) % 2
    tail = limit - 1 - head
    return f"{text[:head]}…{text[len(text) - tail :]}" if tail else f"{text[:head]}…"


def quoted_title(title: object) -> str:
    """A notebook's title as a sentence names it: in quotes, within ``SHOWN_TITLE_LIMIT``
    characters (a title of a million characters makes a line of 60, not of a megabyte).
    Any value is said as ``str`` says it, as the f-strings before this did."""
    return f"“{shown_within(str(title))}”"
