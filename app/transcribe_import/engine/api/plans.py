"""Planning use cases: scan and plan, the bag or folder decision, reorder, validate, plan files.

Also what a plan will import, told before it is committed (pages per item, the files it
leaves out and why).
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.text import counted
from transcribe_import.engine.media.kinds import Turn
from transcribe_import.engine.planning.plan import (
    DEFAULT_MODE,
    AdapterMode,
    DedupeScope,
    ImportPlan,
    ModeName,
    PageRef,
    PlanItem,
)
from transcribe_import.engine.planning.problems import (
    ProblemCode,
    ProblemSeverity,
    Resolution,
    unusable_words,
)
from transcribe_import.engine.planning.second_look import ALL_HINTS, Hint, PageHint, Sideways
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.storage import project
from transcribe_import.engine.storage.corpus import Corpus

if TYPE_CHECKING:
    from transcribe_import.engine.media.kinds import RenderSettings
    from transcribe_import.engine.planning import reimport as reimport_types
    from transcribe_import.engine.planning.problems import ValidationReport
    from transcribe_import.engine.planning.scan import ScanResult
    from transcribe_import.engine.planning.scan_progress import ScanProgress


@dataclass(frozen=True)
class PlanRequest:
    """What to scan and how to plan it: the roots, the adapter mode and the plan's settings.

    The command line builds it from its options and the window from the start view's
    choices with the import settings; ``plan_paths`` is the one place that reads it.
    """

    roots: tuple[Path, ...]
    mode: AdapterMode = DEFAULT_MODE  # folders, single, pdfs, prefix, into a notebook, bag
    policy_id: str | None = None  # None: the default policy
    title: str | None = None  # with mode single: the new notebook's title
    dedupe_scope: DedupeScope = DedupeScope.CORPUS  # where skip_existing looks
    settings: RenderSettings | None = None  # None: the default render settings
    workers: int = 2


@dataclass(frozen=True)
class PlannedScan:
    """What a scan found and the plan the chosen mode made of it."""

    plan: ImportPlan
    scan: ScanResult

    @property
    def files(self) -> int:
        return len(self.scan.files)

    @property
    def ignored(self) -> int:
        """Files found that are not page files or cannot be read (system junk not counted)."""
        return sum(not i.junk for i in self.scan.ignored)


def plan_paths(
    corpus: Corpus | None,
    request: PlanRequest,
    *,
    should_stop: Callable[[], bool] | None = None,
    on_progress: Callable[[ScanProgress], None] | None = None,
) -> PlannedScan | None:
    """Scan the request's roots and plan the result with its adapter (``mode``); read-only.

    Mode ``bag``, or roots that are all bags whatever the mode (``mode_for``): each root
    is a BagIt bag, verified whole against its own manifests before it is planned (a
    refusal is a ``TranscribeError`` with a ``bag_*`` code naming the file). A folder
    planned as page files that holds a bag is refused too, naming the bag.

    Returns None when ``should_stop`` turned true before the plan was returned. Raises
    ``ValueError`` for a mode or title that does not fit, and ``TranscribeError`` for a
    root that cannot be read.
    """
    from transcribe_import.engine.planning.bag import refuse_bags_inside
    from transcribe_import.engine.planning.plan import DEFAULT_POLICY_ID
    from transcribe_import.engine.planning.planner import build_plan
    from transcribe_import.engine.planning.scan import DEFAULT_SETTINGS, ScanCancelled, run_scan
    from transcribe_import.engine.planning.scan_cache import ScanCache

    r = request
    if mode_for(r.roots, r.mode).name is ModeName.BAG:
        return _plan_bags(corpus, r, should_stop, on_progress)
    mode = _into_resolved(corpus, r.mode)
    try:
        result = run_scan(
            r.roots,
            on_progress=on_progress,
            settings=r.settings or DEFAULT_SETTINGS,
            workers=r.workers,
            should_stop=should_stop,
            # A file the corpus's scan cache holds unchanged is not read again.
            cache=None if corpus is None else ScanCache(corpus.root),
        )
    except ScanCancelled:
        return None
    if should_stop is not None and should_stop():
        return None
    refuse_bags_inside(result)
    try:
        plan = build_plan(
            corpus,
            result,
            mode=mode,
            policy_id=r.policy_id or DEFAULT_POLICY_ID,
            title=r.title,
            dedupe_scope=r.dedupe_scope,
            should_stop=should_stop,
        )
    except ScanCancelled:
        return None
    if should_stop is not None and should_stop():
        return None  # asked while the plan was being made: a late cancel is a cancel too
    if corpus is not None:
        plan = _completed_by_default(corpus, _left_out_as_before(corpus, plan))
    return PlannedScan(plan, result)


def _into_resolved(corpus: Corpus | None, mode: AdapterMode) -> AdapterMode:
    """``into`` a notebook named as ``order --into`` names it (its id, the start of its id, or
    its title), with the notebook's id; any other mode as it is. Without a corpus the target
    must be an id already (the adapter checks it)."""
    if mode.name is not ModeName.INTO or corpus is None or mode.target is None:
        return mode
    from transcribe_import.engine.api.placement import notebook_named

    try:
        return AdapterMode.into(notebook_named(corpus, mode.target))
    except ValueError as exc:
        raise ValueError(f"mode into:{mode.target}: {exc}") from None


def _left_out_as_before(corpus: Corpus, plan: ImportPlan) -> ImportPlan:
    """A folder imported before: what a person left out of that import is left out again
    (planning/reimport.leave_out_as_before), from the runs' records (not one undone)."""
    from transcribe_import.engine.planning import reimport
    from transcribe_import.engine.planning.dedupe import CorpusHashIndex
    from transcribe_import.engine.runs.model import RunStatus

    if not any(reimport.held_sources(it) for it in plan.items):
        return plan
    before: dict[str, dict[str, reimport.LeftOut]] = {}
    for record in RunStore(corpus).list_runs():
        if record.status is RunStatus.REVERTED:
            continue
        for entry in record.doc.get("discovery", {}).get("left_out") or []:
            if isinstance(entry, dict) and entry.get("sha256") and entry.get("notebook_id"):
                nbid, sha = str(entry["notebook_id"]), str(entry["sha256"])
                before.setdefault(nbid, {})[sha] = reimport.LeftOut(sha, nbid, record.run_id)
    if not before:
        return plan
    index = CorpusHashIndex.refreshed(corpus)
    items = tuple(reimport.leave_out_as_before(it, index, before) for it in plan.items)
    return replace(plan, items=items)


