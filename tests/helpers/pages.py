"""A realistic labelled set of notebook pages: real handwriting fonts, paper, light, rescans.

Each notebook has one hand (a handwriting font from the Debian packages the preamble of
packaging/dev.sh installs: fonts-dkg-handwriting, fonts-breip, fonts-femkeklaver, …), one
paper (ruled, squared or plain) and one light (a flat scanner's, or a lamp's: about 6 % of
uneven light across the page). Its pages are of every kind a real notebook holds: full,
half full, a date line only, a few words, blank, and (a notebook of its own) ruled pages
whose only writing is their page number. A rescan is the same page taken again in one of
the ways the issue names: another JPEG quality, another dpi, tilted 0.5-2° (the scanner
lid's white corners showing), ±8 % brightness, cropped 2-4 %, a PNG, grey, a quarter or a
half turn, or a phone photo with a slight perspective. Everything is seeded: the same
arguments give the same pixels.

Pages are drawn at ``DPI`` (an A4 page at 100 dpi, 827x1170), which the engine's small
decode sees much as it sees a 300 dpi scan decoded at 1/8.
"""

from __future__ import annotations

import enum
import functools
import io
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageChops, ImageDraw, ImageEnhance, ImageFont

DPI = 100
WIDTH, HEIGHT = 827, 1170  # A4 at DPI
LINE = 32  # ruling pitch (8 mm)
TOP = 120  # the first ruled line
MARGIN = 95  # the red margin line

# The handwriting fonts, first those of the Debian packages dev.sh installs.
HAND_FONTS = (
    "/usr/share/fonts/truetype/fifthhorseman/dkg.ttf",
    "/usr/share/fonts/truetype/breip/Breip.ttf",
    "/usr/share/fonts/truetype/femkeklaver/femkeklaver.ttf",
    "/usr/share/fonts/truetype/rufscript/Rufscript010.ttf",
    "/usr/share/fonts/truetype/sjfonts/SteveHand.ttf",
    "/usr/share/fonts/opentype/dancingscript/DancingScript-Regular.otf",
    "/usr/share/fonts/opentype/bwht/BecauseWeLearn-Regular.otf",
    "/usr/share/fonts/opentype/comic-neue/ComicNeue-Regular.otf",
    "/usr/share/fonts/truetype/sjfonts/Delphine.ttf",
)

_TEXT = (
    "the river was high this morning and we crossed it at the old ford before noon "
    "snow on the hills mother wrote again about the farm prices of wool and barley "
    "walked to the station in the rain letters from Anna nothing from the office "
    "measured the north field seven hundred paces long the birch wood behind it "
    "reindeer tracks near the lake fish soup for supper the stove smoked all evening "
    "Tuesday Wednesday Thursday Friday cold clear windy fog thaw frost"
)
WORDS = tuple(_TEXT.split(" "))
MONTHS = tuple(
    [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
    ]
)


class Paper(enum.Enum):
    RULED = "ruled"
    SQUARED = "squared"
    PLAIN = "plain"


class Kind(enum.Enum):
    """What is written on a page."""

    FULL = "full"
    HALF = "half"
    DATE = "date only"
    FEW_WORDS = "few words"
    BLANK = "blank"
    NUMBER = "page number only"


class Light(enum.Enum):
    SCANNER = "scanner"  # flat
    LAMP = "lamp"  # about 6 % uneven, brighter on one side


class Rescan(enum.Enum):
    JPEG = "other JPEG quality"
    DPI = "other dpi"
    TILT = "tilted 0.5-2°"
    BRIGHTNESS = "±8 % brightness"
    CROP = "cropped 2-4 %"
    PNG = "PNG"
    GREY = "grey"
    RIGHT = "turned 90°"
    HALF = "turned 180°"
    LEFT = "turned 270°"
    PHONE = "phone photo"


@functools.cache
def hand_fonts() -> tuple[str, ...]:
    """The handwriting fonts installed (at least one: tests need a hand)."""
    found = tuple(f for f in HAND_FONTS if Path(f).is_file())
    assert found, f"no handwriting font installed: bash packaging/dev.sh installs {HAND_FONTS[0]}"
    return found


@functools.cache
def _font(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size)


