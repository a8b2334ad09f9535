"""Pages worth a second look (planning/second_look.py): blank, too small, too dark, too light
and blurred pages each get their hint, with its measure in words, as information; ordinary
pages of the labelled set of realistic pages get none."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import ExifTags, Image, ImageFilter

from transcribe_import.engine import api
from transcribe_import.engine.media import lookalike, page_measures
from transcribe_import.engine.media.decode import probe
from transcribe_import.engine.media.kinds import Turn
from transcribe_import.engine.planning import look_pass, second_look
from transcribe_import.engine.planning.plan import ImportPlan, plan_from_document
from transcribe_import.engine.planning.planner import build_plan
from transcribe_import.engine.planning.problems import ProblemCode, ProblemSeverity, Resolution
from transcribe_import.engine.planning.scan import run_scan
from transcribe_import.engine.planning.second_look import Hint
from transcribe_import.engine.planning.validate import validate

from helpers import pages as labelled


def _looked(root: Path) -> ImportPlan:
    """The plan of the folders under ``root`` with every page's look (and measures) made."""
    plan = build_plan(None, run_scan([root]))
    found: dict[str, str | None] = {}
    for made in look_pass.make_looks(look_pass.pending(plan), workers=2):
        found.update(made.looks)
    return look_pass.with_looks(plan, found)


def _notebook(seed: int = 11) -> labelled.Notebook:
    return labelled.notebook(seed, labelled.Paper.RULED, labelled.Light.SCANNER)


def _ordinary(nb: labelled.Notebook, count: int) -> list[Image.Image]:
    kinds = [labelled.Kind.FULL, labelled.Kind.HALF, labelled.Kind.FEW_WORDS, labelled.Kind.DATE]
    return [labelled.page(nb, n, kinds[n % len(kinds)]) for n in range(1, count + 1)]


def _book(root: Path, extra: dict[str, Image.Image], count: int = 6) -> Path:
    """A notebook folder of ``count`` ordinary pages (01.jpg…) and the ``extra`` pages."""
    book = root / "shelf" / "Diary"
    book.mkdir(parents=True)
    for n, im in enumerate(_ordinary(_notebook(), count), 1):
        im.save(book / f"{n:02}.jpg", quality=90)
    for name, im in extra.items():
        im.save(book / name, quality=90)
    return book


def _hints(plan: ImportPlan) -> dict[str, list[second_look.PageHint]]:
    (item,) = plan.items
    out: dict[str, list[second_look.PageHint]] = {}
    for found in second_look.page_hints(item):
        out.setdefault(found.file.removeprefix("shelf/"), []).append(found)
    return out


def _full(nb: labelled.Notebook, number: int = 40) -> Image.Image:
    return labelled.page(nb, number, labelled.Kind.FULL)


def test_each_hint_on_its_page_with_its_measure_in_words_and_none_on_the_others(
    tmp_path: Path,
) -> None:
    nb = _notebook()
    full = _full(nb)
    blank = labelled.page(nb, 41, labelled.Kind.BLANK)
    book = _book(
        tmp_path,
        {
            "20-blank.jpg": blank,
            "21-dark.jpg": Image.eval(full, lambda v: int(v * 0.3)),
            "22-light.jpg": Image.eval(full, lambda v: min(255, int(140 + v * 0.6))),
            "23-blurred.jpg": full.filter(ImageFilter.GaussianBlur(3)),
            "24-small.jpg": full.resize((300, 424)),
        },
    )
    hints = _hints(_looked(book.parent))
    said = {name: [h.hint for h in found] for name, found in hints.items()}
    assert said == {
        "Diary/20-blank.jpg": [Hint.BLANK],
        "Diary/21-dark.jpg": [Hint.TOO_DARK],
        "Diary/22-light.jpg": [Hint.TOO_LIGHT],
        "Diary/23-blurred.jpg": [Hint.BLURRED],
        "Diary/24-small.jpg": [Hint.TOO_SMALL],
    }
    words = {name: found[0].words for name, found in hints.items()}
    assert words["Diary/20-blank.jpg"] == "blank: nothing written on it"
    assert words["Diary/21-dark.jpg"].startswith("too dark: its brightest part is ")
    assert words["Diary/21-dark.jpg"].endswith(" % of white")
    assert words["Diary/22-light.jpg"].startswith("too light: its darkest strokes are ")
    assert words["Diary/23-blurred.jpg"].startswith(
        "blurred: much blurrier than the notebook's other pages (sharpness "
    )
    assert words["Diary/24-small.jpg"] == (
        "too small to read: 300 × 424 pixels, under half the size of the notebook's other "
        "pages (1170 pixels long)"
    )