def _completed_by_default(corpus: Corpus, plan: ImportPlan) -> ImportPlan:
    """A folder partly imported (planning/reimport.py) is planned to complete the notebook
    holding its other pages, not to make a second one: a person who added pages to a
    folder and imports it again means that notebook. So is a folder none of whose files
    the corpus holds, titled as a notebook whose page numbers its pages continue
    (``reimport.continued_by_title``): its pages go after that notebook's last.
    ``order --new-notebook`` undoes either."""
    from transcribe_import.engine.planning import reimport
    from transcribe_import.engine.planning.dedupe import CorpusHashIndex

    titles = reimport.titled(corpus)
    held = any(reimport.held_sources(it) for it in plan.items)
    if not held and not any((it.title or "").casefold() in titles for it in plan.items):
        return plan
    index = CorpusHashIndex.refreshed(corpus) if held else None
    items = []
    for it in plan.items:
        found = reimport.recognise(corpus, it, index) if index is not None else None
        if found is not None and found.kind is reimport.Recognition.PARTLY_IMPORTED:
            try:
                manifest = project.read(corpus.notebook_dir(found.notebook_id), found.notebook_id)
            except TranscribeError:
                items.append(it)  # unreadable now: validate says so, and the item asks
                continue
            by = reimport.Completion.FILES
            items.append(reimport.completed(it, found.notebook_id, manifest, by))
            continue
        going_on = None if found is not None else _continued_by_title(corpus, it, titles)
        if going_on is None or going_on.manifest is None:
            items.append(it)
            continue
        by = reimport.Completion.TITLE
        items.append(reimport.completed(it, going_on.notebook_id, going_on.manifest, by))
    return replace(plan, items=tuple(items))


def _continued_by_title(
    corpus: Corpus, item: PlanItem, titles: Mapping[str, Sequence[str]]
) -> reimport_types.TitleMatch | None:
    """The notebook of ``item``'s title whose page numbers its pages continue, if one does
    (``titles``: the corpus's notebooks by title, ``reimport.titled``)."""
    from transcribe_import.engine.planning import reimport

    if (item.title or "").casefold() not in titles:
        return None
    return reimport.continued_by_title(reimport.title_matches(corpus, item, titles))