@dataclass(frozen=True)
class Notebook:
    """One notebook's hand, paper, paper colour, ink and light (``seed`` draws the rest)."""

    seed: int
    paper: Paper
    light: Light
    font: str
    paper_rgb: tuple[int, int, int]
    ink_rgb: tuple[int, int, int]
    numbered: bool  # a page number written at the top of each page


def notebook(seed: int, paper: Paper, light: Light, *, numbered: bool = False) -> Notebook:
    rnd = random.Random(seed)
    fonts = hand_fonts()
    shade = rnd.randrange(228, 250)
    return Notebook(
        seed,
        paper,
        light,
        fonts[rnd.randrange(len(fonts))],
        (shade, shade - rnd.randrange(2, 10), shade - rnd.randrange(8, 24)),
        rnd.choice([(30, 30, 60), (20, 20, 20), (25, 45, 110), (60, 40, 30)]),
        numbered,
    )


def _ruling(d: ImageDraw.ImageDraw, paper: Paper) -> None:
    if paper is Paper.PLAIN:
        return
    blue = (175, 190, 220)
    for y in range(TOP, HEIGHT - 50, LINE):
        d.line([(40, y), (WIDTH - 40, y)], fill=blue, width=1)
    if paper is Paper.SQUARED:
        for x in range(40, WIDTH - 39, LINE):
            d.line([(x, 60), (x, HEIGHT - 50)], fill=blue, width=1)
    else:
        d.line([(MARGIN, 0), (MARGIN, HEIGHT)], fill=(225, 150, 150), width=1)


def _line_text(rnd: random.Random, width: int, font: ImageFont.FreeTypeFont) -> str:
    words: list[str] = []
    while True:
        word = rnd.choice(WORDS)
        if font.getlength(" ".join([*words, word])) > width:
            return " ".join(words) or word
        words.append(word)


def _write(d: ImageDraw.ImageDraw, nb: Notebook, rnd: random.Random, kind: Kind, number: int):
    size = int(LINE * rnd.uniform(0.8, 0.95))
    font = _font(nb.font, size)
    left = MARGIN + 10 if nb.paper is Paper.RULED else 70
    rows = (HEIGHT - 50 - TOP) // LINE
    if nb.numbered or kind is Kind.NUMBER:
        d.text((WIDTH - 90, TOP - LINE - 8), str(number), font=font, fill=nb.ink_rgb)
    if kind in (Kind.BLANK, Kind.NUMBER):
        return

    def line(row: int, text: str, x: int = left) -> None:
        jitter = rnd.randrange(-3, 4)
        d.text((x + rnd.randrange(0, 12), TOP + row * LINE - size + jitter), text, nb.ink_rgb, font)

    date = f"{rnd.randrange(1, 29)} {rnd.choice(MONTHS)} 19{rnd.randrange(10, 60)}"
    line(0, date, left + rnd.randrange(0, 300))
    if kind is Kind.DATE:
        return
    if kind is Kind.FEW_WORDS:
        for row in range(1, 1 + rnd.randrange(1, 3)):
            line(row, " ".join(rnd.choice(WORDS) for _ in range(rnd.randrange(1, 5))))
        return
    count = rows - 1 if kind is Kind.FULL else (rows - 1) // 2
    for row in range(1, 1 + count):
        width = WIDTH - left - 60 - (rnd.randrange(0, 400) if rnd.random() < 0.2 else 0)
        line(row, _line_text(rnd, width, font))


def _lit(im: Image.Image, light: Light, rnd: random.Random) -> Image.Image:
    """``im`` under ``light``: a lamp's is about 6 % brighter on one side than the other."""
    if light is Light.SCANNER:
        return im
    import numpy as np

    # a smooth ramp across the page in a random direction, the far side 6 % darker
    angle = rnd.uniform(0, 2 * np.pi)
    ys, xs = np.mgrid[0 : im.height, 0 : im.width]
    along = np.cos(angle) * xs / im.width + np.sin(angle) * ys / im.height
    along = (along - along.min()) / (along.max() - along.min())
    factor = Image.fromarray((255 * (1 - 0.06 * along)).astype(np.uint8), "L")
    return ImageChops.multiply(im, Image.merge("RGB", (factor, factor, factor)))


