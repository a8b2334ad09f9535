"""A page's look: its ink and hash, turned or not, sparse pages included, blank pages not."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest
from PIL import Image

from transcribe_import.engine.media import ink, lookalike
from transcribe_import.engine.media.lookalike import THRESHOLD, Turn, from_hex, look_of, to_hex
from transcribe_import.engine.planning.look_index import LookIndex

from helpers import pages
from helpers.lookalike_set import (
    Rescan,
    Ruling,
    notebook_page,
    notebook_scan,
    rescan_file,
    rescanned,
    save_jpeg,
)


def _turn_found(look: lookalike.Look, stored: lookalike.Look) -> Turn | None:
    """The turn the index finds ``look`` near ``stored`` in, or None."""
    index = LookIndex()
    index.add(stored.upright)
    near = index.near(look)
    return near[0].turn if near else None


@pytest.mark.parametrize(
    ("kind", "turn"),
    [(Rescan.RIGHT, Turn.RIGHT), (Rescan.HALF, Turn.HALF), (Rescan.LEFT, Turn.LEFT)],
)
def test_a_page_turned_by_quarters_is_found_with_its_turn(kind: Rescan, turn: Turn) -> None:
    page = notebook_page(11, Ruling.LINED, 1.0)
    assert _turn_found(look_of(rescanned(page, kind, random.Random(3))), look_of(page)) is turn


def test_a_page_with_only_a_date_line_has_a_look_and_a_blank_page_has_none() -> None:
    """Sparse pages are pages; a blank page tilted 1°, the lid's white corners showing, is
    still blank (the corners are lighter than the paper: no ink)."""
    nb = pages.notebook(3, pages.Paper.RULED, pages.Light.LAMP)
    date = lookalike.seen_page(pages.page(nb, 1, pages.Kind.DATE))
    assert date.look is not None and not date.ink.blank
    blank = pages.page(nb, 2, pages.Kind.BLANK)
    tilted = blank.rotate(1.0, Image.Resampling.BICUBIC, fillcolor=(255, 255, 255))
    for im in (blank, tilted):
        seen = lookalike.seen_page(im)
        assert seen.look is None and seen.ink.blank
    assert lookalike.look_to_hex(None) == lookalike.BLANK and lookalike.is_blank(lookalike.BLANK)


def test_a_lamps_uneven_light_is_not_ink() -> None:
    """The same page under a flat scanner's light and a lamp's (6 % uneven) has one ink."""
    flat = pages.notebook(4, pages.Paper.SQUARED, pages.Light.SCANNER)
    lamp = dataclasses.replace(flat, light=pages.Light.LAMP)
    a = ink.ink_of(pages.page(flat, 7, pages.Kind.HALF))
    b = ink.ink_of(pages.page(lamp, 7, pages.Kind.HALF))
    assert abs(a.share - b.share) < 0.1 * a.share
    assert ink.score(a, b) >= 0.95


def test_the_same_pixels_give_the_same_hash_whatever_the_mode_and_size() -> None:
    page = notebook_page(5, Ruling.SQUARED, 0.7)
    assert look_of(page) == look_of(page.copy())
    small = page.resize((page.width // 4, page.height // 4), Image.Resampling.BOX)
    # A page decoded at another scale (a JPEG draft, a PDF thumbnail) is within reach.
    assert lookalike.distance(look_of(small).upright, look_of(page).upright) <= THRESHOLD
    assert look_of(page.convert("L")) == look_of(page)  # colour plays no part


def test_a_hash_is_kept_as_hex_and_anything_else_reads_as_none() -> None:
    value = look_of(notebook_page(2, Ruling.PLAIN, 0.4)).upright
    text = to_hex(value)
    assert len(text) == lookalike.HEX_DIGITS == 36 and text == text.lower()
    assert from_hex(text) == value
    assert from_hex("") is None and from_hex("z" * 36) is None and from_hex(text[:-1]) is None


# -- a page file's looks, as the scan makes them -----------------------------------------------


def _looks(path: Path, media_type: str, pages: int = 1) -> tuple[str | None, ...]:
    return lookalike.page_looks(path, media_type, pages, size=path.stat().st_size)


def test_a_jpeg_and_its_rescan_have_looks_that_match(tmp_path: Path) -> None:
    page = save_jpeg(notebook_scan(5), tmp_path / "page.jpg")
    again = rescan_file(5, Rescan.LEFT, tmp_path / "again.jpg")
    [mine] = _looks(page, "image/jpeg")
    [theirs] = _looks(again, "image/jpeg")
    assert mine is not None and theirs is not None and mine.startswith(lookalike.PREFIX)
    stored = lookalike.look_from_hex(mine)
    look = lookalike.look_from_hex(theirs)
    assert stored is not None and look is not None
    assert _turn_found(look, stored) is Turn.LEFT
    # Read from the bytes already in hand, the same look.
    assert lookalike.page_looks(
        again, "image/jpeg", 1, size=again.stat().st_size, data=again.read_bytes()
    ) == (theirs,)


def test_a_pdf_of_jpeg_scans_has_a_look_for_each_page(tmp_path: Path) -> None:
    pages = [notebook_scan(k) for k in (1, 2)]
    pdf = tmp_path / "scans.pdf"
    pages[0].save(pdf, "PDF", resolution=150, save_all=True, append_images=pages[1:])
    first, second = _looks(pdf, "application/pdf", 2)
    assert first is not None and second is not None and first != second
    [alone] = _looks(save_jpeg(pages[1], tmp_path / "p2.jpg"), "image/jpeg")
    assert alone is not None
    a, b = lookalike.look_from_hex(second), lookalike.look_from_hex(alone)
    assert a is not None and b is not None and _turn_found(a, b) is Turn.NONE


def test_a_blank_page_and_formats_without_a_cheap_decode_have_no_look(tmp_path: Path) -> None:
    blank = tmp_path / "blank.jpg"
    Image.new("RGB", (620, 877), (244, 238, 222)).save(blank, "JPEG")
    assert _looks(blank, "image/jpeg") == (lookalike.BLANK,)
    png = tmp_path / "page.png"
    notebook_scan(1).save(png)
    assert _looks(png, "image/png") == (None,)  # made from the scan's check instead (DecodedLooks)
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"\xff\xd8\xff" + b"\x00" * 64)
    assert _looks(broken, "image/jpeg") == (None,)


def test_a_look_is_kept_as_its_four_turns_in_hex() -> None:
    look = look_of(notebook_page(3, Ruling.SQUARED, 0.5))
    text = lookalike.look_to_hex(look)
    assert len(text) == len(lookalike.PREFIX) + lookalike.LOOK_HEX_DIGITS
    assert lookalike.look_from_hex(text) == look
    assert lookalike.look_from_hex(text[:-1]) is None
    assert lookalike.look_from_hex(text.upper()) is None
    # A look of the version before (144 bare hex digits, of grey levels) is not compared.
    assert lookalike.look_from_hex(text.removeprefix(lookalike.PREFIX)) is None


def _ink_of_bytes(data: bytes, ext: str = ".jpg") -> ink.Ink:
    kind = {".jpg": "image/jpeg", ".png": "image/png"}[ext]
    [seen] = lookalike.page_seen(Path("page" + ext), kind, 1, size=len(data), data=data)
    assert seen is not None and seen.ink is not None
    return seen.ink


def test_a_page_number_differing_in_one_digit_is_another_page_and_its_rescan_is_the_same() -> None:
    """The held-out hand where a 5 lies on most of a 6 at 1024 pixels: the written parts'
    local view finds the 6's stroke the 5 lacks, and a tilted rescan's digits none."""
    nb = pages.notebook(2027, pages.Paper.RULED, pages.Light.SCANNER)
    five, six = (pages.page(nb, n, pages.Kind.NUMBER) for n in (15, 16))
    a, b = _ink_of_bytes(pages.first_scan(five)), _ink_of_bytes(pages.first_scan(six))
    assert a.detail is not None and b.detail is not None
    assert ink.score(a, b) < ink.SAME_PAGE
    data, ext = pages.rescan(six, pages.Rescan.TILT, 0.5)
    assert ink.score(b, _ink_of_bytes(data, ext)) >= ink.SAME_PAGE


def test_a_tilted_line_of_words_is_aligned_by_a_turn_of_its_row_of_tiles() -> None:
    """A date line tilted 2°: its tiles lie in one row, which fits a turn (an affine
    motion needs tiles in two rows); no part of it is then missing from the other."""
    nb = pages.notebook(7, pages.Paper.PLAIN, pages.Light.LAMP)
    im = pages.page(nb, 3, pages.Kind.DATE)
    a = _ink_of_bytes(pages.first_scan(im))
    tilted = im.rotate(2, resample=Image.Resampling.BICUBIC, fillcolor="white")
    b = _ink_of_bytes(pages.first_scan(tilted))
    assert a.detail is not None and b.detail is not None
    shape = (max(a.detail.shape[0], b.detail.shape[0]), max(a.detail.shape[1], b.detail.shape[1]))
    pa = ink._framed(a.detail, shape)
    pb = ink.aligned(pa, ink._framed(b.detail, shape), ink.DETAIL_SLACK)
    assert ink._missing(pa, pb) < ink.MISSING / 2
    assert ink.score(a, b) >= ink.SAME_PAGE
