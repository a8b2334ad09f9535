"""Drafts: a plan under review the window keeps in ``import-runs/drafts/``, as it changes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from transcribe_import.engine.planning.plan import ImportPlan
from transcribe_import.engine.storage.corpus import Corpus


@dataclass(frozen=True)
class Draft:
    """A plan under review the window kept in ``import-runs/drafts/<plan_id>.json``.

    ``problem``: why it cannot be opened (damaged, from an older app); it is still listed,
    so that a person can discard it knowingly.
    """

    plan_id: str
    path: Path
    saved_at: float  # the file's mtime, seconds since the epoch
    notebooks: int
    pages: int
    problem: str | None = None


def _draft_path(corpus: Corpus, plan_id: str) -> Path:
    from transcribe_import.engine.base.ids import check_id
    from transcribe_import.engine.planning.edits import drafts_dir

    return drafts_dir(corpus) / f"{check_id(plan_id, 'plan_id')}.json"


def save_draft(corpus: Corpus, plan: ImportPlan) -> Path:
    """Keep ``plan`` as a draft, crash-safely (an atomic replace): the same document as
    ``plan -o`` writes, so a draft can also be validated and committed from the CLI."""
    from transcribe_import.engine.planning.edits import save_draft as keep

    return keep(corpus, plan)


def list_drafts(corpus: Corpus) -> list[Draft]:
    """Every kept draft, newest first; one that cannot be read is listed with its problem."""
    from transcribe_import.engine.base.ids import is_valid_id
    from transcribe_import.engine.planning.edits import drafts_dir
    from transcribe_import.engine.planning.plan import PlanDocumentError, load_plan
    from transcribe_import.engine.storage import fsio

    folder = drafts_dir(corpus)
    names = fsio.list_dir(folder, missing_ok=True)
    out = []
    for name in names:
        stem = name.removesuffix(".json")
        if not name.endswith(".json") or not is_valid_id(stem):
            continue
        path = folder / name
        try:
            saved = fsio.stat(path).st_mtime
        except OSError:
            continue  # gone since the listing
        try:
            plan = load_plan(path)
        except PlanDocumentError as exc:
            out.append(Draft(stem, path, saved, 0, 0, str(exc)))
            continue
        pages = plan.imported_page_count()
        out.append(Draft(plan.plan_id, path, saved, len(plan.items), pages))
    out.sort(key=lambda d: d.saved_at, reverse=True)
    return out


def load_draft(corpus: Corpus, plan_id: str) -> ImportPlan:
    """The draft's plan (``PlanDocumentError`` when it cannot be read)."""
    from transcribe_import.engine.planning.plan import load_plan

    return load_plan(_draft_path(corpus, plan_id))


def discard_draft(corpus: Corpus, plan_id: str) -> None:
    """Forget a draft (nothing if there is none)."""
    from transcribe_import.engine.storage import fsio

    fsio.remove(_draft_path(corpus, plan_id))
