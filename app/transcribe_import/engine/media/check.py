"""The scan's checks of a page file's data, as cheap as each format allows, from one read.

``read_once`` reads a file once, hashes it, and keeps its bytes when they are few
enough, so the probe that follows reads memory, not the disk a second time.
``check_not_truncated`` (every probe) refuses a file cut short from its tail alone;
``check_data`` (the scan's probe) refuses a file whose data would fail at commit.

A JPEG is not decoded: libjpeg decodes damaged entropy-coded data anyway (grey blocks,
a warning), so what refuses a JPEG at commit is its headers (which Pillow parses), a
marker or table libjpeg refuses, or a scan that is missing or cut off; walking its
markers (``_walk_jpeg``, with libjpeg's checks of each segment) finds those at a
fraction of the cost of even a 1/8-scale decode (measured in bench/bench_scan.py; its
verdicts are compared with Pillow's full decode on damaged files in tests/engine/media/
test_check.py). Other formats offer Pillow no smaller decode, and their
damage (a TIFF codec this build lacks, garbage in a deflate strip, an APNG's broken frame
sequence) shows only when decoded: their pages are still decoded whole. A PDF's pages are
loaded by pdfium in ``decode._probe_pdf`` (rendering them would decode every picture on
them at full size first).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, NoReturn

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.media import budget
from transcribe_import.engine.media.kinds import JPEG, PNG, WEBP
from transcribe_import.engine.storage import fsio

if TYPE_CHECKING:
    from PIL import Image

# Files up to this size are kept in memory between their hash and their probe (two scan
# workers hold at most two of them), read in one call, so a cancel waits for at most that
# much to be read; larger ones are read twice, in parts, rather than held.
WHOLE_READ_MAX = 32 * 1024 * 1024

# How far from the end an image's end marker may sit: cameras and editors append padding
# or trailers after it, but a file cut short by a failed copy has none at all.
_TAIL_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class FileRead:
    """A file read once: its sha256, and its bytes when small enough to keep."""

    sha256: str
    data: bytes | None


def read_once(path: Path, *, size: int, should_stop: Callable[[], bool] | None = None) -> FileRead:
    """Hash exactly ``size`` bytes of ``path`` (else ``FileChanged``), keeping them if small.

    Raises what ``fsio.open_read`` raises (all ``OSError``).
    """
    if size > WHOLE_READ_MAX:
        sha, _size = fsio.hash_file(path, size=size, should_stop=should_stop)
        return FileRead(sha, None)
    with fsio.open_read(path, size=size, should_stop=should_stop) as f:
        # One read into one buffer (no chunks joined: a copy as costly as the check), then
        # one more byte, which raises FileChanged if the file has grown since the walk.
        data = f.read(size)
        f.read(1)
    return FileRead(hashlib.sha256(data).hexdigest(), data)


def check_not_truncated(fp: BinaryIO, media_type: str, dp: str) -> None:
    """Refuse an image cut short (an interrupted copy from a USB disk), from its tail alone.

    Headers say nothing about a missing end, and a probe must not decode pixels, so
    look for the end marker the format requires: JPEG's EOI, PNG's IEND, and the
    length a WebP's RIFF header promises (a TIFF's strips are checked when Pillow opens it).
    """
    size = fp.seek(0, 2)
    if media_type == JPEG:
        fp.seek(max(0, size - _TAIL_BYTES))
        ok = b"\xff\xd9" in fp.read()
    elif media_type == PNG:
        fp.seek(max(0, size - _TAIL_BYTES))
        ok = b"IEND" in fp.read()
    elif media_type == WEBP:
        fp.seek(4)
        riff_size = int.from_bytes(fp.read(4), "little")
        ok = size >= riff_size + 8
    else:
        return
    if not ok:
        raise_cut_short(dp)


def raise_cut_short(dp: str) -> NoReturn:
    raise TranscribeError(
        ErrorCode.CORRUPT_IMAGE,
        f"{dp} is cut short (its end is missing, as after an interrupted copy): copy it "
        "again from the original, or leave it out.",
        path=dp,
    )


def check_data(
    im: Image.Image,
    fp: BinaryIO,
    page_count: int,
    dp: str,
    decoded: Callable[[int, Image.Image], None] | None = None,
) -> None:
    """Refuse, as a decoder error, an image whose data would not decode at commit.

    Runs inside the caller's decoder-error wording (``decode._image_errors``): it raises
    what Pillow raises, or ``SyntaxError`` for a JPEG's broken marker stream, and
    ``TranscribeError`` for one cut short. ``decoded(frame, im)`` is shown each page this
    decodes whole (not a JPEG's), so what else needs its pixels (a page's look) takes them
    from this one decode.
    """
    if im.format in ("JPEG", "MPO"):
        fp.seek(0)
        _walk_jpeg(fp.read(), dp)
        return
    for frame in range(page_count):
        if page_count > 1:
            im.seek(frame)
        with budget.DECODE_BUDGET.hold(budget.estimate(*im.size)):  # as a render's decode
            im.load()
            if decoded is not None:
                decoded(frame, im)


# A marker after entropy-coded data: 0xFF then neither a stuffed zero, a restart marker
# (RST0-7, which sit inside a scan's data) nor another 0xFF (fill before a marker).
_NEXT_MARKER = re.compile(rb"\xff[^\x00\xd0-\xd7\xff]")
_SOI, _EOI, _SOS, _TEM = 0xD8, 0xD9, 0xDA, 0x01
_DHT, _DAC, _DQT, _DRI = 0xC4, 0xCC, 0xDB, 0xDD
_SOF = frozenset(range(0xC0, 0xD0)) - {_DHT, _DAC}  # and JPG (0xC8): libjpeg refuses it
_PROGRESSIVE = frozenset({0xC2, 0xC6, 0xCA, 0xCE})
# Segments libjpeg skips or reads without refusing: DNL, APP0-15, COM.
_SKIPPED = frozenset({0xDC, *range(0xE0, 0xF0), 0xFE})
_READ = frozenset({_DHT, _DAC, _DQT, _DRI, _SOS})  # the segments checked field by field


class _JpegStream:
    """What the marker walk has seen so far, and libjpeg's rules for each segment.

    libjpeg stops with an error (Pillow's "broken data stream") on a marker it does not
    know, a second SOF or SOI, a table or scan header whose fields do not add up, or a
    Huffman table whose codes overflow; it only warns about damaged entropy-coded data.
    These are its checks (jdmarker.c, jdhuff.c, jdphuff.c), so the walk refuses what it
    refuses and passes what it decodes.
    """

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.components: set[int] = set()
        self.progressive = False
        self.scans = 0
        self.scanned: set[int] = set()  # components whose data a scan has held
        self.scanning: list[int] = []  # those of the scan whose data is being skipped
        self.huffman: dict[tuple[int, int], bytes] = {}  # (class, id) -> counts + values

    def expect(self, marker: int, at: int) -> None:
        """Refuse a marker libjpeg refuses before reading its segment's length."""
        if marker not in _SKIPPED and marker not in _SOF and marker not in _READ:
            raise SyntaxError(f"an unknown marker 0x{marker:02X} at byte {at}")
        if marker in _SOF and self.components:
            raise SyntaxError(f"a second frame header at byte {at}")

    def segment(self, marker: int, body: bytes, at: int) -> None:
        if marker in _SKIPPED:
            return
        if marker in _SOF:
            self.progressive = marker in _PROGRESSIVE
            count = body[5] if len(body) > 5 else 0
            if count == 0 or len(body) != 6 + 3 * count:
                raise SyntaxError(f"a frame header of the wrong length at byte {at}")
            self.components = {body[6 + 3 * i] for i in range(count)}
        elif marker == _DHT:
            self._tables(body, at)
        elif marker == _DQT:
            self._quantisation(body, at)
        elif marker == _DAC:
            _arithmetic(body, at)
        elif marker == _DRI:
            if len(body) != 2:
                raise SyntaxError(f"a restart interval of the wrong length at byte {at}")
        elif marker == _SOS:
            self._scan(body, at)

    def _tables(self, body: bytes, at: int) -> None:
        pos = 0
        while pos < len(body):
            index = body[pos]
            counts = body[pos + 1 : pos + 17]
            total = sum(counts)
            if index & 0x0F >= 4 or index & 0xE0 or len(counts) < 16:
                raise SyntaxError(f"a bad Huffman table at byte {at}")
            if total > 256 or pos + 17 + total > len(body):
                raise SyntaxError(f"a bad Huffman table at byte {at}")
            self.huffman[(index >> 4, index & 0x0F)] = body[pos + 1 : pos + 17 + total]
            pos += 17 + total

    def _quantisation(self, body: bytes, at: int) -> None:
        pos = 0
        while pos < len(body):
            index = body[pos]
            if index & 0x0F >= 4:
                raise SyntaxError(f"a bad quantisation table at byte {at}")
            pos += 1 + 64 * (2 if index >> 4 else 1)

    def _scan(self, body: bytes, at: int) -> None:
        count = body[0] if body else 0
        if not 1 <= count <= 4 or len(body) != 4 + 2 * count:
            raise SyntaxError(f"a scan header of the wrong length at byte {at}")
        ids = [body[1 + 2 * i] for i in range(count)]
        if not self.components or not set(ids) <= self.components or len(set(ids)) < count:
            raise SyntaxError(f"a scan of components the frame lacks at byte {at}")
        start, stop, approx = body[-3], body[-2], body[-1]
        high, low = approx >> 4, approx & 0x0F
        if self.progressive and (
            start > stop
            or stop > 63
            or (start == 0) != (stop == 0)
            or (start > 0 and count != 1)
            or (high != 0 and high - 1 != low)
            or low > 13
        ):
            raise SyntaxError(f"a bad progressive scan at byte {at}")
        for i in range(count):
            tables = body[2 + 2 * i]
            if start == 0 and not (self.progressive and high):
                self._check_codes(0, tables >> 4, at)
            if stop > 0 or not self.progressive:
                self._check_codes(1, tables & 0x0F, at)
        self.scans += 1
        self.scanning = ids

    @property
    def complete(self) -> bool:
        """Whether libjpeg has every row once the current scan ends: a sequential image's
        scans hold each component once, so it reads no further (a progressive one reads on
        to EOI, refining its rows)."""
        return not self.progressive and self.scanned >= self.components

    def _check_codes(self, kind: int, table: int, at: int) -> None:
        # A table never defined is replaced by the standard one (libjpeg-turbo, for
        # Motion-JPEG frames); a defined one must not need more codes than its lengths give.
        found = self.huffman.get((kind, table))
        if found is None:
            return
        code = 0
        for length, n in enumerate(found[:16], start=1):
            code = (code + n) << 1
            if code > 1 << (length + 1):
                raise SyntaxError(f"an impossible Huffman table before byte {at}")
        if kind == 0 and any(v > 15 for v in found[16:]):
            raise SyntaxError(f"an impossible Huffman table before byte {at}")


def _arithmetic(body: bytes, at: int) -> None:
    """An arithmetic-coding conditioning table (DAC): index and value in libjpeg's ranges."""
    if len(body) % 2:
        raise SyntaxError(f"an arithmetic coding table of the wrong length at byte {at}")
    for index, value in zip(body[0::2], body[1::2], strict=True):
        if index >= 32 or (index >= 16 and not 1 <= value <= 63):
            raise SyntaxError(f"a bad arithmetic coding table at byte {at}")
        if index < 16 and value & 0x0F > value >> 4:
            raise SyntaxError(f"a bad arithmetic coding table at byte {at}")


def _walk_jpeg(data: bytes, dp: str) -> None:
    """Follow a JPEG's segments from SOI to EOI; the first image's, so an MPO's first frame.

    Segments are skipped by their lengths (an embedded EXIF thumbnail's markers are
    never mistaken for the image's) and checked as libjpeg checks them
    (``_JpegStream``); a scan's data is skipped by searching for the marker that ends
    it. The stream must reach EOI after at least one scan: a file cut off inside the last
    scan, even when an end marker of something else lies near its end, is refused.
    Bytes where a marker should be are skipped, as libjpeg skips them (it only warns).
    """
    end = len(data)
    stream = _JpegStream(data)
    pos = 2  # after SOI, which sniffing has checked
    while True:
        if pos + 2 > end:
            return _ran_out(stream, dp)
        if data[pos] != 0xFF or data[pos + 1] in (0x00, 0xFF):
            found = _NEXT_MARKER.search(data, pos)
            if found is None:
                return _ran_out(stream, dp)
            pos = found.start()
        marker = data[pos + 1]
        if marker == _EOI:
            if stream.scans == 0:
                raise SyntaxError("it has no image data")
            return
        if marker == _SOI:
            raise SyntaxError(f"a second start of image at byte {pos}")
        if marker == _TEM or 0xD0 <= marker <= 0xD7:
            pos += 2
            continue
        stream.expect(marker, pos)
        if pos + 4 > end:
            return _ran_out(stream, dp)
        length = int.from_bytes(data[pos + 2 : pos + 4], "big")
        if length < 2:
            raise SyntaxError(f"a segment at byte {pos} has a length of {length}")
        if pos + 2 + length > end:
            if marker == _DAC:  # libjpeg checks each pair as it reads it
                _arithmetic(data[pos + 4 : end - (end - pos) % 2], pos)
            return _ran_out(stream, dp)
        stream.segment(marker, data[pos + 4 : pos + 2 + length], pos)
        pos += 2 + length
        if marker == _SOS:
            found = _NEXT_MARKER.search(data, pos)
            if found is None:
                raise_cut_short(dp)  # inside the scan's data: rows are missing
            stream.scanned.update(stream.scanning)
            pos = found.start()


def _ran_out(stream: _JpegStream, dp: str) -> None:
    # libjpeg reads on to EOI, but once a sequential image has every row, running out
    # of data only ends the decode early, while any other end leaves rows missing.
    if not stream.complete:
        raise_cut_short(dp)
