"""The use cases the command line and the window both call: plan, validate, commit, runs, doctor.

Each function here is one thing a person asks of the app, written once. The CLI
(``cli/``) turns them into commands, words on a terminal and exit codes; the window
(``gui/``) runs them on worker threads and shows their values. Neither face holds a
rule of its own: what a run "interrupted" is, which runs a commit continues, what a
plan's discovery record says, which exit code a result has, are decided here or in
the layer below.

Imports that pull in the media decoders (Pillow, pypdf, pypdfium2) are deferred
into the functions that scan or validate, so listing runs or notebooks starts fast.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.planning.plan import DedupeScope, ImportPlan, Op, PlanItem
from transcribe_import.engine.runs.model import (
    ItemOutcome,
    ItemState,
    RunControl,
    RunEvent,
    RunRecord,
    RunResult,
    RunStatus,
)
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.storage.corpus import Corpus, NotebookSummary

if TYPE_CHECKING:
    from transcribe_import.engine.base.findings import DoctorReport
    from transcribe_import.engine.media.kinds import RenderSettings
    from transcribe_import.engine.planning.scan import ScanProgress, ScanResult
    from transcribe_import.engine.planning.validate import ValidationReport


# -- exit codes ----------------------------------------------------------------------------


class ExitCode(enum.IntEnum):
    """The process exit statuses (docs/cli.md); the window uses the same ones."""

    OK = 0  # success; a run that ended complete; doctor found nothing to report
    PROBLEMS = 1  # a run that ended partial or failed; doctor reported problems
    USAGE = 2  # bad arguments, missing file, unreadable plan document
    INVALID_PLAN = 3  # validate errors: nothing was committed
    CANCELLED = 4  # the run ended cancelled or cancelled_with_commits
    LOCKED = 5  # the corpus or the run is locked by another process
    INTERRUPTED = 6  # paused, or stopped by a signal other than Ctrl-C: resumable


_LOCKED_CODES = frozenset(
    {ErrorCode.CORPUS_BUSY, ErrorCode.NOTEBOOK_BUSY, ErrorCode.RUN_BUSY, ErrorCode.EXPORT_LOCKED}
)
# Fixed by changing what was asked (a setting, a destination), not by waiting or repairing.
_USAGE_CODES = frozenset(
    {
        ErrorCode.BAD_SETTING,
        ErrorCode.EXPORT_DESTINATION_NOT_EMPTY,
        ErrorCode.EXPORT_DESTINATION_INVALID,
    }
)


def exit_code_for_status(status: RunStatus) -> ExitCode:
    if not status.terminal:
        return ExitCode.INTERRUPTED
    if status is RunStatus.COMPLETE:
        return ExitCode.OK
    if status in (RunStatus.CANCELLED, RunStatus.CANCELLED_WITH_COMMITS):
        return ExitCode.CANCELLED
    return ExitCode.PROBLEMS


def exit_code_for_result(result: RunResult) -> ExitCode:
    if result.paused or result.superseded:
        return ExitCode.INTERRUPTED
    return exit_code_for_status(result.status)


def exit_code_for_error(exc: TranscribeError) -> ExitCode:
    if exc.code in _USAGE_CODES:
        return ExitCode.USAGE
    if exc.code in _LOCKED_CODES:
        return ExitCode.LOCKED
    if exc.code is ErrorCode.PLAN_FROZEN:
        return ExitCode.INVALID_PLAN
    return ExitCode.PROBLEMS


# -- plan ----------------------------------------------------------------------------------


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
    roots: Sequence[Path],
    *,
    mode: str = "folders",
    policy_id: str | None = None,
    title: str | None = None,
    dedupe_scope: DedupeScope = DedupeScope.NOTEBOOK,
    settings: RenderSettings | None = None,
    workers: int = 2,
    should_stop: Callable[[], bool] | None = None,
    on_progress: Callable[[ScanProgress], None] | None = None,
) -> PlannedScan | None:
    """Scan ``roots`` and plan the result with an adapter (``mode``); read-only.

    ``mode="bag"``: each root is a bag exported by Transcribe, verified whole before it is
    planned (a refusal is a ``TranscribeError`` with a ``bag_*`` code naming the file).

    Returns None when ``should_stop`` turned true before the plan was made. Raises
    ``ValueError`` for a mode or title that does not fit, and ``TranscribeError`` for a
    root that cannot be read.
    """
    from transcribe_import.engine.planning.plan import DEFAULT_POLICY_ID
    from transcribe_import.engine.planning.planner import build_plan
    from transcribe_import.engine.planning.scan import DEFAULT_SETTINGS, ScanCancelled, run_scan

    if mode == "bag":
        return _plan_bags(
            corpus, roots, policy_id or DEFAULT_POLICY_ID, title, settings, should_stop, on_progress
        )
    try:
        result = run_scan(
            roots,
            on_progress=on_progress,
            settings=settings or DEFAULT_SETTINGS,
            workers=workers,
            should_stop=should_stop,
        )
    except ScanCancelled:
        return None
    if should_stop is not None and should_stop():
        return None
    plan = build_plan(
        corpus,
        result,
        mode=mode,
        policy_id=policy_id or DEFAULT_POLICY_ID,
        title=title,
        dedupe_scope=dedupe_scope,
    )
    return PlannedScan(plan, result)


def _plan_bags(
    corpus: Corpus | None,
    roots: Sequence[Path],
    policy_id: str,
    title: str | None,
    settings: RenderSettings | None,
    should_stop: Callable[[], bool] | None,
    on_progress: Callable[[ScanProgress], None] | None,
) -> PlannedScan | None:
    from transcribe_import.engine.planning.bag import run_verify
    from transcribe_import.engine.planning.planner import build_bag_plan
    from transcribe_import.engine.planning.scan import DEFAULT_SETTINGS, ScanCancelled

    if title is not None:
        raise ValueError("a notebook from a bag keeps its own title; leave --title out")
    try:
        bags = run_verify(roots, should_stop=should_stop, on_progress=on_progress)
    except ScanCancelled:
        return None
    if should_stop is not None and should_stop():
        return None
    plan, scanned = build_bag_plan(
        corpus, bags, policy_id=policy_id, settings=settings or DEFAULT_SETTINGS
    )
    return PlannedScan(plan, scanned)


def is_bag(path: Path) -> bool:
    """Whether ``path`` is a folder that declares itself a BagIt bag (has a bagit.txt)."""
    return (path / "bagit.txt").is_file() and not (path / "bagit.txt").is_symlink()


def mode_for(paths: Sequence[Path], chosen: str) -> str:
    """The mode a set of dropped paths is planned with: bags are recognised as bags.

    Every path a bag: ``bag`` (whatever mode was chosen). Bags mixed with other folders:
    ValueError, since a bag's files planned as page scans would import its manifests'
    neighbours as pages and lose its ids. No bag: the chosen mode.
    """
    bags = [p for p in paths if is_bag(p)]
    if not bags:
        return chosen
    if len(bags) == len(paths):
        return "bag"
    raise ValueError(
        f"{bags[0].name} is an exported bag and the other folders are not; import the bags "
        "on their own (a bag keeps its notebooks' ids)."
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
    sequence: Sequence[str] | None = None,
    exclude: Sequence[str] | None = None,
    include: Sequence[str] | None = None,
    skip: bool = False,
    as_copy: bool = False,
    verso_first: bool = False,
    versos_blank: bool = False,
) -> PlanItem:
    """One resolution of an item's page order (exactly one of the keywords); ValueError if bad.

    ``exclude`` and ``include`` take names as validate shows them: a page source is left
    out of (or taken back into) the order; an unusable file is acknowledged (left out on
    purpose), and cannot be taken back since it cannot be imported.

    ``skip`` and ``as_copy`` settle a notebook from a bag whose id the corpus uses for a
    different notebook (validate's ``notebook_conflict``): leave it out, or import it as
    a new notebook with new ids (planning/bag.py).

    ``by`` is an ordering rule (``name``, ``capture_time``, ``mtime``, ``interleave``,
    ``interleave_reversed``). ``verso_first`` and ``versos_blank`` record what a person
    says of a foliated notebook (ordering.py); they settle only the gaps they explain.
    """
    from transcribe_import.engine.planning import bag, edits, ordering
    from transcribe_import.engine.planning.plan import OrderingRule

    if skip:
        return bag.skip_notebook(item)
    if as_copy:
        return bag.import_as_copy(item)
    if verso_first:
        return ordering.verso_first(item)
    if versos_blank:
        return ordering.versos_blank(item)
    if accept:
        return ordering.accept(item)
    if by:
        return ordering.order_by(item, OrderingRule(by))
    if sequence:
        return ordering.sequence(item, list(sequence))
    if exclude:
        rest, ack = _split_unusable(item, exclude)
        if rest:
            item = ordering.exclude(item, rest)
        if ack:
            item = edits.acknowledge_unusable(item, ack)
        return item
    if include:
        rest, ack = _split_unusable(item, include)
        if ack:
            raise ValueError(f"{ack[0]} cannot be imported (it is unusable): fix it and plan again")
        return ordering.include(item, rest)
    raise ValueError(
        "say how to resolve the item: accept, by, sequence, exclude, include, skip, as_copy, "
        "verso_first or versos_blank"
    )


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


# -- validate ------------------------------------------------------------------------------


def validate_plan(
    corpus: Corpus,
    plan: ImportPlan,
    *,
    settings: RenderSettings | None = None,
    workers: int = 2,
) -> ValidationReport:
    """Every problem of ``plan`` against the disk and the corpus as they are now."""
    from transcribe_import.engine.planning.validate import validate

    store = RunStore(corpus)
    own = {r.run_id for r in store.runs_for_plan(plan.plan_id)}
    # A run of this plan whose record was quarantined still landed this plan's notebooks.
    own |= {rid for rid, pid in store.orphan_plans().items() if pid == plan.plan_id}
    return validate(corpus, plan, settings=settings, workers=workers, own_run_ids=own)


# -- commit, resume, cancel ----------------------------------------------------------------


class PlanInvalid(Exception):
    """The plan has validate errors: nothing was committed. ``report`` lists them."""

    def __init__(self, report: ValidationReport) -> None:
        super().__init__(f"{len(report.errors)} validate error(s)")
        self.report = report


@dataclass(frozen=True)
class PreparedRun:
    """The run a commit is about to execute, with its frozen plan."""

    record: RunRecord
    plan: ImportPlan
    continued: bool  # the run existed before: a resume, or the same plan committed again

    @property
    def run_id(self) -> str:
        return self.record.run_id


def discovery_for(plan: ImportPlan, plan_file: Path | None = None) -> dict[str, Any]:
    """The run record's summary of where the plan came from (the same for CLI and window)."""
    doc: dict[str, Any] = {
        "roots": plan.provenance.get("roots", []),
        "mode": plan.provenance.get("mode"),
    }
    if plan_file is not None:
        doc["plan_file"] = str(plan_file.absolute())
    return doc


def prepare_commit(
    corpus: Corpus,
    plan: ImportPlan,
    *,
    plan_file: Path | None = None,
    settings: RenderSettings | None = None,
    workers: int = 2,
) -> PreparedRun:
    """Validate ``plan`` as the disk is now, then find the run it continues or create one.

    Raises ``PlanInvalid`` when validation finds errors, and ``TranscribeError(PLAN_FROZEN)``
    when the plan was committed before with different contents.
    """
    from transcribe_import.engine.runs.service import prepare_run

    report = validate_plan(corpus, plan, settings=settings, workers=workers)
    if not report.ok:
        raise PlanInvalid(report)
    record, continued = prepare_run(corpus, plan, discovery_for(plan, plan_file))
    discard_draft(corpus, plan.plan_id)  # the run holds the plan now (frozen with it)
    return PreparedRun(record, plan, continued)


# -- drafts: a plan under review, kept as it changes ---------------------------------------


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
    try:
        names = fsio.list_dir(folder)
    except FileNotFoundError:
        return []
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
        pages = sum(pages_planned(it) for it in plan.items)
        out.append(Draft(plan.plan_id, path, saved, len(plan.items), pages))
    out.sort(key=lambda d: d.saved_at, reverse=True)
    return out


def load_plan_file(path: Path) -> ImportPlan:
    """A plan document from a file (``PlanDocumentError`` naming the file and the fault)."""
    from transcribe_import.engine.planning.plan import load_plan

    return load_plan(path)


def save_plan_file(plan: ImportPlan, path: Path) -> None:
    """Write ``plan`` to ``path`` as ``plan -o`` does (an atomic replace)."""
    from transcribe_import.engine.planning.plan import save_plan
    from transcribe_import.engine.storage.fsio import problem_from_oserror

    try:
        save_plan(plan, path)
    except OSError as exc:
        raise problem_from_oserror(exc, path, "writing the plan to") from exc


def load_draft(corpus: Corpus, plan_id: str) -> ImportPlan:
    """The draft's plan (``PlanDocumentError`` when it cannot be read)."""
    from transcribe_import.engine.planning.plan import load_plan

    return load_plan(_draft_path(corpus, plan_id))


def discard_draft(corpus: Corpus, plan_id: str) -> None:
    """Forget a draft (nothing if there is none)."""
    from transcribe_import.engine.storage import fsio

    fsio.remove(_draft_path(corpus, plan_id))


# A run that ended without landing everything: committing its plan again retries the rest.
RETRYABLE = frozenset(
    {RunStatus.PARTIAL, RunStatus.FAILED, RunStatus.CANCELLED, RunStatus.CANCELLED_WITH_COMMITS}
)


def can_retry(status: RunStatus) -> bool:
    """Whether "retry what did not land" applies to a run that ended as ``status``."""
    return status in RETRYABLE


def prepare_retry(
    corpus: Corpus,
    run_id: str,
    *,
    settings: RenderSettings | None = None,
    workers: int = 2,
) -> PreparedRun:
    """Commit the frozen plan of an ended run again: the contract's retry of what did not land.

    The same as ``commit`` of that plan (``prepare_commit``): it is validated again, and a
    new run with ``retry_of`` imports only what is not there yet; pages already committed
    are recognised by their ids and never doubled. A plan whose retry already completed
    comes back as that run (``execute`` then does nothing).
    """
    store = RunStore(corpus)
    record = store.load(run_id)
    if not can_retry(record.status):
        raise TranscribeError(
            ErrorCode.RUN_TERMINAL if record.status.terminal else ErrorCode.RUN_BUSY,
            f"Run {run_id} is {record.status.value}: only a partial, failed or cancelled run "
            "is retried. Resume an interrupted run instead.",
            item=run_id,
        )
    return prepare_commit(
        corpus, store.load_plan(run_id, record), settings=settings, workers=workers
    )


def prepare_resume(corpus: Corpus, run_id: str) -> PreparedRun:
    """An existing run with its frozen plan, to be executed again (``execute``)."""
    store = RunStore(corpus)
    record = store.load(run_id)
    return PreparedRun(record, store.load_plan(run_id, record), True)


def execute(
    corpus: Corpus,
    run_id: str,
    *,
    workers: int = 2,
    control: RunControl | None = None,
    on_event: Callable[[RunEvent], None] | None = None,
    settings: RenderSettings | None = None,
) -> RunResult:
    """Execute (or resume) a prepared run to its end, or until paused or cancelled."""
    from transcribe_import.engine.runs.executor import execute_run

    if workers < 1:
        raise ValueError("workers must be at least 1")
    try:
        return execute_run(
            corpus, run_id, workers=workers, control=control, on_event=on_event, settings=settings
        )
    except TranscribeError as exc:
        # The machine, not the run, failed before the executor's own loop could say so (no
        # room for the run's lock file, a read-only disk): the run is left as it was,
        # resumable, and the result says why, as a disk that fills during an item does.
        if exc.code not in _MACHINE_CODES:
            raise
        record = RunStore(corpus).load(run_id)
        if record.status.terminal:
            raise
        return RunResult(run_id, record.status, record, stopped_by=str(exc))


_MACHINE_CODES = frozenset({ErrorCode.DISK_FULL, ErrorCode.IO_ERROR, ErrorCode.READ_ONLY})


def cancel(corpus: Corpus, run_id: str) -> RunRecord:
    """Ask a run to stop its pending items; a run no process executes is ended at once."""
    from transcribe_import.engine.runs.service import cancel_run

    return cancel_run(corpus, run_id)


# -- runs ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunSummary:
    """One import run as a list shows it (a copy: the record's dict stays behind)."""

    run_id: str
    status: RunStatus
    interrupted: bool  # not terminal and no process executes it: resumable
    created_at: str
    updated_at: str
    attempt: int
    committed: int
    skipped: int
    failed: int
    not_done: int  # pending + cancelled_pending
    pages_committed: int
    roots: tuple[str, ...]
    # Pages of the run in the corpus, unfinished items' included (they land in checkpoints).
    pages_landed: int = 0
    # Its last transition was a person's Pause, not a crash (the record's history says so).
    paused: bool = False

    @classmethod
    def of(cls, record: RunRecord, interrupted: bool) -> RunSummary:
        counts = record.counts()
        roots = record.doc.get("discovery", {}).get("roots") or ()
        history = record.doc.get("history") or [{}]
        last = history[-1] if isinstance(history[-1], dict) else {}
        return cls(
            run_id=record.run_id,
            status=record.status,
            interrupted=interrupted,
            created_at=record.created_at,
            updated_at=str(record.doc.get("updated_at") or record.created_at),
            attempt=record.attempt,
            committed=counts[ItemState.COMMITTED],
            skipped=counts[ItemState.SKIPPED],
            failed=counts[ItemState.FAILED],
            not_done=counts[ItemState.PENDING] + counts[ItemState.CANCELLED_PENDING],
            pages_committed=int(record.summary()["pages_committed"]),
            roots=tuple(str(r) for r in roots if isinstance(r, str)),
            pages_landed=record.pages_landed(),
            paused=not record.status.terminal and last.get("event") == "paused",
        )

    def to_json(self, record: RunRecord) -> dict[str, Any]:
        return {**record.summary(), "interrupted": self.interrupted}


@dataclass(frozen=True)
class OutcomeRow:
    """One plan item with its outcome so far, as outcome tables show it."""

    item_id: str
    label: str
    op: Op
    notebook_id: str
    pages_planned: int
    outcome: ItemOutcome
    started: bool = False  # being committed right now (an item_started event arrived)

    @property
    def state(self) -> ItemState:
        return self.outcome.state

    def with_outcome(self, outcome: ItemOutcome) -> OutcomeRow:
        return replace(self, outcome=outcome, started=False)


def outcome_rows(plan: ImportPlan, record: RunRecord) -> list[OutcomeRow]:
    outcomes = record.outcomes()
    return [
        OutcomeRow(
            it.item_id,
            it.label,
            it.op,
            it.notebook_id,
            pages_planned(it),
            outcomes[it.item_id],
        )
        for it in plan.items
    ]


@dataclass(frozen=True)
class NotImported:
    """A file the scan found that the plan does not import, and why (in plain words).

    ``item_id``: the notebook it was found beside (its folder holds that notebook's pages),
    or None when it belongs to none (a folder of no page files, a file given alone).
    """

    rel: str
    reason: str
    item_id: str | None


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
            add(str(u.get("rel", "")), str(u.get("reason") or u.get("message", "")), it.item_id)
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


def _folder_of(rel: str) -> str:
    """The folder part of a scan's relative path (``a/b/c.jpg`` -> ``a/b``; a name alone: "").

    A scan's relative paths are normalised, so the last slash splits them, at a twentieth
    of ``posixpath.dirname``'s cost on 100,000 sources.
    """
    return rel.rpartition("/")[0]


def nothing_to_import(plan: ImportPlan) -> str | None:
    """Why committing this plan would import nothing at all (None: it imports something).

    A plan with no notebook (an empty folder, only notes.txt) is refused in the window
    with these words instead of committing an empty run.
    """
    if plan.items:
        return None
    found = len(not_imported(plan))
    if found:
        return (
            f"Nothing to import: none of the {found} file(s) found is a page file this app "
            "can import (see Not imported for each reason). Add folders of page images or PDFs."
        )
    return "Nothing to import: no file was found. Add folders of page images or PDFs."


def pages_planned(item: PlanItem) -> int:
    """The pages an item will add: its imported sources' pages (skips and exclusions out)."""
    return sum(len(s.pages) for s in item.imported_sources())


@dataclass(frozen=True)
class RunListing:
    summary: RunSummary
    record: RunRecord


def list_runs(corpus: Corpus) -> list[RunListing]:
    """Every readable run, newest first, each told interrupted or not."""
    store = RunStore(corpus)
    return [RunListing(RunSummary.of(r, store.is_interrupted(r)), r) for r in store.list_runs()]


def run_listing_problems(corpus: Corpus) -> list[str]:
    """Why a run listing is incomplete: each run record that cannot be read, and what to do."""
    _records, damaged = RunStore(corpus).read_all()
    return [str(exc).rstrip(".") for exc in damaged]  # each names the file and says: doctor


def interrupted_runs(corpus: Corpus) -> list[RunRecord]:
    """Runs no process executes that have not ended: the ones to resume or cancel."""
    store = RunStore(corpus)
    return [r for r in store.list_runs() if store.is_interrupted(r)]


@dataclass(frozen=True)
class RunDetail:
    summary: RunSummary
    record: RunRecord
    plan: ImportPlan
    rows: tuple[OutcomeRow, ...]


def show_run(corpus: Corpus, run_id: str) -> RunDetail:
    """One run with its frozen plan and every item's outcome."""
    store = RunStore(corpus)
    record = store.load(run_id)
    plan = store.load_plan(run_id, record)
    summary = RunSummary.of(record, store.is_interrupted(record))
    return RunDetail(summary, record, plan, tuple(outcome_rows(plan, record)))


# -- pages ---------------------------------------------------------------------------------


def render_preview(
    path: Path, media_type: str, page_index: int, max_side: int, *, shown_as: str
) -> bytes:
    """One page of a source file as a PNG no larger than ``max_side``: the window's previews.

    Rendered exactly as an import would (orientation, colour, bounds), only smaller.
    Raises TranscribeError naming ``shown_as`` when the file cannot be read.
    """
    from transcribe_import.engine.media.decode import render_pages
    from transcribe_import.engine.media.kinds import RenderSettings

    pages = render_pages(
        path, media_type, [page_index], RenderSettings(max_side=max_side), display_path=shown_as
    )
    return next(iter(pages)).png


# -- the corpus ----------------------------------------------------------------------------


def open_corpus(data_dir: Path) -> Corpus:
    """The corpus in ``data_dir`` (created on first use), once the settings are checked."""
    from transcribe_import.engine.storage.locks import check_environment

    check_environment()
    corpus = Corpus.open(data_dir)
    # Frozen plans of earlier versions sat among the run records: moved out, crash-safely.
    RunStore(corpus).migrate_plan_snapshots()
    return corpus


class WindowClaim:
    """The window lock (``corpus/.window.lock``): held while a window has the corpus open.

    Advisory only: it guards nothing (the corpus, notebook and run locks do that); it lets
    a second window, of any user or process, tell that another has the corpus open.
    """

    def __init__(self, corpus: Corpus) -> None:
        from transcribe_import.engine.storage import locks

        self._lock = locks.make_lock(corpus.root / ".window.lock")
        self.held = locks.try_acquire(self._lock)

    def release(self) -> None:
        if self.held:
            self._lock.release()
            self.held = False


def list_notebooks(corpus: Corpus) -> list[NotebookSummary]:
    return corpus.list_notebooks()


def listing_problems(corpus: Corpus) -> list[str]:
    """Why a notebook listing may be incomplete: a damaged index, notebooks it does not name.

    A listing comes from the index; when the index is missing, damaged or behind the
    notebook folders, an empty or short list would be a lie. Cheap (one directory read),
    read-only: ``check_corpus`` (doctor) is what repairs.
    """
    from transcribe_import.engine.base.ids import is_valid_id
    from transcribe_import.engine.storage import fsio

    out = [
        f"line {d.line_no} of {corpus.index_path} cannot be read ({d.reason})"
        for d in corpus.index_damage()
    ]
    try:
        names = fsio.list_dir(corpus.notebooks_dir)
    except FileNotFoundError:
        names = []
    registered = corpus.index_entries()
    unlisted = [n for n in names if is_valid_id(n) and n not in registered]
    if unlisted:
        out.append(
            f"{len(unlisted)} notebook folder(s) in {corpus.notebooks_dir} are not in the "
            f"index (for example {sorted(unlisted)[0]})"
        )
    return out


def check_corpus(
    corpus: Corpus, *, verify_hashes: bool = False, restore_from: Sequence[Path] = ()
) -> DoctorReport:
    """Doctor: recover what crashes left, quarantine what cannot be read, report the rest.

    ``restore_from``: files or folders from which missing files are copied back, each only
    when its bytes have the sha256 the notebook recorded.
    """
    from transcribe_import.engine.doctor import doctor

    return doctor(corpus, verify_hashes=verify_hashes, restore_from=restore_from)


def remove_empty_notebook(corpus: Corpus, notebook_id: str) -> Path:
    """Remove a notebook that holds no page, on a person's request; returns where it went.

    Refused (TranscribeError, nothing changed) for a notebook with any page or source.
    """
    from transcribe_import.engine.ingest.empty import remove_empty_notebook as remove

    return remove(corpus, notebook_id)


# -- export --------------------------------------------------------------------------------

# Imported here, with the use case, to keep the export's addition in one place; the model
# loads no decoder, so listing and the other cheap commands stay fast.
from collections.abc import Generator  # noqa: E402

from transcribe_import.engine.export.model import (  # noqa: E402
    ExportProgress,
    ExportResult,
    ExportStatus,
)

# An export names its notebooks on the command line: an unknown or malformed id there is a
# mistake in the arguments, exit 2 (docs/cli.md), where elsewhere it means a damaged corpus.
_EXPORT_ARGUMENT_CODES = frozenset({ErrorCode.NOTEBOOK_NOT_FOUND, ErrorCode.INVALID_ID})


def export_notebooks(
    corpus: Corpus,
    notebook_ids: Sequence[str] | None,
    destination: Path | None = None,
    *,
    should_stop: Callable[[], bool] | None = None,
) -> Generator[ExportProgress, None, ExportResult]:
    """Export notebooks (None: every notebook, oldest first) as a BagIt bag.

    A generator of progress events whose return value is the ``ExportResult``; without
    ``destination``, a fresh folder under the data directory's ``exports/``. See
    ``engine/export/bag.export_bag`` for what is refused and when.
    """
    from transcribe_import.engine.export.bag import export_bag
    from transcribe_import.engine.storage.fsio import problem_from_oserror

    try:
        ids = (
            [n.notebook_id for n in corpus.list_notebooks()]
            if notebook_ids is None
            else list(notebook_ids)
        )
    except OSError as exc:
        raise problem_from_oserror(exc, corpus.index_path, "reading") from exc
    return export_bag(corpus, ids, destination, should_stop=should_stop)


def exit_code_for_export(result: ExportResult) -> ExitCode:
    if result.status is ExportStatus.COMPLETE:
        return ExitCode.OK
    if result.status is ExportStatus.CANCELLED:
        return ExitCode.CANCELLED
    return ExitCode.PROBLEMS


def exit_code_for_export_error(exc: TranscribeError) -> ExitCode:
    """An export's refusal: an unknown notebook named is usage (2), else as any coded error."""
    if exc.code in _EXPORT_ARGUMENT_CODES:
        return ExitCode.USAGE
    return exit_code_for_error(exc)
