"""A labelled set for the look-alike hash: notebook pages, rescans of them, and other pages.

Handwriting on the same paper looks alike, so the distinct pages are drawn as one notebook
would hold them: the same paper colour, the same ruling (lined, squared or plain) and the
same hand (strokes of one pen along the lines), with more or less text on each page. A
rescan is the same page scanned again, each kind the issue names: at another JPEG quality,
turned by up to 2 degrees, lighter or darker by up to 10%, cropped by up to 3% on each side,
and turned by a quarter or a half. Seeded: the same set every run.
"""

from __future__ import annotations

import enum
import io
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageEnhance

PAPER = (244, 238, 222)
INK = (40, 40, 70)
WIDTH, HEIGHT = 620, 877  # an A4 page at 75 dpi: the scale a scan's small decode gives
LINE = 26


class Ruling(enum.Enum):
    LINED = "lined"
    SQUARED = "squared"
    PLAIN = "plain"


class Rescan(enum.Enum):
    JPEG = "jpeg quality"
    TILT = "turned up to 2 degrees"
    LIGHT = "brightness within 10%"
    CROP = "cropped up to 3%"
    RIGHT = "turned 90 degrees"
    HALF = "turned 180 degrees"
    LEFT = "turned 270 degrees"


def notebook_page(seed: int, ruling: Ruling, fill: float) -> Image.Image:
    """One page of a notebook: its ruling, and ``fill`` (0..1) of its lines written."""
    rnd = random.Random(seed)
    im = Image.new("RGB", (WIDTH, HEIGHT), PAPER)
    d = ImageDraw.Draw(im)
    if ruling is not Ruling.PLAIN:
        for y in range(90, HEIGHT - 40, LINE):
            d.line([(40, y), (WIDTH - 30, y)], fill=(190, 200, 225), width=1)
        d.line([(70, 0), (70, HEIGHT)], fill=(220, 150, 150), width=1)
    if ruling is Ruling.SQUARED:
        for x in range(40, WIDTH - 30, LINE):
            d.line([(x, 60), (x, HEIGHT - 40)], fill=(200, 208, 228), width=1)
    lines = max(1, int((HEIGHT - 130) / LINE * fill))
    first = rnd.randrange(0, 3)
    for row in range(first, first + lines):
        y = 90 + row * LINE - 4
        x = 80 + rnd.randrange(0, 30)
        end = WIDTH - 40 - rnd.randrange(0, 200 if rnd.random() < 0.8 else 450)
        while x < end:
            length = rnd.randrange(15, 70)
            stroke = [
                (x + i * 3, y - rnd.randrange(0, 14) + (6 if rnd.random() < 0.1 else 0))
                for i in range(length // 3)
            ]
            if len(stroke) > 1:
                d.line(stroke, fill=INK, width=2)
            x += length + rnd.randrange(6, 16)
    return im


def rescanned(page: Image.Image, kind: Rescan, rnd: random.Random) -> Image.Image:
    """``page`` scanned again in the way ``kind`` names, saved as a JPEG and read back."""
    out = page
    quality = 90
    if kind is Rescan.JPEG:
        quality = rnd.randrange(40, 96)
    elif kind is Rescan.TILT:
        angle = rnd.choice([-1, 1]) * rnd.uniform(0.5, 2.0)
        out = out.rotate(angle, resample=Image.Resampling.BICUBIC, fillcolor=PAPER)
    elif kind is Rescan.LIGHT:
        out = ImageEnhance.Brightness(out).enhance(rnd.choice([0.9, 0.95, 1.05, 1.1]))
    elif kind is Rescan.CROP:
        w, h = out.size

        def cut(side: int) -> int:
            return int(side * rnd.uniform(0.0, 0.03))

        out = out.crop((cut(w), cut(h), w - cut(w), h - cut(h)))
    else:
        turn = {
            Rescan.RIGHT: Image.Transpose.ROTATE_270,  # Pillow turns anticlockwise
            Rescan.HALF: Image.Transpose.ROTATE_180,
            Rescan.LEFT: Image.Transpose.ROTATE_90,
        }[kind]
        out = out.transpose(turn)
    buf = io.BytesIO()
    out.save(buf, "JPEG", quality=quality)
    buf.seek(0)
    with Image.open(buf) as im:
        return im.convert("RGB")


@dataclass(frozen=True)
class Labelled:
    """The pages of the set and, for each, its rescans (one of every kind)."""

    pages: list[Image.Image]
    rescans: list[tuple[int, Rescan, Image.Image]]  # (index of the page, kind, image)


def labelled_set(pages_per_ruling: int, seed: int = 1) -> Labelled:
    """Pages of three notebooks (lined, squared, plain), each rescanned in every way."""
    rnd = random.Random(seed)
    pages = [
        notebook_page(rnd.randrange(1 << 30), ruling, rnd.choice([1.0, 1.0, 0.7, 0.4, 0.15]))
        for ruling in Ruling
        for _ in range(pages_per_ruling)
    ]
    rescans = [(i, kind, rescanned(p, kind, rnd)) for i, p in enumerate(pages) for kind in Rescan]
    return Labelled(pages, rescans)


def distinct_pairs(count: int, per_notebook: int) -> Iterator[tuple[int, int]]:
    """Every pair of two different pages of the same notebook (the hard ones)."""
    for i in range(count):
        for j in range(i + 1, count):
            if i // per_notebook == j // per_notebook:
                yield i, j


# -- page files for the CLI and window tests ---------------------------------------------------


def notebook_scan(k: int) -> Image.Image:
    """Page ``k`` of one lined notebook, at twice the set's scale (an A4 scan at 150 dpi)."""
    im = notebook_page(1000 + k, Ruling.LINED, 0.7)
    return im.resize((im.width * 2, im.height * 2))


def save_jpeg(im: Image.Image, path: Path, quality: int = 90) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    im.save(path, "JPEG", quality=quality)
    return path


def scans(folder: Path, numbers: Iterable[int], name: str = "{k:02d}.jpg") -> Path:
    """Pages ``numbers`` of ``notebook_scan``'s notebook as JPEGs in ``folder``, each named
    by ``name`` (formatted with its number ``k``): the folder."""
    for k in numbers:
        save_jpeg(notebook_scan(k), folder / name.format(k=k))
    return folder


def rescan_file(k: int, kind: Rescan, path: Path) -> Path:
    """A rescan of ``notebook_scan(k)`` of that kind, as a JPEG at ``path``."""
    return save_jpeg(rescanned(notebook_scan(k), kind, random.Random(k)), path, quality=75)


def alike_pages(folder: Path, pages: int) -> Path:
    """Ruled pages of a few strokes, each page there twice (shot again, at another JPEG
    quality): every one is asked about as a rescan of another page of its notebook."""
    folder.mkdir(parents=True)
    half = max(1, pages // 2)
    for p in range(1, pages + 1):
        k = (p - 1) % half + 1
        img = Image.new("RGB", (400, 560), (246, 241, 226))
        draw = ImageDraw.Draw(img)
        for y in range(40, 540, 22):
            draw.line([(24, y), (376, y)], fill=(170, 185, 215), width=1)
        for i, y in enumerate(range(58, 400, 22)):
            draw.line([(40, y - 6), (120 + (k * 13 + i * 7) % 220, y - 7)], (40, 50, 90), 2)
        img.save(folder / f"page {p:02d}.jpg", quality=80 if p <= half else 60)
    return folder
