"""Renders record their renderer; doctor makes a lost one again only with the recorded bytes.

Commits render deterministically (two corpora, and a paused then resumed commit against an
unbroken one: the same bytes); a render an earlier version
made with Pillow, recorded without a renderer, is still verified and rendered again by
doctor; so is one an earlier revision of the libvips pipeline made (revision 2, Paeth-filtered
PNGs), remade by that revision; one no renderer here can make again is told plainly, never as a
hash failure.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import PIL
import pytest

from transcribe_import.engine.base.findings import FindingCode
from transcribe_import.engine.doctor import doctor
from transcribe_import.engine.ingest import staging
from transcribe_import.engine.ingest.checkpoints import CHECKPOINT_PAGES
from transcribe_import.engine.media import render_vips
from transcribe_import.engine.media.kinds import RenderSettings
from transcribe_import.engine.media.render import RenderedPage, RenderEngine, render_pages
from transcribe_import.engine.runs.executor import RunControl, execute_run
from transcribe_import.engine.runs.model import RunStatus
from transcribe_import.engine.runs.service import prepare_run
from transcribe_import.engine.storage.corpus import Corpus

import media_factory as mf
from helpers.runs import commit_plan, plan_for
from helpers.shelves import make_pages


def _shelf(root: Path) -> Path:
    make_pages(root / "notes", 2)  # JPEG
    make_pages(root / "notes", 1, name="page {i}.png", start=3, tag="png")
    mf.make_pdf(root / "notes" / "page 4.pdf", 2)
    return root


def _committed(data_dir: Path, shelf: Path) -> tuple[Corpus, Path, dict[str, Any]]:
    corpus = Corpus.open(data_dir)
    assert commit_plan(corpus, plan_for(corpus, shelf)).status is RunStatus.COMPLETE
    (nb_dir,) = corpus.notebooks_dir.glob("[!.]*")
    return corpus, nb_dir, json.loads((nb_dir / "project.json").read_bytes())


def _source(nb_dir: Path, doc: dict[str, Any], page: dict[str, Any]) -> dict[str, Any]:
    return next(s for s in doc["sources"] if s["id"] == page["source_id"])


def _codes(corpus: Corpus, **kw: Any) -> dict[FindingCode, list[str]]:
    found: dict[FindingCode, list[str]] = {}
    for f in doctor(corpus, **kw).findings:
        found.setdefault(f.code, []).append(f.message)
    return found


def test_renders_record_their_renderer_and_are_the_same_bytes_in_two_corpora(
    tmp_path: Path,
) -> None:
    shelf = _shelf(tmp_path / "shelf")
    _, _, one = _committed(tmp_path / "one", shelf)
    _, _, two = _committed(tmp_path / "two", shelf)
    vips = render_vips.version()
    renderers = {}
    for page in one["pages"]:
        media_type = _source(tmp_path, one, page)["media_type"]
        renderers[media_type] = page["render"]["renderer"]
    assert renderers["image/jpeg"] == renderers["image/png"] == vips
    assert renderers["application/pdf"].startswith(f"{vips}, pdfium ")
    made = [{**p["render"], "path": None} for p in one["pages"]]  # the ids are each run's
    assert made == [{**p["render"], "path": None} for p in two["pages"]]


def test_doctor_renders_a_lost_render_again_with_its_recorded_bytes(data_dir: Path) -> None:
    corpus, nb_dir, doc = _committed(data_dir, _shelf(data_dir.parent / "shelf"))
    kept = {p["render"]["path"]: (nb_dir / p["render"]["path"]).read_bytes() for p in doc["pages"]}
    for rel in kept:
        (nb_dir / rel).unlink()
    found = _codes(corpus)
    assert len(found[FindingCode.FILE_RESTORED]) == len(kept)
    assert all("rendered again" in m for m in found[FindingCode.FILE_RESTORED])
    assert {rel: (nb_dir / rel).read_bytes() for rel in kept} == kept
    assert FindingCode.FILE_MISSING not in found


def _made_again(
    nb_dir: Path,
    doc: dict[str, Any],
    page: dict[str, Any],
    engine: RenderEngine = RenderEngine.LIBVIPS,
    **settings: Any,
) -> RenderedPage:
    """The page rendered again from its source at its recorded size, as ``settings`` say."""
    source = _source(nb_dir, doc, page)
    side = max(page["render"]["width"], page["render"]["height"])
    how = RenderSettings(max_side=side, **settings)
    pages = [page["page_index"]]
    (made,) = render_pages(nb_dir / source["path"], source["media_type"], pages, how, engine=engine)
    return made


def _assert_lost_renders_remade_as_they_were(
    corpus: Corpus, nb_dir: Path, doc: dict[str, Any]
) -> None:
    """Every render deleted: doctor makes each again, byte for byte, and says so."""
    kept = {p["render"]["path"]: (nb_dir / p["render"]["path"]).read_bytes() for p in doc["pages"]}
    for rel in kept:
        (nb_dir / rel).unlink()
    found = _codes(corpus)
    assert len(found[FindingCode.FILE_RESTORED]) == len(kept)
    assert {rel: (nb_dir / rel).read_bytes() for rel in kept} == kept
    assert _codes(corpus, verify_hashes=True) == {}


def test_a_render_pillow_made_before_renderers_were_recorded_is_still_verified_and_remade(
    data_dir: Path,
) -> None:
    corpus, nb_dir, doc = _committed(data_dir, _shelf(data_dir.parent / "shelf"))
    # Every render as the previous version made it: by Pillow, with no renderer recorded.
    for page in doc["pages"]:
        old = _made_again(nb_dir, doc, page, engine=RenderEngine.PILLOW)
        assert old.renderer.startswith(f"Pillow {PIL.__version__}")
        (nb_dir / page["render"]["path"]).write_bytes(old.png)
        page["render"]["sha256"] = old.sha256
        del page["render"]["renderer"]
    (nb_dir / "project.json").write_text(json.dumps(doc))
    assert _codes(corpus, verify_hashes=True) == {}  # verified: nothing to say

    _assert_lost_renders_remade_as_they_were(corpus, nb_dir, doc)


@pytest.mark.parametrize("recorded", ["revision 2", "revision 1", "none"])
def test_a_render_of_revision_2_is_remade_by_revision_2_with_its_recorded_bytes(
    data_dir: Path, recorded: str
) -> None:
    corpus, nb_dir, doc = _committed(data_dir, _shelf(data_dir.parent / "shelf"))
    # Every render as the previous revision made it: Paeth-filtered, named "(render 2)"; or
    # named as revision 1 named its renders (no revision: its PNG was revision 2's, so
    # revision 2 is tried); or copied from a bag that recorded no renderer (each is tried).
    for page in doc["pages"]:
        old = _made_again(nb_dir, doc, page, libvips_revision=2)
        assert old.renderer.startswith(render_vips.version(2))
        assert old.sha256 != page["render"]["sha256"]  # revision 3 made other bytes
        (nb_dir / page["render"]["path"]).write_bytes(old.png)
        page["render"]["sha256"] = old.sha256
        if recorded == "revision 2":
            page["render"]["renderer"] = old.renderer
        elif recorded == "revision 1":
            page["render"]["renderer"] = old.renderer.replace(" (render 2)", "")
        else:
            del page["render"]["renderer"]
    (nb_dir / "project.json").write_text(json.dumps(doc))
    assert _codes(corpus, verify_hashes=True) == {}

    _assert_lost_renders_remade_as_they_were(corpus, nb_dir, doc)


@pytest.mark.parametrize(
    "renderer, tried",
    [
        # Another libvips, revision 1 (no revision named): revision 2 has its PNG settings.
        ("libvips 7.0.0", 2),
        # A later revision than this app has: the current one is tried, and says so.
        ("libvips 8.18.7 (render 99)", None),
    ],
)
def test_a_render_no_renderer_here_makes_again_is_told_plainly_not_as_a_hash_failure(
    data_dir: Path, renderer: str, tried: int | None
) -> None:
    corpus, nb_dir, doc = _committed(data_dir, _shelf(data_dir.parent / "shelf"))
    page = doc["pages"][0]
    # As if another libvips had made it: its bytes are not the ones libvips here gives.
    page["render"]["renderer"] = renderer
    page["render"]["sha256"] = "0" * 64
    (nb_dir / "project.json").write_text(json.dumps(doc))
    (nb_dir / page["render"]["path"]).unlink()

    found = _codes(corpus, verify_hashes=True)
    assert set(found) == {FindingCode.FILE_MISSING}
    (message,) = found[FindingCode.FILE_MISSING]
    assert page["render"]["path"] in message
    assert f"it was rendered by {renderer}, and" in message
    assert f"again here with {render_vips.version(tried)} gives other bytes" in message
    assert "doctor --restore-from" in message  # what to do: restore it from a backup
    # ...a command for a terminal, which the finding carries typed (the window says so).
    [missing] = [f for f in doctor(corpus).findings if f.code is FindingCode.FILE_MISSING]
    assert missing.command is not None and missing.command.endswith(" --restore-from BACKUP")
    assert f"`{missing.command}`" in missing.message
    assert not (nb_dir / page["render"]["path"]).exists()  # nothing else written there


def test_renders_after_a_pause_and_resume_are_the_bytes_of_an_unbroken_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shelf = tmp_path / "shelf"
    make_pages(shelf / "Register", CHECKPOINT_PAGES + 8, size=(120, 160))
    make_pages(shelf / "Register", 2, name="page {i}.png", start=100, size=(900, 700), tag="p")
    _, _, unbroken = _committed(tmp_path / "unbroken", shelf)

    corpus = Corpus.open(tmp_path / "resumed")
    plan = plan_for(corpus, shelf)
    record, _ = prepare_run(corpus, plan)
    control = RunControl()
    real = staging.rendering.render_pages
    made = [0]

    def pausing(*args: Any, **kw: Any) -> Any:
        for page in real(*args, **kw):
            made[0] += 1
            # Inside the first checkpoint: a pause lets a nearly staged checkpoint land
            # (ingest/checkpoints.py), then stops before the next one.
            if made[0] == 4:
                control.pause()
            yield page

    monkeypatch.setattr(staging.rendering, "render_pages", pausing)
    paused = execute_run(corpus, record.run_id, control=control, workers=1)
    assert paused.status is RunStatus.RUNNING  # paused with the first checkpoint landed
    monkeypatch.setattr(staging.rendering, "render_pages", real)
    assert execute_run(corpus, record.run_id, workers=2).status is RunStatus.COMPLETE
    (nb_dir,) = corpus.notebooks_dir.glob("[!.]*")
    resumed = json.loads((nb_dir / "project.json").read_bytes())

    def renders(doc: dict[str, Any]) -> list[tuple[str, str, int, int, str]]:
        return [
            (
                next(s for s in doc["sources"] if s["id"] == p["source_id"])["sha256"],
                p["render"]["sha256"],
                p["render"]["width"],
                p["render"]["height"],
                p["render"]["renderer"],
            )
            for p in doc["pages"]
        ]

    assert sorted(renders(resumed)) == sorted(renders(unbroken))
    assert len(renders(resumed)) == CHECKPOINT_PAGES + 10