def as_new_notebook(item: PlanItem) -> PlanItem:
    """``item``, completing a notebook by default, planned as a second notebook instead
    (``order --new-notebook``, the window's choice); ValueError in words when it is not."""
    from transcribe_import.engine.planning import reimport

    return reimport.as_new_notebook(item)


def completes_by_default(item: PlanItem) -> bool:
    """Whether planning made ``item`` complete a notebook (a folder partly imported)."""
    from transcribe_import.engine.planning import reimport

    return reimport.completes_by_default(item)


def completes_by_title(item: PlanItem) -> bool:
    """Whether planning made ``item`` complete the notebook of its title whose page numbers
    its pages continue (none of its files in the corpus), still so."""
    from transcribe_import.engine.planning import reimport

    return reimport.completes_by_title(item)


def _plan_bags(
    corpus: Corpus | None,
    request: PlanRequest,
    should_stop: Callable[[], bool] | None,
    on_progress: Callable[[ScanProgress], None] | None,
) -> PlannedScan | None:
    from transcribe_import.engine.planning.adapters.foreign_bag import ForeignBagAdapter
    from transcribe_import.engine.planning.bag import run_verify, scan_payload
    from transcribe_import.engine.planning.plan import DEFAULT_POLICY_ID
    from transcribe_import.engine.planning.planner import build_bag_plan, plan_from_groups
    from transcribe_import.engine.planning.scan import DEFAULT_SETTINGS, ScanCancelled

    if request.title is not None:
        raise ValueError("a notebook from a bag keeps its own title; leave --title out")
    try:
        bags = run_verify(request.roots, should_stop=should_stop, on_progress=on_progress)
    except ScanCancelled:
        return None
    if should_stop is not None and should_stop():
        return None
    foreign = [b for b in bags if not b.exported]
    if foreign:
        if len(foreign) < len(bags):
            exported = next(b for b in bags if b.exported)
            raise ValueError(
                f"{exported.name} was exported by this app and {foreign[0].name} was not; plan "
                "them one at a time (an export's notebooks keep their ids, another bag's get "
                "new ones)."
            )
        try:
            scan = scan_payload(
                foreign,
                settings=request.settings or DEFAULT_SETTINGS,
                workers=request.workers,
                should_stop=should_stop,
                on_progress=on_progress,
            )
        except ScanCancelled:
            return None
        if should_stop is not None and should_stop():
            return None
        try:
            planned = plan_from_groups(
                corpus,
                ForeignBagAdapter(foreign).group(scan),
                scan,
                mode=str(ModeName.BAG),
                policy_id=request.policy_id or DEFAULT_POLICY_ID,
                dedupe_scope=request.dedupe_scope,
                should_stop=should_stop,
            )
        except ScanCancelled:
            return None
        return PlannedScan(planned, scan)
    plan, scanned = build_bag_plan(
        corpus,
        bags,
        policy_id=request.policy_id or DEFAULT_POLICY_ID,
        settings=request.settings or DEFAULT_SETTINGS,
    )
    return PlannedScan(plan, scanned)


def is_bag(path: Path) -> bool:
    """Whether ``path`` is a folder that declares itself a BagIt bag (has a bagit.txt),
    whoever made it: it is then planned as a bag in every mode, checked against its
    manifests (docs/formats.md, "Importing a bag")."""
    return (path / "bagit.txt").is_file() and not (path / "bagit.txt").is_symlink()


def mode_for(paths: Sequence[Path], chosen: AdapterMode) -> AdapterMode:
    """The mode a set of dropped paths is planned with: bags are recognised as bags.

    Every path a bag: ``bag`` (whatever mode was chosen: a bag's files planned as page
    files would skip its manifests, and make a notebook titled "data"). Bags mixed with
    other paths: ValueError. No bag: the chosen mode.
    """
    bags = [p for p in paths if is_bag(p)]
    if not bags:
        return chosen
    if len(bags) == len(paths):
        return AdapterMode(ModeName.BAG)
    raise ValueError(
        f"{bags[0].name} is a BagIt bag and the other folders are not; import the bags on "
        "their own (a bag is checked against its manifests first)."
    )


