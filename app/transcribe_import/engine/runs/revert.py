"""What undoing an import run as a group would take out of the corpus, and what blocks it.

``plan_revert`` only reads: the run record, its frozen plan and the notebooks it wrote.
What the run wrote is read from the corpus itself, not from the run's own account of
its walk: every source an import lands carries its ``import_run_id`` in project.json,
so pages that landed in a checkpoint of an item that later failed or was cancelled are
found too. A notebook the run created (its index entry names the run) is removed
whole; into an existing notebook the run's sources and their pages are removed and
nothing else.

Later work is never destroyed. A revert is blocked, naming the notebook and the cause,
when what the run wrote has changed since: another run added pages into a notebook this
run created, a later rescan replaced pages of the run, the notebook was renamed or given
keys by other tools, one of the run's pages was reordered, relabelled, set as cover or
given keys (a transcription), or a file's bytes differ from the hash project.json records.
Each cause is said once per notebook, naming its pages by their number in the notebook.
A block holds its notebook only: ``free_part`` is the undo of the run's other notebooks,
with the blocked ones kept and said why (``RevertPlan.held``). The comparison is by ids and
hashes against what the import writes for the plan's pages (the one page record the
ingest transaction builds, ``PAGE_KEYS``), never by timestamps.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.base.ids import short_id
from transcribe_import.engine.base.text import agreeing, counted, quoted_title
from transcribe_import.engine.planning.plan import ImportPlan, PlanItem
from transcribe_import.engine.runs.model import RunRecord, RunStatus
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.storage import fsio, project
from transcribe_import.engine.storage.corpus import Corpus

# The keys the import writes on every page record (ingest/transaction.py); with the plan
# page's label and extra keys (a bag's), if it has them, any other key is someone else's.
PAGE_KEYS = frozenset({"id", "source_id", "page_index", "render_id", "render"})
# The keys imports write on a notebook, before a bag's restored keys: a rescan's history
# (replaced_pages) is an import's own, its cause said as REPLACED, never as a tool's key.
NOTEBOOK_KEYS = frozenset(
    {"format", "schema_version", "id", "title", "created_at", "updated_at", "cover_page_id"}
    | {"sources", "pages", "import_run_id", project.REPLACED_PAGES}
)


class RevertBlock(enum.StrEnum):
    NOT_ENDED = "revert_not_ended"  # the run is still running, paused or interrupted
    NOTHING_LANDED = "revert_nothing_landed"  # the run wrote nothing: nothing to undo
    LATER_PAGES = "revert_later_pages"  # another import added pages to a notebook it created
    REPLACED = "revert_replaced"  # a later import's rescans or a turn replaced pages of the run
    RENAMED = "revert_renamed"  # the notebook the run created was renamed since
    NOTEBOOK_CHANGED = "revert_notebook_changed"  # keys added to the notebook by another tool
    PAGE_CHANGED = "revert_page_changed"  # a page of the run relabelled or given keys
    REORDERED = "revert_reordered"  # the run's pages are no longer where it put them
    COVER_SET = "revert_cover_set"  # a page of the run became the cover since
    FILE_CHANGED = "revert_file_changed"  # a file's bytes differ from its recorded hash
    UNREADABLE = "revert_unreadable"  # a notebook's project.json cannot be read


@dataclass(frozen=True)
class RevertBlocker:
    code: RevertBlock
    notebook_id: str | None
    message: str
    title: str | None = None  # the notebook's title, when it could be read
    pages: tuple[int, ...] = ()  # the pages concerned, by their number in the notebook


@dataclass(frozen=True)
class NotebookRevert:
    """What the revert takes out of one notebook (``whole``: the notebook itself)."""

    notebook_id: str
    title: str
    whole: bool
    source_ids: tuple[str, ...]
    page_ids: tuple[str, ...]
    files: tuple[str, ...]  # notebook-relative paths of the sources and renders it moves
    # Of ``page_ids``, the run's rescans that took a page's place (that page comes back);
    # the others are pages the run added (for a notebook it created: all of them).
    replacing: int = 0

    @property
    def added(self) -> int:
        """The pages the run added to the notebook: its pages that are not rescans."""
        return len(self.page_ids) - self.replacing


@dataclass(frozen=True)
class RevertPlan:
    """``blockers``: what refuses this undo; ``held``: in the undo of the free notebooks
    only (``free_part``), why each notebook it leaves in place stays."""

    run_id: str
    status: RunStatus
    notebooks: tuple[NotebookRevert, ...]
    blockers: tuple[RevertBlocker, ...]
    held: tuple[RevertBlocker, ...] = ()

    @property
    def partial(self) -> bool:
        """Whether this undo leaves notebooks of the run in place (``held`` says why)."""
        return bool(self.held)

    @property
    def held_titles(self) -> tuple[str, ...]:
        """The notebooks the undo leaves in place, each once, in plan order."""
        return tuple(dict.fromkeys(b.title or str(b.notebook_id) for b in self.held))

    def free_part(self) -> RevertPlan:
        """The undo of the notebooks nothing blocks, the blocked ones kept (``held``).

        The plan itself when nothing blocks a notebook, or nothing would be undone: a block
        of the whole run (not ended) or of every notebook refuses as before."""
        blocked = {b.notebook_id for b in self.blockers if b.notebook_id is not None}
        whole_run = [b for b in self.blockers if b.notebook_id is None]
        free = tuple(n for n in self.notebooks if n.notebook_id not in blocked)
        if not blocked or whole_run or not free:
            return self
        held = tuple(b for b in self.blockers if b.notebook_id is not None)
        return RevertPlan(self.run_id, self.status, free, (), held)

    def only(self, notebook_ids: frozenset[str]) -> RevertPlan:
        """This plan narrowed to ``notebook_ids`` (a partial undo taken up after a kill):
        the other notebooks' blocks are not this undo's."""
        return RevertPlan(
            self.run_id,
            self.status,
            tuple(n for n in self.notebooks if n.notebook_id in notebook_ids),
            tuple(
                b for b in self.blockers if b.notebook_id is None or b.notebook_id in notebook_ids
            ),
        )

    @property
    def ok(self) -> bool:
        return not self.blockers

    @property
    def pages(self) -> int:
        return sum(len(n.page_ids) for n in self.notebooks)

    @property
    def files(self) -> int:
        """The files the revert moves: every source and every render (the trash's count too)."""
        return sum(len(n.files) for n in self.notebooks)


def plan_revert(corpus: Corpus, run_id: str, *, check_hashes: bool = True) -> RevertPlan:
    """What reverting ``run_id`` would remove, and every reason it cannot (read only)."""
    store = RunStore(corpus)
    record = store.load(run_id)
    if not record.status.terminal or store.is_interrupted(record):
        blocker = RevertBlocker(
            RevertBlock.NOT_ENDED,
            None,
            f"Run {store.short(run_id)} has not ended ({record.status}); resume it or cancel it "
            "first, then undo it.",
        )
        return RevertPlan(run_id, record.status, (), (blocker,))
    plan = store.load_plan(run_id, record)
    created = _created_by(corpus, run_id)
    notebooks: list[NotebookRevert] = []
    blockers: list[RevertBlocker] = []
    for notebook_id in _touched(record, plan):
        found = _notebook(corpus, run_id, plan, notebook_id, notebook_id in created, check_hashes)
        if isinstance(found, RevertBlocker):
            blockers.append(found)
            continue
        change, problems = found
        blockers.extend(problems)
        if change is not None:
            notebooks.append(change)
    if not notebooks and not blockers:
        blockers.append(
            RevertBlocker(
                RevertBlock.NOTHING_LANDED,
                None,
                f"Run {store.short(run_id)} added nothing to the corpus, so there is nothing to "
                "undo.",
            )
        )
    return RevertPlan(run_id, record.status, tuple(notebooks), tuple(blockers))


def _created_by(corpus: Corpus, run_id: str) -> set[str]:
    return {n for n, e in corpus.index_entries().items() if e.import_run_id == run_id}


def _touched(record: RunRecord, plan: ImportPlan) -> list[str]:
    """The notebooks the run's items went into, in plan order, each once."""
    del record  # the corpus, not the run's walk, says what landed (module docstring)
    return list(dict.fromkeys(it.notebook_id for it in plan.items))


def _notebook(
    corpus: Corpus,
    run_id: str,
    plan: ImportPlan,
    notebook_id: str,
    created: bool,
    check_hashes: bool,
) -> RevertBlocker | tuple[NotebookRevert | None, list[RevertBlocker]]:
    # A link on the way is refused by name here, before a journal is written or a file moves.
    nb_dir = fsio.corpus_folder(corpus.root, corpus.notebook_dir(notebook_id))
    if not corpus.is_registered(notebook_id) or not fsio.exists(nb_dir / project.PROJECT_FILE):
        return None, []  # nothing of it landed (or it was removed since): nothing to take out
    try:
        doc = project.read(nb_dir, notebook_id)
    except (OSError, TranscribeError) as exc:
        return RevertBlocker(
            RevertBlock.UNREADABLE,
            notebook_id,
            f"{nb_dir / project.PROJECT_FILE} cannot be read ({exc}); run "
            "`transcribe-import doctor` first.",
        )
    items = [it for it in plan.items if it.notebook_id == notebook_id]
    title = str(doc.get("title") or notebook_id)
    ours = {
        str(s["id"]): s
        for s in doc["sources"]
        if isinstance(s, dict) and s.get("import_run_id") == run_id
    }
    if not ours:
        return None, []
    pages = [p for p in doc["pages"] if isinstance(p, dict)]
    our_pages = [p for p in pages if p.get("source_id") in ours]
    problems: list[RevertBlocker] = []

    # The notebook named as `notebooks` lists it (its whole id is the blocker's notebook_id).
    named = f"{quoted_title(title)} ({short_id(notebook_id, corpus.index_entries())})"

    def block(code: RevertBlock, what: str, numbers: tuple[int, ...] = ()) -> None:
        problems.append(RevertBlocker(code, notebook_id, f"{named}: {what}", title, numbers))

    history = project.replaced_entries(doc)
    replacing = {  # the run's rescans -> the page each replaced
        str(e["replaced_by"]): e["page"] for e in history if e.get("import_run_id") == run_id
    }
    replaced_later = [
        e
        for e in history
        if e["page"].get("source_id") in ours and e.get("import_run_id") != run_id
    ]
    turned = {str(e.get("replaced_by")) for e in project.turned_entries(doc)}
    rescanned = [e for e in replaced_later if str(e.get("replaced_by")) not in turned]
    if rescanned:
        later = sorted({short_id(str(e.get("import_run_id"))) for e in rescanned})
        n = len(rescanned)
        block(
            RevertBlock.REPLACED,
            f"{counted(n, 'page')} of this import {agreeing(n, 'was', 'were')} replaced by "
            f"rescans since, by import {', '.join(later)}; undo that import first, or keep "
            "this one.",
        )
    if len(rescanned) < len(replaced_later):  # a turn is a run of its own, undone as one
        turns = [e for e in replaced_later if str(e.get("replaced_by")) in turned]
        later = sorted({short_id(str(e.get("import_run_id"))) for e in turns})
        n = len(turns)
        block(
            RevertBlock.REPLACED,
            f"{counted(n, 'page')} of this import {agreeing(n, 'was', 'were')} turned since, "
            f"by turn {', '.join(later)}; undo that turn first, or keep this one.",
        )
    stand_ins = {str(e.get("replaced_by")) for e in replaced_later}
    if created:
        # A later rescan's source is said as REPLACED, not again as a file added.
        rescans = {str(p.get("source_id")) for p in pages if str(p.get("id")) in stand_ins}
        rescans -= {str(p.get("source_id")) for p in pages if str(p.get("id")) not in stand_ins}
        others = [
            s
            for s in doc["sources"]
            if isinstance(s, dict) and str(s.get("id")) not in set(ours) | rescans
        ]
        if others:
            runs = sorted({short_id(str(s.get("import_run_id"))) for s in others})
            block(
                RevertBlock.LATER_PAGES,
                f"{counted(len(others), 'file')} {agreeing(len(others), 'was', 'were')} added to "
                f"it since, by import {', '.join(runs)}; undo that import first, or keep "
                "this one.",
            )
        _check_notebook_keys(doc, items, block)
    _check_pages(plan_pages(items), our_pages, pages, doc, items, block, replacing, stand_ins)
    if check_hashes:
        _check_files(nb_dir, [*ours.values(), *our_pages], block)
    files = tuple(
        [str(s["path"]) for s in ours.values() if s.get("path")]
        + [str(p["render"]["path"]) for p in our_pages if isinstance(p.get("render"), dict)]
    )
    change = NotebookRevert(
        notebook_id,
        title,
        created,
        tuple(ours),
        tuple(str(p["id"]) for p in our_pages),
        files,
        sum(1 for p in our_pages if str(p.get("id")) in replacing),
    )
    return change, problems


def plan_pages(items: list[PlanItem]) -> dict[str, dict[str, Any]]:
    """page id -> what the import writes for it beyond ids it makes itself (PAGE_KEYS):
    the plan page's source, index, render id, label, look, turn and extra keys (a bag's)."""
    out: dict[str, dict[str, Any]] = {}
    for it in items:
        for s in it.imported_sources():
            for p in s.pages:
                out[p.page_id] = {
                    **dict(p.extra or {}),
                    **({"label": p.label} if p.label is not None else {}),
                    **({"look": p.look} if p.look is not None else {}),
                    **({"turn": int(p.turn)} if p.turn else {}),
                    "source_id": s.source_id,
                    "page_index": p.page_index,
                    "render_id": p.render_id,
                }
    return out


def _check_notebook_keys(doc: dict[str, Any], items: list[PlanItem], block: Any) -> None:
    restored = {k for it in items if it.restore is not None for k in it.restore.manifest}
    added = sorted(set(doc) - NOTEBOOK_KEYS - restored)
    if added:
        block(
            RevertBlock.NOTEBOOK_CHANGED,
            f"other tools added {', '.join(added)} to it since; undoing would remove that "
            "work. Keep the notebook, or remove it by hand.",
        )
    titles = {it.title for it in items if it.title}
    if titles and doc.get("title") not in titles:
        block(
            RevertBlock.RENAMED,
            f"it was renamed since (the import titled it “{sorted(titles)[0]}”).",
        )


def _check_pages(
    expected: dict[str, dict[str, Any]],
    our_pages: list[dict[str, Any]],
    pages: list[dict[str, Any]],
    doc: dict[str, Any],
    items: list[PlanItem],
    block: Any,
    replacing: dict[str, dict[str, Any]],
    stand_ins: set[str],
) -> None:
    """``replacing``: the run's rescans, each with the record of the page it replaced (a
    rescan stands where that page stood, takes its label if it had none, and its cover);
    ``stand_ins``: later rescans standing where pages of the run stood (not a reorder).
    Pages changed since are one cause, naming each page by its number in the notebook."""
    number = {str(p.get("id")): k for k, p in enumerate(pages, start=1)}
    changed: list[tuple[int, str]] = []
    for p in our_pages:
        want = expected.get(str(p.get("id")))
        if want is None:
            continue  # a page of the run's sources the plan does not list: judged by its file
        old = replacing.get(str(p.get("id")))
        if old is not None and "label" not in want and "label" in old:
            want = {**want, "label": old["label"]}
        extra = sorted(set(p) - PAGE_KEYS - set(want))
        differ = sorted(k for k, v in want.items() if p.get(k) != v)
        if extra or differ:
            what = ", ".join([*(f"{k} added" for k in extra), *(f"{k} changed" for k in differ)])
            changed.append((number[str(p.get("id"))], what))
    if changed:
        said = "; ".join(f"page {n}: {what}" for n, what in sorted(changed))
        block(
            RevertBlock.PAGE_CHANGED,
            f"{counted(len(changed), 'page')} of this import changed since ({said}); undoing "
            "would lose that work.",
            tuple(sorted(n for n, _ in changed)),
        )
    # The run's pages, where it put them: one block, in plan order (a rescan stands where
    # the page it replaced stood, so it is not part of the block).
    our_pages = [p for p in our_pages if str(p.get("id")) not in replacing]
    order = [str(p["id"]) for p in our_pages]
    planned = [pid for pid in expected if pid in set(order)]
    positions = [k for k, p in enumerate(pages) if str(p.get("id")) in set(order) | stand_ins]
    contiguous = not positions or positions[-1] - positions[0] + 1 == len(positions)
    if order != planned or not contiguous:
        block(
            RevertBlock.REORDERED,
            "its pages were reordered since the import; undoing would lose that order.",
        )
    cover = doc.get("cover_page_id")
    planned_covers = {it.cover_page_id for it in items}
    if cover in replacing and replacing[str(cover)].get("id") is not None:
        planned_covers.add(str(cover))  # the cover was the page it replaced: it followed
    if cover in set(order) | set(replacing) and cover not in planned_covers:
        block(
            RevertBlock.COVER_SET,
            f"page {number.get(str(cover), '?')} of this import was made the cover since.",
            (number[str(cover)],) if str(cover) in number else (),
        )


def _check_files(nb_dir: Path, entries: list[dict[str, Any]], block: Any) -> None:
    """Files whose bytes differ from their recorded hashes: one cause, each file named."""
    differ: list[Path] = []
    for e in entries:
        ref = e.get("render") if "render_id" in e else e
        if not isinstance(ref, dict) or not ref.get("path"):
            continue
        path = nb_dir / str(ref["path"])
        try:
            digest, _size = fsio.hash_file(path)
        except OSError:
            continue  # a missing file is moved as missing: doctor already tells it
        if digest != ref.get("sha256"):
            differ.append(path)
    if differ:
        n = len(differ)
        block(
            RevertBlock.FILE_CHANGED,
            f"{', '.join(str(p) for p in differ)} {agreeing(n, 'differs', 'differ')} from the "
            f"{agreeing(n, 'hash', 'hashes')} project.json records; run "
            "`transcribe-import doctor` before undoing.",
        )
