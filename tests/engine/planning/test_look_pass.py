"""The look pass: JPEG and PDF pages get their looks after the plan, each the look its file has."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from transcribe_import.engine.media import lookalike
from transcribe_import.engine.planning import inks, look_pass, ordering, page_edits
from transcribe_import.engine.planning.lookalikes import page_key
from transcribe_import.engine.planning.plan import ImportPlan, PageRef
from transcribe_import.engine.planning.planner import build_plan
from transcribe_import.engine.planning.scan import run_scan

from helpers.lookalike_set import notebook_scan, save_jpeg
from media_factory import make_png


def _shelf(root: Path) -> Path:
    book = root / "Diary"
    book.mkdir(parents=True)
    for k in (1, 2, 3):
        save_jpeg(notebook_scan(k), book / f"{k:02}.jpg")
    scans = [notebook_scan(k) for k in (4, 5)]
    scans[0].save(book / "04.pdf", "PDF", resolution=150, save_all=True, append_images=scans[1:])
    make_png(book / "06.png", label="six")
    return book


def _plan(book: Path) -> ImportPlan:
    return build_plan(None, run_scan([book.parent]))


def _looks_by_name(plan: ImportPlan) -> dict[str, tuple[str | None, ...]]:
    return {
        s.name: tuple(p.look for p in (*s.pages, *s.left_out))
        for item in plan.items
        for s in item.sources
    }


def _run(plan: ImportPlan, **kw: object) -> tuple[dict[str, str | None], list, bool]:
    found: dict[str, str | None] = {}
    reports = []
    passing = look_pass.make_looks(look_pass.pending(plan), **kw)  # type: ignore[arg-type]
    while True:
        try:
            made = next(passing)
        except StopIteration as end:
            return found, reports, end.value
        reports.append(made)
        found.update(made.looks)


def test_the_scan_leaves_jpeg_and_pdf_looks_to_the_pass_which_makes_each_files_own(
    tmp_path: Path,
) -> None:
    book = _shelf(tmp_path / "shelf")
    plan = _plan(book)
    before = _looks_by_name(plan)
    # The scan made the PNG's look from its check's decode; the JPEGs' and the PDF's wait.
    assert before["06.png"][0] is not None
    assert before["01.jpg"] == (None,) and before["04.pdf"] == (None, None)
    jobs = look_pass.pending(plan)
    assert sorted(j.path.name for j in jobs) == ["01.jpg", "02.jpg", "03.jpg", "04.pdf"]
    assert sum(j.pages for j in jobs) == 5

    found, reports, finished = _run(plan, workers=2)
    assert finished and reports[-1].finished
    assert reports[-1].pages_done == reports[-1].pages_total == 5
    stamped = look_pass.with_looks(plan, found)
    after = _looks_by_name(stamped)
    for name in ("01.jpg", "02.jpg", "03.jpg"):
        path = book / name
        assert after[name] == lookalike.page_looks(path, "image/jpeg", 1, size=path.stat().st_size)
        assert after[name][0] is not None
    pdf = book / "04.pdf"
    assert after["04.pdf"] == lookalike.page_looks(
        pdf, "application/pdf", 2, size=pdf.stat().st_size
    )
    assert after["06.png"] == before["06.png"]  # the scan's own look is kept
    # Nothing left to look at; stamping again changes nothing (the same plan object).
    assert look_pass.pending(stamped) == ()
    assert look_pass.with_looks(stamped, found) is stamped
    assert stamped.fingerprint != plan.fingerprint  # a look lands: it is fingerprinted


def test_looks_follow_their_pages_through_edits_and_onto_pages_left_out(tmp_path: Path) -> None:
    book = _shelf(tmp_path / "shelf")
    plan = _plan(book)
    [item] = plan.items
    edited = plan.with_item(page_edits.leave_out_pages(item, [PageRef("04.pdf", 1)]))
    found, _reports, _ = _run(plan)
    stamped = look_pass.with_looks(edited, found)
    [after] = stamped.items
    source = next(s for s in after.sources if s.name == "04.pdf")
    assert [p.look for p in source.left_out] == [found[page_key(source.sha256, 0)]]
    assert [p.look for p in source.pages] == [found[page_key(source.sha256, 1)]]
    # An item stamped alone is the same as in the whole plan.
    assert look_pass.item_with_looks(edited.items[0], found) == after


def test_a_file_changed_since_the_scan_gets_no_look_and_the_pass_goes_on(tmp_path: Path) -> None:
    book = _shelf(tmp_path / "shelf")
    plan = _plan(book)
    save_jpeg(notebook_scan(9), book / "02.jpg")  # another page under the same name
    (book / "03.jpg").unlink()
    found, _reports, finished = _run(plan)
    assert finished
    by_name = _looks_by_name(look_pass.with_looks(plan, found))
    assert by_name["02.jpg"] == (None,) and by_name["03.jpg"] == (None,)
    assert by_name["01.jpg"][0] is not None
    # Tried: a window does not ask again for them (``known``).
    assert look_pass.pending(plan, known=found.keys()) == ()


def test_a_stop_ends_the_pass_between_files_and_says_so(tmp_path: Path) -> None:
    book = _shelf(tmp_path / "shelf")
    plan = _plan(book)
    stop = threading.Event()
    stop.set()
    found, _reports, finished = _run(plan, workers=1, should_stop=stop.is_set)
    assert not finished
    # At most the files already started were looked at, and each of those whole.
    assert len(found) < 5


def test_the_files_the_commit_imports_are_looked_at_first_each_file_once(tmp_path: Path) -> None:
    book = _shelf(tmp_path / "shelf")
    copies = tmp_path / "shelf" / "Copies"
    copies.mkdir()
    save_jpeg(notebook_scan(2), copies / "02-again.jpg")  # the bytes of Diary/02.jpg
    plan = _plan(book)
    diary = next(it for it in plan.items if it.label == "Diary")
    excluded = plan.with_item(ordering.exclude(diary, ["01.jpg"]))
    names = [j.path.name for j in look_pass.pending(excluded)]
    # 02.jpg and its copy are one file's bytes: one job; the file left out comes last.
    assert len(names) == 4 and names[-1] == "01.jpg"
    assert len({"02.jpg", "02-again.jpg"} & set(names)) == 1


def test_stamps_rebuild_only_the_items_holding_the_files_looked_at_as_a_walk_would(
    tmp_path: Path,
) -> None:
    book = _shelf(tmp_path / "shelf")
    copies = tmp_path / "shelf" / "Copies"
    copies.mkdir()
    save_jpeg(notebook_scan(2), copies / "02-again.jpg")  # the bytes of Diary/02.jpg
    other = tmp_path / "shelf" / "Other"
    other.mkdir()
    save_jpeg(notebook_scan(7), other / "07.jpg")
    plan = _plan(book)
    by_label = {it.label: it for it in plan.items}
    found, _reports, _ = _run(plan)
    diary_sha = {s.name: s.sha256 for s in by_label["Diary"].sources}
    first = {k: v for k, v in found.items() if k.startswith(diary_sha["02.jpg"])}
    stamps = look_pass.LookStamps(plan)

    # One file's look: the two items holding its bytes, no other, each before and after.
    changed = stamps.stamp(first)
    assert set(changed) == {by_label["Diary"].item_id, by_label["Copies"].item_id}
    for item_id, (before, after) in changed.items():
        assert before is plan.item(item_id)
        assert after == look_pass.item_with_looks(before, first)
    # The rest: each item from where the last stamp left it; the same looks again: nothing.
    rest = {k: v for k, v in found.items() if k not in first}
    more = stamps.stamp(rest)
    assert more[by_label["Diary"].item_id][0] is changed[by_label["Diary"].item_id][1]
    assert by_label["Copies"].item_id not in more
    assert stamps.stamp(rest) == {}
    # Put in the plan, the items are what stamping the whole plan gives.
    items = {**{k: v[1] for k, v in changed.items()}, **{k: v[1] for k, v in more.items()}}
    stamped = plan
    for after in items.values():
        stamped = stamped.with_item(after)
    assert stamped == look_pass.with_looks(plan, found)


def test_blank_pages_are_counted_per_notebook_and_never_asked_about(tmp_path: Path) -> None:
    """A blank page's look says it is blank: counted once per notebook as information, and
    two blank pages are no rescan question, whatever their paper."""
    from PIL import Image

    from transcribe_import.engine import api
    from transcribe_import.engine.planning import lookalikes

    book = tmp_path / "shelf" / "Diary"
    book.mkdir(parents=True)
    save_jpeg(notebook_scan(1), book / "01.jpg")
    for k, shade in ((2, 244), (3, 238), (4, 250)):
        Image.new("RGB", (620, 877), (shade, shade - 6, shade - 20)).save(book / f"0{k}.jpg")
    plan = _plan(book)
    found, _reports, done = _run(plan)
    assert done
    plan = look_pass.with_looks(plan, found)
    (item,) = plan.items
    assert api.blank_pages(plan) == {item.item_id: 3}
    assert lookalikes.find(None, plan) == []


def test_a_large_pass_runs_in_worker_processes_with_the_same_looks_in_the_same_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    book = _shelf(tmp_path / "shelf")
    plan = _plan(book)
    threaded, threaded_reports, _ = _run(plan, workers=2)
    # Every pass a process pass, a file a task: the order of the looks is the jobs' order
    # however the two workers' tasks interleave.
    monkeypatch.setattr(look_pass, "PROCESSES_FROM", 1)
    monkeypatch.setattr(look_pass, "CHUNK_PAGES", 1)
    found, reports, finished = _run(plan, workers=2)
    assert finished and reports[-1].finished and reports[-1].pages_done == 5
    assert found == threaded
    jobs = look_pass.pending(plan)
    order = [page_key(j.sha256, i) for j in jobs for i in j.page_indexes]
    assert list(found) == order == [k for r in threaded_reports for k in r.looks]


def test_a_process_pass_sends_its_inks_back_as_a_thread_pass_keeps_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The verifications after a pass in worker processes decode no page again: each page's
    ink (a sparse page's written part with it) is kept here as a pass on threads keeps it."""
    from PIL import Image, ImageDraw

    book = _shelf(tmp_path / "shelf")
    date = Image.new("RGB", (620, 877), (244, 238, 222))
    ImageDraw.Draw(date).text((80, 90), "Tuesday 4 March 1931", fill=(30, 30, 60))
    save_jpeg(date, book / "07.jpg")  # a sparse page: its written part at 2048 px too
    plan = _plan(book)
    keys = [page_key(j.sha256, i) for j in look_pass.pending(plan) for i in j.page_indexes]

    def kept() -> dict[str, tuple[bytes, bytes | None]]:
        with inks._lock:
            return {k: (v.pixels, v.detail) for k, v in inks._inks.items() if k in keys and v}

    inks.forget()
    _run(plan, workers=2)
    threaded = kept()
    assert len(threaded) == len(keys) and any(d is not None for _p, d in threaded.values())
    inks.forget()
    monkeypatch.setattr(look_pass, "PROCESSES_FROM", 1)
    _run(plan, workers=2)
    assert kept() == threaded
    inks.forget()


