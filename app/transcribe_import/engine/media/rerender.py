"""A lost page render made again, only by a renderer that gives the bytes project.json records.

Renders are deterministic for a given renderer, not across renderers: libvips and Pillow (or
two versions of one, or two revisions of this app's pipeline on libvips) give other bytes for
the same page. So a render is made again by the engine its record names
(``storage.project.RENDERER``), and a libvips render by the revision its name gives
(``render_vips.revision_of``; the current one when this app has not that revision); one that
names none was made before renderers were recorded, by Pillow, or copied from a bag, by
either: Pillow and each revision are tried. The bytes are kept only when their sha256 is the
recorded one; otherwise the answer says, in words for doctor's finding, why it cannot be done.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.media import render_vips
from transcribe_import.engine.media.kinds import RenderSettings, Turn
from transcribe_import.engine.media.render import RenderEngine, engine_of, render_pages
from transcribe_import.engine.storage import fsio, project


@dataclass(frozen=True)
class RenderAgain:
    """A render made again with its recorded bytes (``png``), or why not (``why_not``)."""

    png: bytes | None
    source: Path | None  # the notebook's copy of the page's source, when there is one
    why_not: str = ""


def render_again(nb_dir: Path, page: dict[str, Any], manifest: dict[str, Any]) -> RenderAgain:
    """Page ``page``'s render (a record of ``manifest``) made again from the notebook's source.

    At the size it was (its longest side as the cap), so the same renderer gives the same
    bytes. Nothing is written here: doctor writes ``png`` under the notebook's lock.
    """
    source = next(
        (
            s
            for s in manifest["sources"]
            if isinstance(s, dict) and s.get("id") == page.get("source_id")
        ),
        None,
    )
    if source is None or not isinstance(source.get("path"), str):
        return RenderAgain(None, None, "project.json lists no source for its page")
    src = nb_dir / str(source["path"])
    render = page.get("render") or {}
    sha = render.get("sha256")
    try:
        side = max(int(render.get("width") or 0), int(render.get("height") or 0))
    except (TypeError, ValueError):
        side = 0
    if side <= 0 or not isinstance(sha, str):
        return RenderAgain(None, src, "project.json does not give its size and sha256")
    if not fsio.is_file(src):
        return RenderAgain(None, src, f"the notebook's copy of its source ({src}) is missing")
    recorded = project.renderer_of(page)
    index = int(page.get("page_index") or 0)
    turn = Turn(project.turn_of(page))  # made turned, so made again turned
    made_by: list[str] = []
    for engine, revision in _renderers(recorded):
        try:
            (got,) = render_pages(
                src,
                str(source.get("media_type")),
                [index],
                RenderSettings(max_side=side, libvips_revision=revision),
                display_path=str(src),
                engine=engine,
                turns={index: turn},
            )
        except (OSError, TranscribeError, ValueError, TypeError) as exc:
            return RenderAgain(None, src, f"its source ({src}) cannot be rendered: {exc}")
        if got.sha256 == sha:
            return RenderAgain(got.png, src)
        if got.renderer not in made_by:  # without libvips, Pillow renders every try
            made_by.append(got.renderer)
    was = recorded or "an earlier version of this app (it did not record its renderer)"
    return RenderAgain(
        None,
        src,
        f"it was rendered by {was}, and rendering its source again here with "
        f"{' or '.join(made_by)} gives other bytes than the sha256 project.json records",
    )


def _renderers(recorded: str | None) -> list[tuple[RenderEngine, int | None]]:
    """Who may give a render's bytes again, from its recorded renderer: (engine, the revision
    of libvips' pipeline, None for the current one)."""
    if recorded is None:
        revisions = sorted(render_vips.PNG_SETTINGS, reverse=True)
        return [(RenderEngine.PILLOW, None), *((RenderEngine.LIBVIPS, r) for r in revisions)]
    engine = engine_of(recorded)
    if engine is RenderEngine.LIBVIPS:
        return [(engine, render_vips.revision_of(recorded))]
    return [(engine, None)]