def check_plan_editable(corpus: Corpus, plan: ImportPlan, where: str) -> None:
    """A plan with a run is frozen: refuse an edit, naming the run (``where`` names the plan)."""
    run = RunStore(corpus).frozen_by(plan.plan_id)
    if run is not None:
        raise TranscribeError(
            ErrorCode.PLAN_FROZEN,
            f"{where} was committed as run {run.run_id} and is frozen; make a new plan "
            "with `plan` to import differently.",
            path=where,
        )


def reorder(
    item: PlanItem,
    *,
    accept: bool = False,
    by: str | None = None,
    sequence: Sequence[PageRef] | None = None,
    exclude: Sequence[PageRef] | None = None,
    include: Sequence[PageRef] | None = None,
    skip: bool = False,
    as_copy: bool = False,
    verso_first: bool = False,
    versos_blank: bool = False,
) -> PlanItem:
    """One resolution of an item's page order (exactly one of the keywords); ValueError if bad.

    ``exclude`` and ``include`` take files (``PageRef``) as validate names them: a page
    source is left out of (or taken back into) the order; an unusable file is acknowledged
    (left out on purpose), and cannot be taken back since it cannot be imported. A
    ``PageRef`` with a number is that page of a file of several (a PDF): that page alone is
    left out or taken back; a ``sequence`` of such pages orders that file's pages
    (page_edits.py).

    ``skip`` and ``as_copy`` settle a notebook from a bag whose id the corpus uses for a
    different notebook (validate's ``notebook_conflict``): leave it out, or import it as
    a new notebook with new ids (planning/edits.py).

    ``by`` is an ordering rule (``name``, ``capture_time``, ``mtime``, ``interleave``,
    ``interleave_reversed``). ``verso_first`` and ``versos_blank`` record what a person
    says of a foliated notebook (ordering.py); they settle only the gaps they explain.
    """
    from transcribe_import.engine.planning import edits, ordering, page_edits
    from transcribe_import.engine.planning.plan import OrderingRule

    if skip:
        return edits.skip_notebook(item)
    if as_copy:
        return edits.import_as_copy(item)
    if verso_first:
        return ordering.verso_first(item)
    if versos_blank:
        return ordering.versos_blank(item)
    if accept:
        return ordering.accept(item)
    if by:
        return ordering.order_by(item, OrderingRule(by))
    if sequence:
        if any(page_edits.names_page(item, r) for r in sequence):
            return page_edits.order_pages(item, list(sequence))
        return ordering.sequence(item, [str(r) for r in sequence])
    if exclude:
        pages = [r for r in exclude if page_edits.names_page(item, r)]
        rest, ack = _split_unusable(item, [str(r) for r in exclude if r not in pages])
        if rest:
            item = ordering.exclude(item, rest)
        if ack:
            item = edits.acknowledge_unusable(item, ack)
        return page_edits.leave_out_pages(item, pages)
    if include:
        pages = [r for r in include if page_edits.names_page(item, r)]
        rest, ack = _split_unusable(item, [str(r) for r in include if r not in pages])
        if ack:
            raise ValueError(f"{ack[0]} cannot be imported (it is unusable): fix it and plan again")
        return page_edits.take_back_pages(ordering.include(item, rest) if rest else item, pages)
    raise ValueError(
        "say how to resolve the item: accept, by, sequence, exclude, include, skip, as_copy, "
        "verso_first or versos_blank"
    )


def turn_pages(item: PlanItem, names: Sequence[PageRef], degrees: int) -> PlanItem:
    """``order --turn FILE... ANGLE``: the pages named (``FILE``: every page of the file,
    ``FILE#N``: page N) turned ``degrees`` clockwise, 0 taking a turn back; ValueError in
    words for an angle other than 0, 90, 180 or 270, or a name that is no file of the item."""
    from transcribe_import.engine.planning import page_edits

    return page_edits.turn_pages(item, names, Turn.of(degrees))


def sideways_pages(item: PlanItem, hints: frozenset[Hint] | None = None) -> frozenset[str]:
    """The item's pages worth a "Turn it?" (by page id): ``sideways_turns``'s."""
    return frozenset(sideways_turns(item, hints))


def sideways_words(sideways: Sideways) -> str:
    """What a "Turn it?" says of a page (``sideways_turns``'s value for it), in words."""
    from transcribe_import.engine.planning import second_look

    return second_look.sideways_words(sideways)