def test_a_page_much_smaller_than_the_notebooks_others_is_too_small(tmp_path: Path) -> None:
    """A screenshot among scans: over the pixel floor, but under half the others' size."""
    nb = _notebook()
    big = [im.resize((im.width * 2, im.height * 2)) for im in _ordinary(nb, 4)]
    book = tmp_path / "shelf" / "Diary"
    book.mkdir(parents=True)
    for n, im in enumerate(big, 1):
        im.save(book / f"{n:02}.jpg", quality=85)
    _full(nb).resize((620, 877)).save(book / "05.jpg", quality=85)
    hints = _hints(_looked(book.parent))
    assert list(hints) == ["Diary/05.jpg"]
    (found,) = hints["Diary/05.jpg"]
    assert found.words == (
        "too small to read: 620 × 877 pixels, under half the size of the notebook's other "
        "pages (2340 pixels long)"
    )


def test_blank_pages_are_told_once_per_notebook_as_information_and_left_out_in_one_edit(
    tmp_path: Path,
) -> None:
    nb = _notebook()
    blanks = {f"3{k}.jpg": labelled.page(nb, 50 + k, labelled.Kind.BLANK) for k in range(3)}
    book = _book(tmp_path, blanks)
    plan = _looked(book.parent)
    report = validate(None, plan)
    # Information, kept apart from the problems: nothing that counts or resolves them meets it.
    assert not [p for p in report.problems if p.severity is ProblemSeverity.INFO]
    told = [p for p in report.information if p.code is ProblemCode.BLANK_PAGES]
    assert len(told) == 1
    (blank,) = told
    assert blank.severity is ProblemSeverity.INFO
    assert blank.message == (
        "3 blank pages, nothing written on them: "
        "shelf/Diary/30.jpg, shelf/Diary/31.jpg, shelf/Diary/32.jpg"
    )
    assert blank.hint == "order --leave-out-blank"
    assert report.to_json()["information"] == [blank.to_json()]
    (item,) = plan.items
    after = api.leave_out_blank(item)
    assert [s.name for s in after.sources if s.excluded] == ["30.jpg", "31.jpg", "32.jpg"]
    assert after.imported_page_count() == item.imported_page_count() - 3
    assert second_look.page_hints(after) == ()
    with pytest.raises(ValueError, match="has no blank page to leave out"):
        api.leave_out_blank(after)


def test_hints_switched_off_are_not_told(tmp_path: Path) -> None:
    nb = _notebook()
    book = _book(tmp_path, {"20.jpg": labelled.page(nb, 41, labelled.Kind.BLANK)})
    plan = _looked(book.parent)
    (item,) = plan.items
    assert [h.hint for h in second_look.page_hints(item)] == [Hint.BLANK]
    off = second_look.ALL_HINTS - {Hint.BLANK}
    assert second_look.page_hints(item, off) == ()
    assert validate(None, plan, hints=off).information == ()


def test_the_measures_ride_with_the_look_and_a_look_without_them_reads_as_before() -> None:
    nb = _notebook()
    seen = lookalike.seen_page(_full(nb).convert("L").reduce(2))
    kept = seen.kept()
    assert kept.startswith(lookalike.PREFIX) and page_measures.PREFIX in kept
    assert lookalike.look_from_hex(kept) == seen.look
    assert page_measures.from_look(kept) is not None
    bare = lookalike.look_to_hex(seen.look)
    assert page_measures.from_look(bare) is None and lookalike.look_from_hex(bare) == seen.look
    blank = lookalike.seen_page(labelled.page(nb, 3, labelled.Kind.BLANK)).kept()
    assert lookalike.is_blank(blank) and not lookalike.is_blank(kept)