def page(nb: Notebook, number: int, kind: Kind) -> Image.Image:
    """Page ``number`` of ``nb``, with ``kind`` of writing on it, under the notebook's light."""
    rnd = random.Random(nb.seed * 10_007 + number)
    im = Image.new("RGB", (WIDTH, HEIGHT), nb.paper_rgb)
    d = ImageDraw.Draw(im)
    _ruling(d, nb.paper)
    _write(d, nb, rnd, kind, number)
    # paper grain: a little noise, so two blank pages are not the same pixels
    noise = Image.effect_noise((WIDTH // 4, HEIGHT // 4), 6).resize((WIDTH, HEIGHT))
    im = Image.blend(im, Image.merge("RGB", (noise, noise, noise)), 0.04)
    return _lit(im, nb.light, rnd)


# -- rescans -----------------------------------------------------------------------------------


def _encoded(im: Image.Image, fmt: str, quality: int = 88) -> bytes:
    buf = io.BytesIO()
    if fmt == "PNG":
        im.save(buf, "PNG", compress_level=1)
    else:
        im.save(buf, "JPEG", quality=quality)
    return buf.getvalue()


def _perspective(im: Image.Image, rnd: random.Random) -> Image.Image:
    """A phone's photo: the page's corners moved by up to 2 % (a slight perspective)."""
    w, h = im.size
    dx, dy = 0.02 * w, 0.02 * h
    corners = [
        (rnd.uniform(0, dx), rnd.uniform(0, dy)),
        (w - rnd.uniform(0, dx), rnd.uniform(0, dy)),
        (w - rnd.uniform(0, dx), h - rnd.uniform(0, dy)),
        (rnd.uniform(0, dx), h - rnd.uniform(0, dy)),
    ]
    coeffs = _perspective_coefficients([(0, 0), (w, 0), (w, h), (0, h)], corners)
    return im.transform(
        (w, h),
        Image.Transform.PERSPECTIVE,
        coeffs,
        Image.Resampling.BICUBIC,
        fillcolor=(90, 85, 80),
    )


def _perspective_coefficients(dst, src) -> tuple[float, ...]:
    """Pillow's 8 coefficients mapping each output corner ``dst`` to the input point ``src``."""
    import numpy as np

    rows = []
    for (x, y), (u, v) in zip(dst, src, strict=True):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
    solved = np.linalg.solve(np.array(rows, float), np.array([c for p in src for c in p], float))
    return tuple(float(c) for c in solved)


def rescan(im: Image.Image, how: Rescan, seed: int) -> tuple[bytes, str]:
    """``im`` taken again ``how``: the file's bytes and its extension."""
    rnd = random.Random(seed)
    out = im
    if how is Rescan.JPEG:
        return _encoded(out, "JPEG", rnd.randrange(35, 70)), ".jpg"
    if how is Rescan.DPI:
        scale = rnd.choice([0.6, 0.75, 1.5, 2.0])
        return _encoded(
            out.resize((int(out.width * scale), int(out.height * scale))), "JPEG"
        ), ".jpg"
    if how is Rescan.TILT:
        angle = rnd.choice([-1, 1]) * rnd.uniform(0.5, 2.0)
        out = out.rotate(angle, Image.Resampling.BICUBIC, fillcolor=(255, 255, 255))
    elif how is Rescan.BRIGHTNESS:
        out = ImageEnhance.Brightness(out).enhance(rnd.choice([0.92, 0.95, 1.05, 1.08]))
    elif how is Rescan.CROP:
        w, h = out.size
        cut = rnd.uniform(0.02, 0.04)
        left, top = int(w * cut * rnd.random()), int(h * cut * rnd.random())
        out = out.crop((left, top, left + int(w * (1 - cut)), top + int(h * (1 - cut))))
    elif how is Rescan.PNG:
        return _encoded(out, "PNG"), ".png"
    elif how is Rescan.GREY:
        out = out.convert("L")
    elif how in (Rescan.RIGHT, Rescan.HALF, Rescan.LEFT):
        out = out.transpose(
            {
                Rescan.RIGHT: Image.Transpose.ROTATE_270,  # Pillow turns anticlockwise
                Rescan.HALF: Image.Transpose.ROTATE_180,
                Rescan.LEFT: Image.Transpose.ROTATE_90,
            }[how]
        )
    elif how is Rescan.PHONE:
        out = _perspective(out, rnd)
        out = ImageEnhance.Brightness(out).enhance(rnd.uniform(0.93, 1.0))
    return _encoded(out, "JPEG", rnd.randrange(75, 93)), ".jpg"


def first_scan(im: Image.Image) -> bytes:
    """A page's first scan: a JPEG at quality 90."""
    return _encoded(im, "JPEG", 90)


def decoded(data: bytes) -> Image.Image:
    """The pixels of a page file's bytes."""
    with Image.open(io.BytesIO(data)) as im:
        im.load()
        return im.copy()


# -- the labelled set --------------------------------------------------------------------------

# How many of each kind of page a notebook holds, out of 20.
MIX = ((Kind.FULL, 6), (Kind.HALF, 4), (Kind.DATE, 3), (Kind.FEW_WORDS, 4), (Kind.BLANK, 3))


def kinds(count: int, rnd: random.Random) -> list[Kind]:
    """``count`` page kinds in the proportions of ``MIX``, shuffled."""
    pool = [k for k, n in MIX for _ in range(n)]
    return [pool[i % len(pool)] for i in rnd.sample(range(count * len(pool)), count)]


@dataclass(frozen=True)
class Sheet:
    """A page of the set: which notebook, its number, its kind, and its first scan's bytes."""

    notebook: Notebook
    number: int
    kind: Kind
    data: bytes

    @property
    def label(self) -> str:
        return f"{self.notebook.paper.value}/{self.notebook.light.value} p{self.number}"


@dataclass(frozen=True)
class Taken:
    """A rescan of ``of`` (an index into the set's sheets): its bytes and extension."""

    of: int
    how: Rescan
    data: bytes
    ext: str


@dataclass(frozen=True)
class LabelledSet:
    """Stored notebooks' pages, rescans of some of them, and new pages of other notebooks."""

    sheets: list[Sheet]
    rescans: list[Taken]
    new_pages: list[Sheet]


def notebooks(per_light: int, seed: int) -> Iterator[Notebook]:
    """``per_light`` notebooks for each light, the papers in turn."""
    rnd = random.Random(seed)
    papers = list(Paper)
    for light in Light:
        for k in range(per_light):
            yield notebook(rnd.randrange(1 << 30), papers[k % len(papers)], light)


def labelled_set(
    pages_per_notebook: int, *, per_light: int = 3, rescans_per_page: int = 2, seed: int = 1
) -> LabelledSet:
    """Stored notebooks (``per_light`` for each light, ruled, squared and plain in turn), each
    page rescanned ``rescans_per_page`` ways (blank pages too: a blank rescan has nothing to
    be found by), and as many new pages again, of other notebooks of the same papers, hands
    and lights."""
    rnd = random.Random(seed)
    sheets: list[Sheet] = []
    for nb in notebooks(per_light, rnd.randrange(1 << 30)):
        for n, kind in enumerate(kinds(pages_per_notebook, rnd), 1):
            sheets.append(Sheet(nb, n, kind, first_scan(page(nb, n, kind))))
    ways = list(Rescan)
    taken: list[Taken] = []
    for i, sheet in enumerate(sheets):
        for how in rnd.sample(ways, rescans_per_page):
            data, ext = rescan(page(sheet.notebook, sheet.number, sheet.kind), how, rnd.random())
            taken.append(Taken(i, how, data, ext))
    new: list[Sheet] = []
    for nb in notebooks(per_light, rnd.randrange(1 << 30)):
        for n, kind in enumerate(kinds(pages_per_notebook, rnd), 1):
            new.append(Sheet(nb, n, kind, first_scan(page(nb, n, kind))))
    return LabelledSet(sheets, taken, new)


def numbered_notebook(pages: int, seed: int = 5, light: Light = Light.SCANNER) -> list[bytes]:
    """A ruled notebook whose pages differ only in the page number written on each."""
    nb = notebook(seed, Paper.RULED, light)
    return [first_scan(page(nb, n, Kind.NUMBER)) for n in range(1, pages + 1)]


def write_files(folder: Path, files: list[tuple[str, bytes]]) -> list[Path]:
    """Each (name, bytes) written into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, data in files:
        (folder / name).write_bytes(data)
        out.append(folder / name)
    return out