def sideways_turns(item: PlanItem, hints: frozenset[Hint] | None = None) -> dict[str, Sideways]:
    """The item's pages worth a "Turn it?" (by page id), each with why and the turn (from
    its file's upright, as ``turn_pages`` takes it) that likely sets it right, None when
    nothing says which way it reads: its shape alone, or too little writing
    (planning/second_look.sideways_turns). A hint, never an edit; none when ``hints``
    leaves ``Hint.SIDEWAYS`` out."""
    from transcribe_import.engine.planning import second_look

    return second_look.sideways_turns(item, ALL_HINTS if hints is None else hints)


def turn_as_hinted(item: PlanItem, file: str, resolution: Resolution) -> PlanItem:
    """A "Turn it?" answered (``resolution``: one of its problem's, TURN_CLOCKWISE or
    TURN_ANTICLOCKWISE): the page ``file`` names turned so; ValueError in words otherwise."""
    from transcribe_import.engine.planning import second_look

    return second_look.turn_as_hinted(item, file, resolution)


def hinted_turn(resolution: Resolution) -> Turn:
    """The turn a "Turn it?"'s resolution makes (planning/second_look.hinted_turn)."""
    from transcribe_import.engine.planning import second_look

    return second_look.hinted_turn(resolution)


def page_hints(item: PlanItem, hints: frozenset[Hint] | None = None) -> tuple[PageHint, ...]:
    """The item's pages worth a second look (planning/second_look.py), of the kinds
    ``hints`` (None: every kind), each with its measure in words; never an edit."""
    from transcribe_import.engine.planning import second_look

    return second_look.page_hints(item, ALL_HINTS if hints is None else hints)


def blank_page_refs(item: PlanItem) -> tuple[PageRef, ...]:
    """The blank pages ``item`` imports (planning/second_look.py), named as ``reorder``'s
    ``exclude`` takes them."""
    from transcribe_import.engine.planning import second_look

    return second_look.blank_pages(item)


def leave_out_blank(item: PlanItem) -> PlanItem:
    """``item`` with every blank page it imports left out, in one edit (a file of one page
    excluded, a page of a file of several left out of it); ValueError in words when it has
    none."""
    blank = blank_page_refs(item)
    if not blank:
        raise ValueError(f"“{item.label}” has no blank page to leave out")
    return reorder(item, exclude=blank)


def turn_page_ids(item: PlanItem, turns: Mapping[str, Turn]) -> PlanItem:
    """The window's Turn: each page (by id) turned as given, from its file's upright."""
    from transcribe_import.engine.planning import page_edits

    return page_edits.with_turns(item, turns)


def rejudge_duplicates(corpus: Corpus, plan: ImportPlan, scope: DedupeScope) -> ImportPlan:
    """``plan`` with its duplicates judged again with ``scope``, against the corpus now (the
    window, when its duplicates setting changes under an open review)."""
    from transcribe_import.engine.planning.dedupe import rejudge

    return rejudge(corpus, plan, scope)


def _split_unusable(item: PlanItem, names: Sequence[str]) -> tuple[list[str], list[str]]:
    """Names of unusable files (not sources) go to the item's acknowledged list."""
    unusable = {u["rel"] for u in item.unusable}
    by_base = {rel.rsplit("/", 1)[-1]: rel for rel in unusable}
    rest: list[str] = []
    ack: list[str] = []
    for n in names:
        rel = n if n in unusable else by_base.get(n)
        (ack if rel else rest).append(rel or n)
    return rest, ack