@pytest.mark.slow
def test_no_more_than_one_in_a_hundred_ordinary_pages_of_the_labelled_set_gets_any_hint(
    tmp_path: Path,
) -> None:
    """The labelled set's notebooks (ruled, squared, plain; scanner and lamp light; eight
    hands), each a folder: its written pages are ordinary, and at most 1 % get any hint
    ("Turn it?" and too small by a recorded dpi included: validate's information, of the
    functions the grid's badges call too); its blank pages are each told blank."""
    chosen = labelled.labelled_set(20, per_light=3, rescans_per_page=0, seed=3)
    sheets = chosen.sheets + chosen.new_pages
    root = tmp_path / "shelf"
    names: dict[str, labelled.Sheet] = {}
    for sheet in sheets:
        folder = f"nb{sheet.notebook.seed}"
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / f"{sheet.number:02}.jpg").write_bytes(sheet.data)
        names[f"shelf/{folder}/{sheet.number:02}.jpg"] = sheet
    plan = _looked(root)
    # As validate tells them (its information: "Turn it?" included), by the files named.
    hinted: dict[str, list[ProblemCode]] = {}
    for told in validate(None, plan).information:
        for name in told.files:
            hinted.setdefault(name, []).append(ProblemCode(told.code))
    ordinary = [n for n, s in names.items() if s.kind is not labelled.Kind.BLANK]
    blank = [n for n, s in names.items() if s.kind is labelled.Kind.BLANK]
    wrong = {n: hinted[n] for n in ordinary if n in hinted}
    assert len(ordinary) >= 200
    assert len(wrong) <= 0.01 * len(ordinary), wrong
    assert all(hinted.get(n) == [ProblemCode.BLANK_PAGES] for n in blank)


