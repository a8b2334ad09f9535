"""Hot folders: every drop in a watched folder planned, committed or queued, and accounted for.

``watch_pass`` is one poll of the watched folders: each drop whole and unchanged is claimed
(``engine/watch/claims.py``), planned with the defaults (a bag verified against its
manifests, its notebooks keeping their ids), and committed without a person when its plan
is valid and asks nothing; a plan that needs a decision is kept as a draft (the window's
plans to review) and the drop waits in the queue. Every step is a drop record in the corpus
(``engine/watch/records.py``), so a watcher killed at any point and started again takes
each drop up where it was: a drop being committed is committed again with its kept plan,
which the run records make a resume (the contract's idempotent equality), never a second
import. The CLI's ``watch`` loops on it; the window runs it on a timer's worker.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from transcribe_import.engine.api.commit import PlanInvalid, prepare_commit
from transcribe_import.engine.api.drafts import save_draft
from transcribe_import.engine.api.plans import PlanItemState, PlanRequest, item_state, plan_paths
from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.text import counted
from transcribe_import.engine.planning.plan import (
    AdapterMode,
    ImportPlan,
    ModeName,
    PlanDocumentError,
    load_plan,
    save_plan,
)
from transcribe_import.engine.runs.model import RunControl, RunStatus
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.engine.watch import claims, drops, records
from transcribe_import.engine.watch.records import DropKind, DropRecord, DropState

if TYPE_CHECKING:
    from transcribe_import.engine.planning.problems import ValidationReport

log = logging.getLogger(__name__)

DEFAULT_SETTLE_SECONDS = 60.0
DEFAULT_INTERVAL_SECONDS = 10.0

# The badges a drop's plan may carry and still be committed without a person.
_CLEAR = frozenset(
    {
        PlanItemState.READY,
        PlanItemState.DUPLICATE_SKIPS,
        PlanItemState.ALREADY_IMPORTED,
    }
)

# A refusal's code when the plan itself says no (not one of the engine's ErrorCodes).
NOTHING_TO_IMPORT = "nothing_to_import"
NOT_PLANNABLE = "not_plannable"
LOOSE_FILE = "loose_file"


@dataclass(frozen=True)
class WatchSettings:
    """How a watch takes drops (the CLI's options, the window's settings)."""

    settle: float = DEFAULT_SETTLE_SECONDS  # a folder unchanged this long is whole
    leave_imported: bool = False  # True: an imported drop stays where it is
    workers: int = 2


@dataclass(frozen=True)
class PassResult:
    """What one pass did: the records it wrote, the watched folders it could not read, and
    the drops it could not take this time (each taken up again next pass)."""

    records: tuple[DropRecord, ...]
    unreadable: tuple[tuple[Path, str], ...] = ()  # (folder, why): read again next pass
    # (drop, why): a busy corpus or run, a full disk, a drop that cannot be moved
    stalled: tuple[tuple[Path, str], ...] = ()


def watch_pass(
    corpus: Corpus,
    folders: Sequence[Path],
    settings: WatchSettings = WatchSettings(),  # noqa: B008 - frozen
    *,
    clock: Callable[[], float] = time.time,
    control: RunControl | None = None,
    on_record: Callable[[DropRecord], None] | None = None,
) -> PassResult:
    """One poll of ``folders``: what each drop came to, as the records this pass wrote.

    ``clock`` is the settle times' clock (seconds). ``control`` stops the pass at the next
    safe point (a run paused there is resumed by the next pass, or the next watcher).
    A folder that cannot be read (a share gone away) is skipped, logged, and read again
    next pass; so is a drop removed while it was read.
    """
    watcher = _Pass(corpus, settings, clock, control or RunControl(), on_record)
    for folder in folders:
        if watcher.control.paused or watcher.control.cancelled:
            break
        watcher.poll(Path(folder).absolute())
    return PassResult(tuple(watcher.written), tuple(watcher.unreadable), tuple(watcher.stalled))


def drop_log(corpus: Corpus) -> list[DropRecord]:
    """Every drop record, oldest first (``watch --log``, the window's list)."""
    return records.read_all(corpus)


def drop_queue(corpus: Corpus) -> list[DropRecord]:
    """The drops waiting for a person, oldest first: each one's latest record says
    ``needs_review`` (its plan is a draft, or its run did not end complete)."""
    latest = records.latest(records.read_all(corpus))
    return [r for r in latest.values() if r.state is DropState.NEEDS_REVIEW]


def drop_states(corpus: Corpus) -> dict[tuple[str, str], DropRecord]:
    """Each drop's latest record, by (watched folder, name)."""
    return records.latest(records.read_all(corpus))


class _Pass:
    """One poll: the records read once, each drop judged, and what this pass wrote."""

    def __init__(
        self,
        corpus: Corpus,
        settings: WatchSettings,
        clock: Callable[[], float],
        control: RunControl,
        on_record: Callable[[DropRecord], None] | None,
    ) -> None:
        self.corpus = corpus
        self.settings = settings
        self.clock = clock
        self.control = control
        self.on_record = on_record
        self.history: dict[tuple[str, str], list[DropRecord]] = {}
        for r in records.read_all(corpus):
            self.history.setdefault(r.key, []).append(r)
        self.latest = {key: rs[-1] for key, rs in self.history.items()}
        self.written: list[DropRecord] = []
        self.unreadable: list[tuple[Path, str]] = []
        self.stalled: list[tuple[Path, str]] = []
        if corpus.corpus_id is None:
            raise TranscribeError(
                ErrorCode.CORPUS_INVALID,
                f"{corpus.root}: the corpus has no id (corpus.json); run "
                "`transcribe-import doctor`.",
                path=str(corpus.root),
            )
        self.corpus_id = corpus.corpus_id

    def note(self, record: DropRecord) -> DropRecord:
        written = records.append(self.corpus, replace(record, seen_at=self.clock()))
        self.history.setdefault(written.key, []).append(written)
        self.latest[written.key] = written
        self.written.append(written)
        if self.on_record is not None:
            self.on_record(written)
        return written

    def poll(self, folder: Path) -> None:
        try:
            found = drops.list_drops(folder)
        except OSError as exc:
            why = exc.strerror or str(exc)
            log.warning("watched folder %s cannot be read (%s); tried again next pass", folder, why)
            self.unreadable.append((folder, why))
            return
        for drop in found:
            if self.control.paused or self.control.cancelled:
                return
            try:
                self.visit(drop)
            except FileNotFoundError:
                log.info(
                    "drop %s went away while it was read; looked at again next pass", drop.path
                )
            except (TranscribeError, OSError) as exc:
                # Nothing about the drop is decided by this: its records say where it was,
                # and the next pass takes it up from there. The watch goes on.
                why = str(exc) if isinstance(exc, TranscribeError) else _os_words(exc, drop)
                log.warning("drop %s not taken this pass: %s", drop.path, why)
                self.stalled.append((drop.path, why))

    def visit(self, drop: drops.Drop) -> None:
        contents = drops.read_contents(drop)
        key = (str(drop.folder), drop.name)
        last = self.latest.get(key)
        # What needs no lock: a drop whose records say nothing happens to it this pass.
        if last is not None and last.signature == contents.signature:
            if last.state.settled and (
                last.moved_to is None or last.state is DropState.TAKEN_ELSEWHERE
            ):
                return  # imported and left in place, or another corpus's: nothing more
            if last.state in (DropState.FOUND, DropState.WAITING) and last.code is None:
                ready, lacks = self.whole(drop, contents, self.settled(key, contents.signature))
                if not ready and lacks is None:
                    return  # still settling: nothing to write
        with claims.locked(drop.folder, drop.name) as held:
            if not held:
                return  # another watcher is at it: its outcome is seen next pass
            self.refresh((str(drop.folder), drop.name))
            self.judge(drop, contents)

    def refresh(self, key: tuple[str, str]) -> None:
        """The drop's records as the file holds them now (the drop's lock held): another
        watcher of this corpus may have written some since the pass began."""
        fresh = [r for r in records.read_all(self.corpus) if r.key == key]
        self.history[key] = fresh
        if fresh:
            self.latest[key] = fresh[-1]
        else:
            self.latest.pop(key, None)

    def judge(self, drop: drops.Drop, contents: drops.Contents) -> None:
        key = (str(drop.folder), drop.name)
        last = self.latest.get(key)
        base = DropRecord(
            str(drop.folder), drop.name, drop.kind, DropState.FOUND, contents.signature, 0.0
        )
        if last is not None and last.signature == contents.signature:
            if last.state.settled:
                self.keep_moved(drop, last)
                return
            if last.state is DropState.NEEDS_REVIEW:
                self.review_settled(drop, last)
                return
            if last.state is DropState.COMMITTING:
                self.take(drop, contents, last, settled=True)
                return
            if last.state is DropState.WAITING and last.code is not None:
                # Its check refused it while it may still have been written: refused once
                # it has stayed so for the settle time.
                if self.settled(key, contents.signature):
                    self.refuse(drop, base, last.code, last.message or "")
                return
        else:
            first = last is None or last.state.settled or last.state is DropState.NEEDS_REVIEW
            self.note(replace(base, state=DropState.FOUND if first else DropState.WAITING))
        settled = self.settled(key, contents.signature)
        ready, lacks = self.whole(drop, contents, settled)
        if ready:
            self.take(drop, contents, None, settled=settled)
        elif lacks is not None:
            self.refuse(drop, base, ErrorCode.BAG_MISSING_FILE.value, lacks)

    def settled(self, key: tuple[str, str], signature: str) -> bool:
        """Whether the drop was seen with these contents on an earlier pass, and has been
        unchanged for the settle time since: nothing is writing it."""
        since = records.seen_since(self.history.get(key, []), key, signature)
        if since is None or since in self.written:
            return False
        return self.clock() - since.seen_at >= self.settings.settle

    def whole(
        self, drop: drops.Drop, contents: drops.Contents, settled: bool
    ) -> tuple[bool, str | None]:
        """(take it now, why a bag that stopped changing is still not whole)."""
        if drop.kind is DropKind.BAG:
            lacks = drops.bag_lacks(drop, contents)
            if lacks is None:
                return drops.has_oxum(drop) or settled, None
            return False, (f"it stopped changing while {lacks}" if settled else None)
        return drops.done_marked(contents) or settled, None

    def take(
        self,
        drop: drops.Drop,
        contents: drops.Contents,
        committing: DropRecord | None,
        *,
        settled: bool,
    ) -> None:
        got = claims.claim(drop.folder, drop.name, self.corpus_id, contents.signature)
        base = DropRecord(
            str(drop.folder), drop.name, drop.kind, DropState.FOUND, contents.signature, 0.0
        )
        if got is claims.Claim.ELSEWHERE:
            self.note(
                replace(
                    base,
                    state=DropState.TAKEN_ELSEWHERE,
                    message="another corpus's watcher took it (its claim is in "
                    f"{claims.WATCH_DIR}/)",
                )
            )
            return
        crashpoint("watch.claimed")
        if drops.read_contents(drop).signature != contents.signature:
            self.note(replace(base, state=DropState.WAITING))
            return
        plan = self.kept_plan(committing) if committing is not None else None
        if plan is None:
            plan = self.plan(drop, contents, base, settled)
            if plan is None:
                return
        self.commit(drop, base, plan)

    def kept_plan(self, committing: DropRecord) -> ImportPlan | None:
        try:
            return load_plan(records.plans_dir(self.corpus) / f"{committing.plan_id}.json")
        except (PlanDocumentError, OSError) as exc:
            log.warning(
                "the kept plan of %s cannot be read (%s); planned again", committing.name, exc
            )
            return None

    def plan(
        self, drop: drops.Drop, contents: drops.Contents, base: DropRecord, settled: bool
    ) -> ImportPlan | None:
        """The drop's plan, or None with the drop refused, queued or left waiting."""
        from transcribe_import.engine.api.looks import look_pass, with_looks
        from transcribe_import.engine.api.plans import validate_plan

        stop = self.stopping
        if drop.kind is DropKind.FILE and drop.path.suffix.lower() != ".pdf":
            self.refuse(
                drop,
                base,
                LOOSE_FILE,
                f"{drop.path} is a page file on its own, not a notebook; put a notebook's "
                "pages in a folder and drop the folder (a PDF on its own is one notebook).",
            )
            return None
        # A PDF on its own is one notebook titled by its name; a folder, one per folder.
        mode = AdapterMode(ModeName.PDFS if drop.kind is DropKind.FILE else ModeName.FOLDERS)
        request = PlanRequest((drop.path,), mode=mode, workers=self.settings.workers)
        try:
            planned = plan_paths(self.corpus, request, should_stop=stop)
        except TranscribeError as exc:
            if drops.read_contents(drop).signature != contents.signature:
                self.note(replace(base, state=DropState.WAITING))  # it was still being written
            elif settled:
                self.refuse(drop, base, exc.code.value, str(exc))
            else:
                # Whole by its listing, refused by its check: maybe a file is still being
                # written at its full size. Refused if it stays so for the settle time.
                self.note(
                    replace(base, state=DropState.WAITING, code=exc.code.value, message=str(exc))
                )
            return None
        except ValueError as exc:
            self.refuse(drop, base, NOT_PLANNABLE, str(exc))
            return None
        if planned is None:
            return None
        plan = planned.plan
        if not plan.items:
            self.refuse(
                drop,
                base,
                NOTHING_TO_IMPORT,
                f"{drop.path} holds no page file to import ({counted(planned.files, 'file')} "
                "found); put the scans in it and drop it again.",
            )
            return None
        looks: dict[str, str | None] = {}
        passing = look_pass(
            plan, corpus=self.corpus, workers=self.settings.workers, should_stop=stop
        )
        for made in passing:
            looks.update(made.looks)
        if stop():
            return None
        plan = with_looks(plan, looks)
        report = validate_plan(self.corpus, plan, workers=self.settings.workers)
        question = _question(plan, report)
        if question is not None:
            self.queue(base, plan, question)
            return None
        save_plan(plan, self._plan_file(plan))
        crashpoint("watch.plan_kept")
        self.note(replace(base, state=DropState.COMMITTING, plan_id=plan.plan_id))
        crashpoint("watch.committing")
        return plan

    def stopping(self) -> bool:
        return self.control.paused or self.control.cancelled

    def _plan_file(self, plan: ImportPlan) -> Path:
        from transcribe_import.engine.storage import fsio

        folder = records.plans_dir(self.corpus)
        fsio.make_dirs(folder)
        return folder / f"{plan.plan_id}.json"

    def queue(self, base: DropRecord, plan: ImportPlan, question: str) -> None:
        save_draft(self.corpus, plan)
        self.note(
            replace(base, state=DropState.NEEDS_REVIEW, plan_id=plan.plan_id, message=question)
        )

    def commit(self, drop: drops.Drop, base: DropRecord, plan: ImportPlan) -> None:
        from transcribe_import.engine.runs.executor import execute_run

        plan_file = self._plan_file(plan)
        try:
            prepared = prepare_commit(
                self.corpus, plan, plan_file=plan_file, workers=self.settings.workers
            )
        except PlanInvalid as invalid:
            # The corpus changed since the plan was made (another import): a person decides.
            self.queue(base, plan, _first_problem(invalid.report))
            return
        result = execute_run(
            self.corpus, prepared.run_id, workers=self.settings.workers, control=self.control
        )
        if not result.status.terminal:
            return  # paused or stopped at a safe point: still committing, resumed next pass
        crashpoint("watch.run_ended")
        self.ended(drop, replace(base, plan_id=plan.plan_id, run_id=result.run_id), result.status)

    def ended(self, drop: drops.Drop, base: DropRecord, status: RunStatus) -> None:
        if status is RunStatus.COMPLETE:
            self.imported(drop, base)
            return
        self.note(
            replace(
                base,
                state=DropState.NEEDS_REVIEW,
                code=str(status),
                message=f"its import run {base.run_id} ended {status}: see `transcribe-import "
                f"show {base.run_id}`, and commit its plan again to retry what did not land.",
            )
        )

    def imported(self, drop: drops.Drop, base: DropRecord) -> None:
        destination = None
        if not self.settings.leave_imported:
            destination = claims.free_place(drop.folder, claims.IMPORTED_DIR, drop.name)
        # Recorded before the move: killed in between, the next pass finds the drop in
        # place with this record and moves it (keep_moved).
        record = self.note(
            replace(
                base,
                state=DropState.IMPORTED,
                moved_to=None if destination is None else str(destination),
            )
        )
        crashpoint("watch.imported")
        self.keep_moved(drop, record)

    def keep_moved(self, drop: drops.Drop, record: DropRecord) -> None:
        """A settled drop still in the watched folder goes where its record says."""
        if record.state is DropState.TAKEN_ELSEWHERE or record.moved_to is None:
            return
        destination = Path(record.moved_to)
        if destination.exists():
            destination = claims.free_place(drop.folder, destination.parent.name, drop.name)
        if record.state is DropState.REFUSED:
            # Beside where it goes, before it goes: a kill between the two leaves the note.
            claims.write_refusal_readme(destination, _refusal_readme(record, destination))
        claims.move(drop.path, destination)
        crashpoint("watch.moved")
        claims.release(drop.folder, drop.name)

    def refuse(self, drop: drops.Drop, base: DropRecord, code: str, message: str) -> None:
        destination = claims.free_place(drop.folder, claims.REFUSED_DIR, drop.name)
        record = self.note(
            replace(
                base, state=DropState.REFUSED, code=code, message=message, moved_to=str(destination)
            )
        )
        self.keep_moved(drop, record)

    def review_settled(self, drop: drops.Drop, record: DropRecord) -> None:
        """A queued drop whose draft a person committed: imported as that run."""
        if record.plan_id is None:
            return
        runs = RunStore(self.corpus).runs_for_plan(record.plan_id)
        done = [r for r in runs if r.status is RunStatus.COMPLETE]
        if record.run_id is None and done:
            self.imported(drop, replace(record, run_id=done[-1].run_id, code=None, message=None))
        elif record.run_id is not None:
            later = [r for r in done if r.run_id != record.run_id]
            if later:  # a retry of its failed run completed
                self.imported(
                    drop, replace(record, run_id=later[-1].run_id, code=None, message=None)
                )


def _os_words(exc: OSError, drop: drops.Drop) -> str:
    where = exc.filename or drop.path
    return (
        f"{where}: {exc.strerror or exc}; check the share's permissions and space (it is "
        "tried again next pass)."
    )


def _question(plan: ImportPlan, report: ValidationReport) -> str | None:
    """Why the plan needs a person, in words (None: it can be committed as it is)."""
    if not report.ok:
        return _first_problem(report)
    for item in plan.items:
        state = item_state(item, report)
        if state not in _CLEAR:
            problems = report.for_item(item.item_id)
            said = problems[0].message if problems else str(state).replace("_", " ")
            return f"“{item.label}”: {said}"
    return None


def _first_problem(report: ValidationReport) -> str:
    first = report.errors[0] if report.errors else report.problems[0]
    more = len(report.errors) - 1
    tail = f" (and {counted(more, 'more problem')})" if more > 0 else ""
    return f"{first.message}{tail}"


def _refusal_readme(record: DropRecord, destination: Path) -> str:
    return (
        f"{record.name} was not imported into the corpus.\n\n"
        f"Why ({record.code}): {record.message}\n\n"
        f"It was moved here from {record.folder} on {record.at}; nothing in it was changed "
        "or deleted. Fix what is said above and move it back into the watched folder (or drop "
        f"a corrected copy there) to import it.\n\nThis note is {destination.name}.README.txt.\n"
    )