def validate_plan(
    corpus: Corpus,
    plan: ImportPlan,
    *,
    settings: RenderSettings | None = None,
    workers: int = 2,
    hints: frozenset[Hint] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ValidationReport:
    """Every problem of ``plan`` against the disk and the corpus as they are now, with the
    pages worth a second look of the kinds ``hints`` (None: every kind) as information;
    ``progress(done, total)`` as the work goes (planning/validate.validate's)."""
    from transcribe_import.engine.planning import inks
    from transcribe_import.engine.planning.look_cache import VerdictCache
    from transcribe_import.engine.planning.validate import validate
    from transcribe_import.engine.runs.incomplete import unfinished_imports

    # Read once, and only when a notebook is to be completed (each run record is read).
    incomplete = functools.cache(lambda: unfinished_imports(corpus))
    store = RunStore(corpus)
    own = {r.run_id for r in store.runs_for_plan(plan.plan_id)}
    # A run of this plan whose record was quarantined still landed this plan's notebooks.
    own |= {rid for rid, pid in store.orphan_plans().items() if pid == plan.plan_id}
    # The rescans' verdicts this corpus kept (``plan`` made them, or an earlier validation)
    # are not made again, and those made now are kept for the next.
    inks.spill_into(corpus.root)
    with inks.verdicts_kept(VerdictCache(corpus.root)):
        return validate(
            corpus,
            plan,
            settings=settings,
            workers=workers,
            own_run_ids=own,
            unfinished_of=lambda notebook_id: incomplete().get(notebook_id),
            hints=ALL_HINTS if hints is None else hints,
            progress=progress,
        )


def load_plan_file(path: Path, progress: Callable[[int, int], None] | None = None) -> ImportPlan:
    """A plan document from a file (``PlanDocumentError`` naming the file and the fault; a
    coded ``TranscribeError`` when the disk fails to read it). ``progress`` (done, of how
    many) is told as the document is made a plan: seconds for 100,000 sources."""
    from transcribe_import.engine.planning.plan import load_plan

    return load_plan(path, progress)


def save_plan_file(plan: ImportPlan, path: Path) -> None:
    """Write ``plan`` to ``path`` as ``plan -o`` does (an atomic replace)."""
    from transcribe_import.engine.planning.plan import save_plan
    from transcribe_import.engine.storage.fsio import problem_from_oserror

    try:
        save_plan(plan, path)
    except OSError as exc:
        raise problem_from_oserror(exc, path, "writing the plan to") from exc


@dataclass(frozen=True)
class NotImported:
    """A file the scan found that the plan does not import, and why (in plain words).

    ``item_id``: the notebook it was found beside (its folder holds that notebook's pages),
    or None when it belongs to none (a folder of no page files, a file given alone).
    """

    rel: str
    reason: str
    item_id: str | None

    @property
    def sentence(self) -> str:
        """The file and why, in one line (a reason that names the file already is enough)."""
        return self.reason if self.reason.startswith(self.rel) else f"{self.rel}: {self.reason}"


def not_imported(plan: ImportPlan) -> list[NotImported]:
    """Every file found and not imported, each once: not page files, unreadable files and
    folders, files the grouping left out, and files a notebook cannot use (corrupt,
    encrypted). System junk and hidden files are left out, as the scan tells them apart.
    """
    seen: set[str] = set()
    out: list[NotImported] = []

    def add(rel: str, reason: str, item_id: str | None) -> None:
        if rel not in seen:
            seen.add(rel)
            out.append(NotImported(rel, reason, item_id))

    for it in plan.items:
        for u in it.unusable:
            add(str(u["rel"]), unusable_words(u), it.item_id)
    entries = [
        e
        for e in (*plan.provenance.get("not_planned", []), *plan.provenance.get("ignored", []))
        if isinstance(e, dict) and not e.get("junk")
    ]
    if not entries:
        return out  # the usual case: the folders of 100,000 sources are not worth reading
    folders: dict[str, str] = {}
    for it in plan.items:
        for s in it.sources:
            folders.setdefault(_folder_of(s.provenance.rel), it.item_id)
    for e in entries:
        rel = str(e.get("rel", ""))
        add(rel, str(e.get("reason", "")), folders.get(_folder_of(rel)))
    return out


def found_not_imported(plan: ImportPlan) -> list[NotImported]:
    """Every file (or page of a file of several) the scan found that this plan does not
    import, and why: ``not_imported``'s, then what a person left out in the review (Leave
    Out, ``order --exclude``, a page replaced by its rescan in the same import). What a run
    says it did not import (``show``, the Runs view): with the pages it landed and the
    duplicates it skipped, everything its scan found. Duplicates are told by the run's
    outcomes, not here."""
    from transcribe_import.engine.planning.reimport import left_out_again

    out = not_imported(plan)
    for it in plan.items:
        again = set(left_out_again(it))
        for s in it.sources:
            if s.excluded:
                reason = (
                    "left out again, as it was left out of an earlier import of its folder"
                    if s.provenance.rel in again
                    else "left out in the review"
                )
                out.append(NotImported(s.provenance.rel, reason, it.item_id))
            elif s.left_out:
                for p in s.left_out:
                    out.append(
                        NotImported(
                            str(PageRef(s.provenance.rel, p.page_index + 1)),
                            f"page {p.page_index + 1} of the file, left out in the review",
                            it.item_id,
                        )
                    )
    return out


def _folder_of(rel: str) -> str:
    """The folder part of a scan's relative path (``a/b/c.jpg`` -> ``a/b``; a name alone: "").

    A scan's relative paths are normalised, so the last slash splits them, at a twentieth
    of ``posixpath.dirname``'s cost on 100,000 sources.
    """
    return rel.rpartition("/")[0]


def nothing_to_import(plan: ImportPlan) -> str | None:
    """Why committing this plan would import nothing at all (None: it imports something).

    A plan with no notebook (an empty folder, only notes.txt, a zipped folder) is refused,
    in the window and by ``commit``, with these words instead of committing an empty run.
    A plan whose notebooks import no page (every file left out, or already in the corpus)
    is not: its run records each skip.
    """
    if plan.items:
        return None
    found = len(not_imported(plan))
    if found:
        return (
            f"Nothing to import: none of the {counted(found, 'file')} found is a page file this "
            "app can import (the plan lists each with its reason). Add folders of page images "
            "or PDFs."
        )
    return "Nothing to import: no file was found. Add folders of page images or PDFs."


class PlanItemState(enum.StrEnum):
    """What a plan item's badge says before commit, worst first (not a run's item state)."""

    ERROR = "error"  # validate found an error in it: it cannot be committed as it is
    NEEDS_ORDER_DECISION = "needs_order_decision"  # its page order is ambiguous
    # Part of the folder is in one notebook already: Complete it is proposed (reimport.py).
    PARTLY_IMPORTED = "partly_imported"
    # A page looks like one in the corpus or the plan: a rescan? (planning/lookalikes.py)
    LOOKS_LIKE = "looks_like"
    NOTHING_TO_IMPORT = "nothing_to_import"  # every page is left out: it imports nothing
    ALREADY_IMPORTED = "already_imported"  # every page is in the corpus: it imports nothing
    DUPLICATE_SKIPS = "duplicate_skips"  # ready, and some of its files are skipped
    READY = "ready"


# The warnings that are an item's badge: a folder imported before, or nothing left in it.
_BADGE_WARNINGS = {
    ProblemCode.PARTLY_IMPORTED: PlanItemState.PARTLY_IMPORTED,
    ProblemCode.LOOKS_LIKE: PlanItemState.LOOKS_LIKE,
    ProblemCode.NOTHING_TO_IMPORT: PlanItemState.NOTHING_TO_IMPORT,
    ProblemCode.ALREADY_IMPORTED: PlanItemState.ALREADY_IMPORTED,
}


def item_state(
    item: PlanItem, report: ValidationReport | None, *, order_ambiguous: bool | None = None
) -> PlanItemState:
    """The one badge of a plan item, for the review's State column and the CLI's lines.

    ``report`` is this plan's validation (None: not validated yet, so no error is known).
    ``order_ambiguous`` is whether the item's page order needs a decision, for a caller
    that has checked it already (the window remembers it per item, since the check reads
    every name). None: with a report, validate has checked it (an ambiguous order is one of
    its errors); without one, it is checked here.
    """
    if report is not None and any(
        p.severity is ProblemSeverity.ERROR for p in report.for_item(item.item_id)
    ):
        return PlanItemState.ERROR
    if order_ambiguous is None and report is None:
        from transcribe_import.engine.planning import ordering

        order_ambiguous = bool(ordering.find_ambiguities(item))
    if order_ambiguous:
        return PlanItemState.NEEDS_ORDER_DECISION
    told = {p.code for p in report.for_item(item.item_id)} if report is not None else set()
    for code, state in _BADGE_WARNINGS.items():
        if code in told:
            return state
    if item.imported_page_count() == 0 and item.restore is None:
        return PlanItemState.NOTHING_TO_IMPORT  # never Ready: it would import nothing
    if item.has_duplicates():
        return PlanItemState.DUPLICATE_SKIPS
    return PlanItemState.READY


def item_states(plan: ImportPlan, report: ValidationReport) -> dict[str, PlanItemState]:
    """Every item's badge (``item_state``) under ``report``, this plan's validation, by id.

    Made once per report where the report is made (the window's validation worker): a
    badge reads the report's lines of its item, and a window that worked them out at
    paint time spent its thread on them each time a plan of thousands of notebooks was
    shown or validated again.
    """
    return {item.item_id: item_state(item, report) for item in plan.items}