def _turned_on_portrait(im: Image.Image, clockwise: bool) -> Image.Image:
    """``im`` turned a quarter (its lines of writing then run down), shrunk onto a portrait
    sheet of its own size: sideways by its writing, not by its shape."""
    turned = im.rotate(-90 if clockwise else 90, expand=True)
    turned = turned.resize((im.width, round(im.width * turned.height / turned.width)))
    sheet = Image.new("RGB", im.size, im.getpixel((5, 5)))
    sheet.paste(turned, (0, (im.height - turned.height) // 2))
    return sheet


def test_a_page_whose_writing_runs_down_is_asked_turn_it_with_the_likely_angle(
    tmp_path: Path,
) -> None:
    nb = _notebook()
    book = _book(
        tmp_path,
        {
            "20-cw.jpg": _turned_on_portrait(_full(nb, 40), clockwise=True),
            "21-acw.jpg": _turned_on_portrait(_full(nb, 41), clockwise=False),
        },
    )
    plan = _looked(book.parent)
    (item,) = plan.items
    by_name = {s.name: s.pages[0].page_id for s in item.sources}
    turns = api.sideways_turns(item)
    # Turned a quarter clockwise, it reads upright turned 270° (a quarter anticlockwise).
    assert turns == {
        by_name["20-cw.jpg"]: api.Sideways(Turn.THREE_QUARTERS, by_writing=True),
        by_name["21-acw.jpg"]: api.Sideways(Turn.QUARTER, by_writing=True),
    }
    assert api.sideways_words(turns[by_name["20-cw.jpg"]]) == (
        "its lines of writing run down the page. Turn it 90° anticlockwise?"
    )
    # Never turned without the person's word; once turned as said, no longer asked.
    assert all(p.turn is Turn.NONE for s in item.sources for p in s.pages)
    turned = api.turn_page_ids(item, {pid: s.turn for pid, s in turns.items() if s.turn})
    # Its writing now runs across (its shape, a portrait sheet turned, is another matter).
    assert second_look.writing_sideways(turned) == {}
    assert api.sideways_turns(item, second_look.ALL_HINTS - {Hint.SIDEWAYS}) == {}


def test_past_a_few_blank_pages_the_rest_are_counted_not_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """60 blank pages made a line of 60 paths in the window's Problems (#34): the line names
    ``BLANK_NAMED`` of them (two here) and counts the rest; ``files`` keeps them all."""
    monkeypatch.setattr(second_look, "BLANK_NAMED", 2)
    nb = _notebook()
    blanks = {f"3{k}.jpg": labelled.page(nb, 50 + k, labelled.Kind.BLANK) for k in range(3)}
    report = validate(None, _looked(_book(tmp_path, blanks).parent))
    (blank,) = [p for p in report.information if p.code is ProblemCode.BLANK_PAGES]
    assert blank.message == (
        "3 blank pages, nothing written on them: shelf/Diary/30.jpg, shelf/Diary/31.jpg and 1 more"
    )
    assert blank.files == ("shelf/Diary/30.jpg", "shelf/Diary/31.jpg", "shelf/Diary/32.jpg")


def test_a_page_recording_a_believable_resolution_is_judged_in_dpi(tmp_path: Path) -> None:
    """A file whose recorded resolution makes it a paper size is judged by it: under 150 dpi
    it is too small, whatever its neighbours; at 150 and more it is not, even when it is
    under half their size. A resolution that makes no paper size is no measure: the page is
    judged against its neighbours, as a page recording none is."""
    nb = _notebook()
    book = tmp_path / "shelf" / "Diary"
    book.mkdir(parents=True)
    # Scans twice the labelled set's size (no resolution recorded): 2340 pixels long.
    for n, im in enumerate(_ordinary(nb, 4), 1):
        im.resize((im.width * 2, im.height * 2)).save(book / f"{n:02}.jpg", quality=85)
    full = [_full(nb, n) for n in (40, 41, 42)]
    # An A5 page at 96 dpi (148 × 210 mm), an A6 one at 180 dpi (under half the others'
    # size, and readable), and a thumbnail saying 300 dpi (25 × 36 mm: no paper).
    full[0].resize((559, 794)).save(book / "05.jpg", quality=85, dpi=(96, 96))
    full[1].resize((744, 1049)).save(book / "06.jpg", quality=85, dpi=(180, 180))
    full[2].resize((300, 424)).save(book / "07.jpg", quality=85, dpi=(300, 300))
    plan = _looked(book.parent)
    (item,) = plan.items
    assert {s.name: s.provenance.dpi for s in item.sources}["05.jpg"] == 96.0
    hints = _hints(plan)
    assert sorted(hints) == ["Diary/05.jpg", "Diary/07.jpg"]
    assert [h.words for h in hints["Diary/05.jpg"]] == [
        "too small to read: about 96 dpi for an A5 page (559 × 794 pixels)"
    ]
    assert [h.words for h in hints["Diary/07.jpg"]] == [
        "too small to read: 300 × 424 pixels, about 1/6 of the size of the notebook's other "
        "pages (2340 pixels long)"
    ]
    # The recorded resolution rides with the plan, and reads back.
    again = plan_from_document(plan.to_document(), "plan.json")
    assert again.items[0].sources == item.sources


@pytest.mark.parametrize(
    ("save", "dpi"),
    [
        ({"format": "JPEG", "dpi": (96, 96)}, 96.0),  # JFIF, per inch
        ({"format": "PNG", "dpi": (300, 300)}, 300.0),  # pHYs, per metre
        ({"format": "TIFF", "dpi": (600, 600)}, 600.0),
        ({"format": "JPEG"}, None),  # JFIF without a unit: the pixels' shape only
        ({"format": "PNG"}, None),
        ({"format": "JPEG", "dpi": (300, 150)}, None),  # pixels not square: no measure
    ],
)
def test_the_scan_keeps_the_resolution_a_file_records_and_only_that(
    tmp_path: Path, save: dict[str, object], dpi: float | None
) -> None:
    path = tmp_path / f"page.{str(save['format']).lower()}"
    Image.new("RGB", (120, 170), "white").save(path, **save)  # type: ignore[arg-type]
    assert probe(path).dpi == dpi


def test_a_jpeg_recording_its_resolution_in_exif_only_is_read_there(tmp_path: Path) -> None:
    exif = Image.Exif()
    exif[ExifTags.Base.XResolution] = 118.11  # per centimetre: 300 dpi
    exif[ExifTags.Base.YResolution] = 118.11
    exif[ExifTags.Base.ResolutionUnit] = 3
    path = tmp_path / "photo.jpg"
    Image.new("RGB", (120, 170), "white").save(path, exif=exif, jfif=False)
    assert probe(path).dpi == 300.0


def test_turn_it_is_validates_information_with_the_likely_turn_as_its_answer(
    tmp_path: Path,
) -> None:
    """A page whose writing runs down is told as information with its likely turn, which
    ``turn_as_hinted`` takes (one edit); a page sideways by its shape alone is offered both
    quarters; nothing else is a turn."""
    nb = _notebook()
    # Written, turned a quarter anticlockwise: its writing says 90° clockwise sets it right.
    written = _full(nb, 40).rotate(90, expand=True)
    # Blank and landscape among portrait pages: its shape says sideways, nothing says which way.
    blank = labelled.page(nb, 41, labelled.Kind.BLANK).rotate(90, expand=True)
    book = _book(tmp_path, {"20.jpg": written, "21.jpg": blank})
    plan = _looked(book.parent)
    (item,) = plan.items
    told = {
        p.files[0]: p for p in validate(None, plan).information if p.code is ProblemCode.SIDEWAYS
    }
    assert sorted(told) == ["shelf/Diary/20.jpg", "shelf/Diary/21.jpg"]
    by_writing, by_shape = told["shelf/Diary/20.jpg"], told["shelf/Diary/21.jpg"]
    assert by_writing.severity is ProblemSeverity.INFO
    assert by_writing.message == (
        "shelf/Diary/20.jpg: its lines of writing run down the page. Turn it 90° clockwise?"
    )
    assert by_writing.resolutions == (Resolution.TURN_CLOCKWISE,)
    assert by_writing.hint == 'order --turn "shelf/Diary/20.jpg" 90'
    assert by_shape.message == (
        "shelf/Diary/21.jpg: its long side runs across the notebook's other pages. Turn it?"
    )
    assert by_shape.resolutions == (Resolution.TURN_CLOCKWISE, Resolution.TURN_ANTICLOCKWISE)
    turned = api.turn_as_hinted(item, by_writing.files[0], Resolution.TURN_CLOCKWISE)
    turns = {s.name: s.pages[0].turn for s in turned.sources}
    assert turns["20.jpg"] is Turn.QUARTER and turns["21.jpg"] is Turn.NONE
    # Turned as said, it is asked about no more; the other still is.
    page_ids = {s.name: s.pages[0].page_id for s in item.sources}
    assert second_look.sideways_turns(turned).keys() == {page_ids["21.jpg"]}
    with pytest.raises(ValueError, match="does not turn a page"):
        api.turn_as_hinted(item, by_writing.files[0], Resolution.LEAVE_OUT_BLANK)


# The labelled set's written kinds; a few words and more say which way they read, a date
# line alone or a page number cannot (second_look.likely_turn).
_SAY_ANGLE = (labelled.Kind.FULL, labelled.Kind.HALF, labelled.Kind.FEW_WORDS)
_SPARSE = (labelled.Kind.DATE, labelled.Kind.NUMBER)


@pytest.mark.slow
def test_turn_it_never_names_a_wrong_angle_on_the_labelled_set(tmp_path: Path) -> None:
    """Pages of the labelled set's six notebooks (ruled, squared, plain; scanner and lamp;
    their hands), each kind turned a quarter both ways, in a landscape file among upright
    portrait pages and shrunk onto a portrait sheet: no "Turn it?" names a wrong angle. Full,
    half and few-word pages in a landscape file all get theirs (72 of 72); a date line alone
    or a page number is offered both turns, which way up being the person's to see."""
    root = tmp_path / "shelf"
    truth: dict[str, tuple[labelled.Kind, str, Turn]] = {}
    for nb in labelled.notebooks(per_light=3, seed=3):
        book = root / f"nb{nb.seed}"
        book.mkdir(parents=True)
        for n, im in enumerate(_ordinary(nb, 4), 1):
            im.save(book / f"{n:02}.jpg", quality=90)
        for kind in (*_SAY_ANGLE, *_SPARSE):
            for number in (7, 8):
                im = labelled.page(nb, number, kind)
                for clockwise, upright in ((True, Turn.THREE_QUARTERS), (False, Turn.QUARTER)):
                    way = "cw" if clockwise else "acw"
                    for form, made in (
                        ("landscape", im.rotate(-90 if clockwise else 90, expand=True)),
                        ("portrait", _turned_on_portrait(im, clockwise)),
                    ):
                        name = f"{kind.name}-{number}-{way}-{form}.jpg"
                        made.save(book / name, quality=90)
                        truth[f"{book.name}/{name}"] = (kind, form, upright)
    plan = _looked(root)
    asked: dict[str, api.Sideways] = {}
    for item in plan.items:
        ids = {p.page_id: f"{item.title}/{s.name}" for s in item.sources for p in s.pages}
        found = api.sideways_turns(item)
        asked.update({ids[pid]: sideways for pid, sideways in found.items()})
    said = {name: s.turn for name, s in asked.items() if s.turn is not None}
    assert not [n for n in asked if n not in truth]  # no upright page is asked about
    wrong = {n: turn for n, turn in said.items() if turn is not truth[n][2]}
    assert wrong == {}
    landscape_said = [
        n for n, (kind, form, _t) in truth.items() if kind in _SAY_ANGLE and form == "landscape"
    ]
    assert len(landscape_said) == 72
    assert all(n in said for n in landscape_said)
    sparse = [n for n, (kind, _f, _t) in truth.items() if kind in _SPARSE]
    # A page number is never given an angle, a date line only when it lies clearly at one
    # side (and then rightly, above).
    numbers = [n for n in sparse if truth[n][0] is labelled.Kind.NUMBER]
    assert not [n for n in numbers if n in said]
    weak = next(asked[n] for n in sparse if n in asked and asked[n].by_writing)
    assert api.sideways_words(weak) == (
        "its writing runs down the page, too little of it to tell which way up: "
        "which way reads upright is yours to see. Turn it?"
    )


def test_the_angle_is_said_only_where_the_writing_says_which_way_it_reads() -> None:
    """``likely_turn`` on measures taken from the labelled set's pages turned a quarter
    clockwise (270° sets them upright): a full page and a few words say it; a date line
    across the middle and a page number in its corner do not (they lie where they were
    written, and the share of ink at the top named the wrong angle for them)."""

    def measures(rows: float, columns: float, lead: float) -> page_measures.Measures:
        return page_measures.Measures(230, 40, 1.0, rows, columns, lead)

    assert second_look.likely_turn(measures(0.22, 1.19, 0.53)) is Turn.THREE_QUARTERS  # full
    assert second_look.likely_turn(measures(2.09, 4.93, 0.82)) is Turn.THREE_QUARTERS  # few
    assert second_look.likely_turn(measures(3.65, 8.22, 0.43)) is None  # a date line
    assert second_look.likely_turn(measures(3.45, 6.5, 0.44)) is None  # one, a little fuller
    assert second_look.likely_turn(measures(14.34, 22.61, 0.0)) is None  # a page number
    assert second_look.likely_turn(measures(7.73, 6.71, 1.0)) is None  # a page number