def test_a_stop_ends_a_process_pass_with_the_looks_of_the_tasks_begun(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    book = _shelf(tmp_path / "shelf")
    plan = _plan(book)
    monkeypatch.setattr(look_pass, "PROCESSES_FROM", 1)
    monkeypatch.setattr(look_pass, "CHUNK_PAGES", 1)
    asked = 0

    def after_the_first() -> bool:
        nonlocal asked
        asked += 1
        return asked > 1

    found, reports, finished = _run(plan, workers=2, should_stop=after_the_first)
    assert not finished
    # Two tasks a worker were handed out before the stop: those begun were finished, those
    # not begun were dropped, and no look of a task never handed out was made.
    assert 1 <= len(found) <= 4 and reports[-1].pages_done == len(found)
    assert all(lookalike.is_current(look) for look in found.values())


def test_a_pass_where_no_process_can_be_started_runs_on_threads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    book = _shelf(tmp_path / "shelf")
    plan = _plan(book)
    threaded, _reports, _ = _run(plan, workers=2)
    monkeypatch.setattr(look_pass, "PROCESSES_FROM", 1)

    def no_semaphores(*_args: object, **_kw: object) -> None:
        raise OSError(38, "Function not implemented")  # what sem_open says in some sandboxes

    monkeypatch.setattr(look_pass, "ProcessPoolExecutor", no_semaphores)
    found, reports, finished = _run(plan, workers=2)
    assert finished and reports[-1].pages_done == 5
    assert found == threaded
