"""Validate a plan against the world as it is now: every problem at once, nothing stored.

Validation is recomputing (docs/formats.md, the plan document): ordering ambiguities, unusable
files not yet left out, sources missing or changed since the scan, sources whose
bytes no longer bear out their media type or page count, a target notebook that
does not exist, preallocated ids already used by something else, a placement or a
rescan that does not fit the notebook (planning/placement.py). Commit is refused
while any error stands; warnings inform. The values (``PlanProblem``, ``ProblemCode``)
are in problems.py.

A notebook planned from a bag keeps the bag's ids, so its id may already be in the
corpus: the same notebook is ``unchanged`` (a warning: it is skipped), a different one
is a ``notebook_conflict`` error whose resolutions are ``skip`` and ``as_copy``
(planning/bag.py). Nothing is ever merged.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import os
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.base.text import agreeing, counted, quoted_title
from transcribe_import.engine.media import decode
from transcribe_import.engine.media.kinds import RenderSettings
from transcribe_import.engine.planning import (
    bag,
    dedupe,
    lookalikes,
    ordering,
    placement,
    reimport,
    scan_cache,
    second_look,
)
from transcribe_import.engine.planning.plan import ImportPlan, Op, PlanItem, PlanSource
from transcribe_import.engine.planning.problems import (
    PlanProblem,
    ProblemCode,
    ProblemSeverity,
    Resolution,
    ValidationReport,
    file_name,
    unusable_words,
)
from transcribe_import.engine.storage import fsio, project

if TYPE_CHECKING:
    from transcribe_import.engine.storage.corpus import Corpus


# How many source checks are handed to the pool at a time.
_CHECKS_AT_ONCE = 256


def validate(
    corpus: Corpus | None,
    plan: ImportPlan,
    *,
    settings: RenderSettings | None = None,
    workers: int = 2,
    own_run_ids: Set[str] | None = None,
    unfinished_of: reimport.UnfinishedOf | None = None,
    hints: frozenset[second_look.Hint] = second_look.ALL_HINTS,
    progress: Callable[[int, int], None] | None = None,
) -> ValidationReport:
    """Check ``plan`` against ``corpus`` as it is now.

    ``own_run_ids`` are the ids of the import runs of this same plan (the caller asks the
    run store: ``{r.run_id for r in RunStore(corpus).runs_for_plan(plan.plan_id)}``):
    notebooks and ids they committed are this plan's own, not a conflict. None: no run
    of this plan committed anything. ``unfinished_of``: whether a notebook to complete is
    marked incomplete (its words say so; engine.api passes the run layer's rule).
    ``hints``: which pages worth a second look are told (information, never in the way).
    ``progress(done, total)``: told as the work goes, for a face's time left, a part at a
    time, each from 0 to its own total, since their paces differ a hundredfold: the files
    with their notebook's checks; the rescans' candidate pairs verified, when there are
    enough to spread over worker processes (a shelf's first plan: most of its time); the
    files' own checks on disk.
    """
    settings = settings or RenderSettings()
    tell = progress or (lambda _done, _total: None)
    sources = sum(len(it.sources) for it in plan.items)
    checked = sum(1 for it in plan.items for s in it.sources if s.imported)
    done = 0
    tell(done, sources)
    problems: list[PlanProblem] = []
    own = frozenset(own_run_ids or ())
    titles = reimport.titled(corpus) if corpus is not None else {}

    index = _index_if_asked(corpus, plan)
    for item in plan.items:
        found = reimport.recognise(corpus, item, index, unfinished_of) if corpus and index else None
        problems.extend(_item_problems(corpus, item, own, titles, found))
        if corpus is not None and reimport.completes_by_default(item):
            problems.append(_completes_problem(corpus, item, unfinished_of))
        elif found is None:
            problems.extend(_duplicate_problems(corpus, plan, item))
        else:
            problems.append(_recognised_problem(item, found))
        done += len(item.sources)
        tell(done, sources)
    problems.extend(placement.plan_problems(plan))
    problems.extend(lookalikes.plan_problems(corpus, plan, progress))

    # Source checks read headers from disk: run them in parallel, report in plan order, a
    # slice at a time: a future (and a pair) per source of 100,000 at once is half a million
    # objects the garbage collector walks, holding the GIL for a second, while a window
    # showing the plan waits.
    checks = ((it, s) for it in plan.items for s in it.sources if s.imported)
    scanned = _Scanned.kept(corpus, plan, settings)
    done = 0
    tell(done, checked)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        while part := list(itertools.islice(checks, _CHECKS_AT_ONCE)):
            results = pool.map(lambda pair: _source_problem(pair[0], pair[1], scanned), part)
            problems.extend(p for p in results if p is not None)
            done += len(part)
            tell(done, checked)

    order = {it.item_id: k for k, it in enumerate(plan.items)}
    problems.sort(key=lambda p: (order.get(p.item_id, 0), p.severity != ProblemSeverity.ERROR))
    told = tuple(p for item in plan.items for p in second_look.item_problems(item, hints))
    return ValidationReport(plan.plan_id, plan.fingerprint, tuple(problems), told)


def _index_if_asked(corpus: Corpus | None, plan: ImportPlan) -> dedupe.CorpusHashIndex | None:
    """The corpus-wide index, read once, when an item holds files found elsewhere in it."""
    if corpus is None or not any(
        reimport.held_sources(it) for it in plan.items if it.op is Op.CREATE_NOTEBOOK
    ):
        return None
    return dedupe.CorpusHashIndex.refreshed(corpus)


def _recognised_problem(item: PlanItem, found: reimport.Recognised) -> PlanProblem:
    """A folder imported before, told once, instead of its duplicates one by one."""
    held = reimport.held_sources(item)
    partly = found.kind is reimport.Recognition.PARTLY_IMPORTED
    return PlanProblem(
        ProblemSeverity.WARNING,
        ProblemCode.PARTLY_IMPORTED if partly else ProblemCode.ALREADY_IMPORTED,
        item.item_id,
        reimport.recognised_words(found),
        tuple(s.source_id for s in held),
        resolutions=(Resolution.COMPLETE,) if partly else (),
        hint="order --complete" if partly else None,
        files=tuple(file_name(s) for s in held),
    )


def _completes_problem(
    corpus: Corpus, item: PlanItem, unfinished_of: reimport.UnfinishedOf | None
) -> PlanProblem:
    """A folder partly imported, planned to complete its notebook: told once (what will
    happen, and how to make a second notebook instead), instead of its duplicates."""
    entry = corpus.index_entries().get(item.notebook_id)
    skipped = [s for s in item.sources if s.duplicate is not None and not s.excluded]
    return PlanProblem(
        ProblemSeverity.WARNING,
        ProblemCode.COMPLETES,
        item.item_id,
        reimport.completing_words(
            item,
            entry.title if entry else item.notebook_id,
            unfinished_of(item.notebook_id) if unfinished_of else None,
        ),
        tuple(s.source_id for s in skipped),
        resolutions=(Resolution.NEW_NOTEBOOK,),
        hint="order --new-notebook",
        files=tuple(file_name(s) for s in skipped),
        notebook_id=item.notebook_id,
    )


def _title_problem(
    corpus: Corpus, item: PlanItem, titles: Mapping[str, Sequence[str]]
) -> list[PlanProblem]:
    """A new notebook titled as a notebook of the corpus: why it makes a second one (its
    pages do not continue that notebook's page numbers, or a person chose so), and, when
    they do continue them, how to complete that notebook instead."""
    matches = reimport.title_matches(corpus, item, titles)
    if not matches:
        return []  # that notebook is no longer registered: no other has the title
    going_on = reimport.continued_by_title(matches)
    several = len(matches) > 1
    problem = PlanProblem(
        ProblemSeverity.WARNING,
        ProblemCode.TITLE_EXISTS,
        item.item_id,
        reimport.title_words(item, matches),
        resolutions=(Resolution.COMPLETE,) if going_on is not None else (),
        hint="order --complete"
        if going_on is not None
        else "order --into NOTEBOOK"
        if several
        else None,
        notebook_id=going_on.notebook_id if going_on is not None else None,
    )
    return [problem]


def _item_problems(
    corpus: Corpus | None,
    item: PlanItem,
    own: Set[str],
    titles: Mapping[str, Sequence[str]],
    found: reimport.Recognised | None,
) -> list[PlanProblem]:
    out: list[PlanProblem] = []
    for amb in ordering.find_ambiguities(item):
        out.append(
            PlanProblem(
                ProblemSeverity.ERROR,
                amb.code,
                item.item_id,
                amb.message,
                amb.source_ids,
                resolutions=amb.resolutions,
                hint=amb.hint,
                files=amb.files,
            )
        )
    for u in item.unusable:
        if u["rel"] in item.acknowledged:
            continue
        why = unusable_words(u)
        out.append(
            PlanProblem(
                ProblemSeverity.ERROR,
                ProblemCode.SOURCE_UNREADABLE,
                item.item_id,
                f"{why} To import the rest without it, exclude it.",
                path=u["path"],
                resolutions=(Resolution.EXCLUDE,),
                hint=f'order --exclude "{u["rel"]}"',
                files=(u["rel"],),
            )
        )
    out.extend(_restore_item_problems(item))
    if item.restore is not None and item.planned_skips():
        pass  # a bag's notebook planned as unchanged: _restore_target says so, once
    elif not item.imported_sources() and not item.planned_skips():
        msg = "Every file is excluded; nothing will be imported."
        out.append(
            PlanProblem(ProblemSeverity.WARNING, ProblemCode.NOTHING_TO_IMPORT, item.item_id, msg)
        )
    if corpus is not None:
        # A folder imported before is told as such: its title is no second notebook's.
        out.extend(_target_problems(corpus, item, own, {} if found else titles))
    return out


# Skipped duplicates listed by name in one warning, then counted.
_SKIPS_SHOWN = 3


def _duplicate_problems(
    corpus: Corpus | None, plan: ImportPlan, item: PlanItem
) -> list[PlanProblem]:
    """The item's planned duplicate skips, each told by scope and by name (dedupe.py's words).

    A warning: commit skips them. Every file skipped (none left to import) is
    ``nothing_to_import``, else ``duplicates_skipped``. A bag's unchanged notebook is
    told once, as ``unchanged``, instead.
    """
    dups = item.planned_skips()
    if not dups or item.restore is not None:
        return []
    words = dedupe.describe_skips(corpus, plan, item)
    shown = "; ".join(words[:_SKIPS_SHOWN])
    if len(words) > _SKIPS_SHOWN:
        shown += f"; and {len(words) - _SKIPS_SHOWN} more"
    if not item.imported_sources():
        code = ProblemCode.NOTHING_TO_IMPORT
        head = (
            f"The only file is a duplicate, so nothing will be imported: {shown}."
            if len(dups) == 1
            else f"All {len(dups)} files are duplicates, so nothing will be imported: {shown}."
        )
    else:
        code = ProblemCode.DUPLICATES_SKIPPED
        count = "1 duplicate file" if len(dups) == 1 else f"{len(dups)} duplicate files"
        head = f"{count} will be skipped: {shown}."
    return [
        PlanProblem(
            ProblemSeverity.WARNING,
            code,
            item.item_id,
            head,
            tuple(s.source_id for s in dups),
            files=tuple(file_name(s) for s in dups),
        )
    ]


def _target_problems(
    corpus: Corpus, item: PlanItem, own: Set[str], titles: Mapping[str, Sequence[str]]
) -> list[PlanProblem]:
    nb_dir = corpus.notebook_dir(item.notebook_id)
    exists = corpus.is_registered(item.notebook_id) or fsio.exists(nb_dir)
    if item.restore is not None:
        decided = _restore_target(corpus, item, own, exists)
        if decided is not None:
            return decided
    if item.op is Op.IMPORT_INTO_NOTEBOOK:
        if not exists:
            return [
                PlanProblem(
                    ProblemSeverity.ERROR,
                    ProblemCode.NOTEBOOK_NOT_FOUND,
                    item.item_id,
                    f"The target notebook {item.notebook_id} does not exist in {corpus.root}; "
                    "pick an existing notebook.",
                    hint="transcribe-import notebooks",
                )
            ]
    elif not exists:
        if (item.title or "").casefold() in titles:
            return _title_problem(corpus, item, titles)
        return []
    try:
        doc = project.read(nb_dir, item.notebook_id)
    except TranscribeError as exc:
        return [
            PlanProblem(
                ProblemSeverity.ERROR, ProblemCode.NOTEBOOK_NOT_FOUND, item.item_id, str(exc)
            )
        ]
    if item.op is Op.CREATE_NOTEBOOK and doc.get("import_run_id") not in own:
        return [
            PlanProblem(
                ProblemSeverity.ERROR,
                ProblemCode.ID_IN_USE,
                item.item_id,
                f"Notebook id {item.notebook_id} is already used by another notebook; "
                "make a new plan.",
            )
        ]
    foreign = _foreign_ids(doc, item, own)
    if foreign:
        return [
            PlanProblem(
                ProblemSeverity.ERROR,
                ProblemCode.ID_IN_USE,
                item.item_id,
                f"{counted(len(foreign), 'preallocated id')} {agreeing(len(foreign), 'is', 'are')} "
                f"already used by other pages of the notebook ({foreign[0]}…); make a new plan.",
            )
        ]
    # Where its pages go and what they replace, against the notebook as it is now.
    return placement.notebook_problems(item, doc)


def _restore_item_problems(item: PlanItem) -> list[PlanProblem]:
    """What only a bag's notebook can have wrong with it, the corpus aside."""
    if item.restore is None:
        return []
    out: list[PlanProblem] = []
    source_of = {p.page_id: s.source_id for s in item.sources for p in s.pages}
    in_bag = list(dict.fromkeys(source_of[p] for p in item.restore.page_order))
    # A source only the history uses (its pages were replaced) has no place in the order.
    ordered = set(in_bag)
    imported = [s.source_id for s in item.imported_sources() if s.source_id in ordered]
    kept = set(imported)
    if imported != [sid for sid in in_bag if sid in kept]:
        # The pages land in the bag's order whatever the plan's source order says, so a
        # reorder would be silently ignored: say so instead.
        out.append(
            PlanProblem(
                ProblemSeverity.ERROR,
                ProblemCode.BAG_ORDER_CHANGED,
                item.item_id,
                "A notebook from a bag keeps the bag's page order, but its "
                "pages were reordered in this plan; plan the bag again to undo the reorder.",
            )
        )
    again = item.provenance.get("rendered_again")
    if isinstance(again, list) and again and item.imported_sources():
        out.append(
            PlanProblem(
                ProblemSeverity.WARNING,
                ProblemCode.RENDERED_AGAIN,
                item.item_id,
                f"{counted(len(again), 'page')} will be rendered again from their source, "
                f"not copied from the bag ({again[0]}).",
            )
        )
    return out


def _restore_target(
    corpus: Corpus, item: PlanItem, own: Set[str], exists: bool
) -> list[PlanProblem] | None:
    """A bag's notebook against the corpus; None: the usual checks apply (a new notebook,
    or the one this plan's own run created)."""
    if not exists:
        if item.planned_skips():
            return [
                PlanProblem(
                    ProblemSeverity.ERROR,
                    ProblemCode.NOTEBOOK_NOT_FOUND,
                    item.item_id,
                    f"Notebook {item.notebook_id} was in the corpus, unchanged, when "
                    "the bag was planned, and is not there now; plan the bag again.",
                )
            ]
        return None
    try:
        doc = project.read(corpus.notebook_dir(item.notebook_id), item.notebook_id)
    except TranscribeError as exc:
        return [
            PlanProblem(
                ProblemSeverity.ERROR, ProblemCode.NOTEBOOK_NOT_FOUND, item.item_id, str(exc)
            )
        ]
    if doc.get("import_run_id") in own:
        return None
    if bag.same_notebook(doc, item):
        return [
            PlanProblem(
                ProblemSeverity.WARNING,
                ProblemCode.UNCHANGED,
                item.item_id,
                f"Notebook {item.notebook_id} is already in the corpus with the same "
                "content; it is skipped and nothing changes.",
            )
        ]
    if all(s.excluded for s in item.sources):
        return []  # a person chose to skip it
    title = doc.get("title") if isinstance(doc.get("title"), str) else item.notebook_id
    return [
        PlanProblem(
            ProblemSeverity.ERROR,
            ProblemCode.NOTEBOOK_CONFLICT,
            item.item_id,
            f"The corpus already has a notebook with id {item.notebook_id} ({quoted_title(title)}) "
            "whose content differs from the bag's, and nothing is merged. Skip it, or import "
            "it as a copy with new ids.",
            resolutions=(Resolution.SKIP, Resolution.AS_COPY),
        )
    ]


def _foreign_ids(doc: dict[str, Any], item: PlanItem, own: Set[str]) -> list[str]:
    """Ids of this item that the notebook uses for something not committed by this plan."""
    mine = {s.source_id for s in item.sources}
    mine |= {p.page_id for s in item.sources for p in s.pages}
    mine |= {p.render_id for s in item.sources for p in s.pages}
    committed_by_us = {
        s.get("id") for s in doc["sources"] if isinstance(s, dict) and s.get("import_run_id") in own
    }
    used: list[str] = []
    for s in doc["sources"]:
        if isinstance(s, dict) and s.get("id") in mine and s.get("id") not in committed_by_us:
            used.append(s["id"])
    for p in doc["pages"]:
        if not isinstance(p, dict) or p.get("source_id") in committed_by_us:
            continue
        used.extend(i for i in (p.get("id"), p.get("render_id")) if i in mine)
    return used


@dataclass(frozen=True)
class _Scanned:
    """What the corpus's scan cache holds of a plan's files (planning/scan_cache.py), for
    the source checks: a file whose stat is its line's, on the scan's own rule, and whose
    line has the plan's sha256, is what its scan found, so its probe is not made again."""

    settings: RenderSettings
    token: str = ""
    lines: Mapping[str, scan_cache.Trusted] = field(default_factory=dict)
    now_ns: int = 0

    @classmethod
    def kept(cls, corpus: Corpus | None, plan: ImportPlan, settings: RenderSettings) -> _Scanned:
        if corpus is None:
            return cls(settings)  # every file probed, as with no scan cache
        paths = [str(s.provenance.fs_path) for it in plan.items for s in it.sources if s.imported]
        lines = scan_cache.ScanCache(corpus.root).read(paths)
        return cls(settings, scan_cache.settings_token(settings), lines, scan_cache.now_ns())

    def media(self, s: PlanSource, st: os.stat_result) -> tuple[str, int] | None:
        """The media type and page count the scan found of ``s``, still true by the rule;
        None when the file is to be probed."""
        line = self.lines.get(str(s.provenance.fs_path))
        if line is None or line.found.sha256 != s.sha256:
            return None
        if not line.holds(scan_cache.Identity.of(st), self.token, self.now_ns):
            return None
        return line.found.media_type, line.found.page_count


def _source_problem(item: PlanItem, s: PlanSource, scanned: _Scanned) -> PlanProblem | None:
    path = s.provenance.fs_path
    shown = file_name(s) or str(path)
    try:
        st = fsio.stat(path)
    except FileNotFoundError:
        return PlanProblem(
            ProblemSeverity.ERROR,
            ProblemCode.SOURCE_MISSING,
            item.item_id,
            f"{shown} is missing (was it moved, or the disk disconnected?); reconnect it or "
            "plan again.",
            (s.source_id,),
            str(path),
            (Resolution.EXCLUDE,),
            files=(file_name(s),),
        )
    except OSError as exc:
        return PlanProblem(
            ProblemSeverity.ERROR,
            ProblemCode.SOURCE_UNREADABLE,
            item.item_id,
            f"{shown} cannot be read ({exc.strerror}).",
            (s.source_id,),
            str(path),
            (Resolution.EXCLUDE,),
            files=(file_name(s),),
        )
    if st.st_size != s.provenance.size or st.st_mtime_ns != s.provenance.mtime_ns:
        return PlanProblem(
            ProblemSeverity.ERROR,
            ProblemCode.SOURCE_CHANGED,
            item.item_id,
            f"{shown} changed since the scan (size or modification time differ); plan again to "
            "pick up the new version.",
            (s.source_id,),
            str(path),
            (Resolution.EXCLUDE,),
            files=(file_name(s),),
        )
    media = scanned.media(s, st)
    if media is None:
        try:
            # Named by the path opened, not its rel: a hand-edited plan can make them differ.
            info = decode.probe(
                path, scanned.settings, display_path=str(path), size=s.provenance.size
            )
        except TranscribeError as exc:
            return PlanProblem(
                ProblemSeverity.ERROR,
                ProblemCode.SOURCE_UNREADABLE,
                item.item_id,
                str(exc),
                (s.source_id,),
                str(path),
                (Resolution.EXCLUDE,),
                files=(file_name(s),),
            )
        media = info.media_type, info.page_count
    media_type, page_count = media
    wanted = max(p.page_index for p in s.pages) + 1
    if media_type != s.media_type or page_count < wanted:
        return PlanProblem(
            ProblemSeverity.ERROR,
            ProblemCode.MEDIA_MISMATCH,
            item.item_id,
            f"{shown} is {media_type} with {counted(page_count, 'page')}, but the plan "
            f"expects {s.media_type} with at least {wanted}; plan again.",
            (s.source_id,),
            str(path),
            files=(file_name(s),),
        )
    return _render_problem(item, s)


def _render_problem(item: PlanItem, s: PlanSource) -> PlanProblem | None:
    """A bag's render that commit will copy: still there, and not changed since planning."""
    for page in s.pages:
        r = page.render
        if r is None:
            continue
        path = r.fs_path
        try:
            st = fsio.stat(path)
        except OSError:
            code, why = ProblemCode.SOURCE_MISSING, "is missing or cannot be read"
        else:
            if st.st_size == r.size and st.st_mtime_ns == r.mtime_ns:
                continue
            code, why = ProblemCode.SOURCE_CHANGED, "changed since the bag was planned"
        return PlanProblem(
            ProblemSeverity.ERROR,
            code,
            item.item_id,
            f"{r.path} (the render of page {page.page_id}) {why}; reconnect the bag or plan it "
            "again.",
            (s.source_id,),
            str(path),
            files=(file_name(s),),
        )
    return None
