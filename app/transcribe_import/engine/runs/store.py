"""ImportRun records: the one place that reads and writes ``import-runs/<id>.json`` and its index.

A run record is authoritative for its run. Every write is an atomic replace under
the corpus lock, and every write of an item outcome or of the terminal status
first checks that the writer's ``attempt`` still owns the run (the fence of
docs/formats.md): a superseded attempt stands down without writing. Item
outcomes only move forward (pending → committed/skipped/failed/cancelled_pending)
and the terminal status is written once.

The plan the run executes is frozen in ``plans/<id>.json`` (the whole document,
provenance included, since resume needs the source paths), a folder nothing lists as
runs; the record carries its fingerprint, and loading checks the two still agree.
Corpora written before kept it beside the record as ``<id>.plan.json``:
``migrate_plan_snapshots`` moves those, crash-safely, when the corpus is opened.

About 690 lines, over the usual 500: being the only reader and writer of run records is the
point, so that every write goes through one ``_mutate`` (the corpus lock, the attempt fence,
the outcomes log and its compaction); the index, the frozen plans and their move are the same
folder under the same lock.
"""

from __future__ import annotations

import getpass
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import filelock
import orjson

from transcribe_import import __version__
from transcribe_import.engine.base.clock import utc_now
from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.ids import ShortIds, check_id, is_valid_id, new_id
from transcribe_import.engine.base.short_calls import free_in_slices, loads_in_slices
from transcribe_import.engine.planning.plan import (
    IMPORT_MANIFEST_SCHEMA,
    ImportPlan,
    PlanDocumentError,
    plan_from_document,
)
from transcribe_import.engine.runs.model import (
    RUN_FORMAT,
    RUN_INDEX_FORMAT,
    RUN_SCHEMA,
    AttemptSuperseded,
    HistoryEvent,
    ItemOutcome,
    ItemState,
    RunCorrupt,
    RunNotFound,
    RunRecord,
    RunStatus,
    is_interrupted,
    settle_unfinished,
)
from transcribe_import.engine.runs.undo_record import UndoTransitions
from transcribe_import.engine.runs.update_faults import UpdateStep, left_after
from transcribe_import.engine.storage import fsio, locks
from transcribe_import.engine.storage.quarantine import quarantine

if TYPE_CHECKING:
    from transcribe_import.engine.storage.corpus import Corpus

logger = logging.getLogger(__name__)


def _who() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return f"uid {os.getuid()}" if hasattr(os, "getuid") else "unknown"


ACTOR = "transcribe-import"  # who performs every transition of a run: this app
# The transitions a person asks for: their audit entries name who asked.
ASKED_BY_A_PERSON = frozenset(
    {
        HistoryEvent.CREATED,
        HistoryEvent.CANCEL_REQUESTED,
        HistoryEvent.REVERT_REQUESTED,
        HistoryEvent.RESTORE_REQUESTED,
        HistoryEvent.RETRIED,
        HistoryEvent.RETRY_REFUSED,
    }
)
PLANS_DIR = "plans"  # import-runs/plans/<run_id>.json: the frozen plan snapshots
LEGACY_PLAN_SUFFIX = ".plan.json"  # import-runs/<run_id>.plan.json, before the move
OUTCOMES_SUFFIX = ".outcomes.jsonl"  # import-runs/<run_id>.outcomes.jsonl
MIGRATE_LOCK_TIMEOUT = 2.0  # a busy corpus postpones the migration to the next open


def run_short_ids(corpus: Corpus) -> ShortIds:
    """How every line names a run of this corpus: its 8 characters, more where two runs
    share them (base/ids.short_id), so that what a line shows every command takes back.
    Each run's 8 characters when the disk will not list them (the store's own guard
    included): a line's words never turn work done into an error."""
    return ShortIds.listed(lambda: RunStore(corpus).run_ids())


class RunStore(UndoTransitions):
    """Reads and writes the run records of one corpus."""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self.dir = corpus.runs_dir
        # Refused (corpus_link) before anything is read or written, if either is a link.
        self.plans_dir = fsio.corpus_folder(corpus.root, self.dir / PLANS_DIR)
        self.index_path = self.dir / "index.json"
        # The live run this store writes outcomes for: the record file's (inode, mtime,
        # size) when it was read, its document with the log applied, and each item's index.
        self._live: dict[str, tuple[tuple[int, int, int], dict[str, Any], dict[str, int]]] = {}

    def short(self, run_id: str) -> str:
        """``run_id`` as every line names it (``run_short_ids``)."""
        return run_short_ids(self.corpus)(run_id)

    def record_path(self, run_id: str) -> Path:
        return self.dir / f"{check_id(run_id, 'import_run_id')}.json"

    def plan_path(self, run_id: str) -> Path:
        return self.plans_dir / f"{check_id(run_id, 'import_run_id')}.json"

    def legacy_plan_path(self, run_id: str) -> Path:
        """Where a corpus of an earlier version kept the snapshot, until it is migrated."""
        return self.dir / f"{check_id(run_id, 'import_run_id')}{LEGACY_PLAN_SUFFIX}"

    def outcomes_path(self, run_id: str) -> Path:
        """The append-only outcomes log beside the record (record + log are the truth)."""
        return self.dir / f"{check_id(run_id, 'import_run_id')}{OUTCOMES_SUFFIX}"

    def cancel_marker(self, run_id: str) -> Path:
        """A cheap signal beside the record, so the executor can poll for a cancel per item."""
        return self.dir / f"{check_id(run_id, 'import_run_id')}.cancel"

    def run_lock(self, run_id: str) -> filelock.FileLock:
        return locks.make_lock(self.dir / f"{check_id(run_id, 'import_run_id')}.lock")

    # -- reading ---------------------------------------------------------------------------

    def load(self, run_id: str) -> RunRecord:
        path = self.record_path(run_id)

        def missing() -> RunNotFound:
            return RunNotFound(
                ErrorCode.RUN_NOT_FOUND,
                f"No import run {run_id} in {self.dir}; `transcribe-import runs` lists them.",
                path=str(path),
            )

        data = fsio.read_document(path, missing)
        try:
            doc = orjson.loads(data)
            _check_record(doc, run_id)
            self._apply_log(doc, _item_positions(doc))
        except (orjson.JSONDecodeError, ValueError, KeyError, TypeError) as exc:
            raise RunCorrupt(
                ErrorCode.RUN_CORRUPT,
                f"The run record {path} cannot be read ({exc}); run `transcribe-import doctor`, "
                "which moves it to quarantine with a report.",
                path=str(path),
            ) from None
        return RunRecord(doc)

    def _apply_log(self, doc: dict[str, Any], positions: dict[str, int]) -> None:
        """Apply the outcomes log to a record's document: forward only, a torn line ignored.

        Every line was written under the corpus lock after the attempt fence was checked,
        so each is an outcome the run recorded. A line cut short by a crash (the last one,
        or one a later append was written after, on a line of its own) was never
        acknowledged: its item is judged again on resume, as before its write.
        """
        path = self.outcomes_path(str(doc["import_run_id"]))
        try:
            data = fsio.read_bytes(path)
        except FileNotFoundError:
            return
        except OSError as exc:
            raise fsio.problem_from_oserror(exc, path, "reading") from exc
        for line in data.split(b"\n"):
            if not line.strip():
                continue
            try:
                outcome = ItemOutcome.from_json(orjson.loads(line)["outcome"])
            except (orjson.JSONDecodeError, ValueError, KeyError, TypeError):
                continue  # torn
            k = positions.get(outcome.item_id)
            if k is not None and not ItemState(doc["items"][k]["state"]).final:
                doc["items"][k] = outcome.to_json()
                doc["updated_at"] = outcome.updated_at or doc.get("updated_at")

    def load_plan(self, run_id: str, record: RunRecord | None = None) -> ImportPlan:
        record = record or self.load(run_id)
        path = self.plan_path(run_id)
        try:
            try:
                data = fsio.read_bytes(path)
            except FileNotFoundError:
                # Not migrated yet (a read-only corpus, or a migration cut short): the old place.
                path = self.legacy_plan_path(run_id)
                data = fsio.read_bytes(path)
            # In short calls, as the plans the window opens: a run's plan of 100,000 sources
            # parsed or freed in one call held the window's thread for 0.2-0.7 s.
            doc = [loads_in_slices(data)]
            plan = plan_from_document(doc[0], str(path))
            free_in_slices(doc)
        except (
            fsio.RefusedRead,
            FileNotFoundError,
            orjson.JSONDecodeError,
            PlanDocumentError,
        ) as exc:
            raise self._plan_unusable(record, path, f"it cannot be read ({exc})") from None
        except OSError as exc:  # the disk's failure, not the plan's: it is not called damaged
            raise fsio.problem_from_oserror(exc, fsio.failed_path(exc, path), "reading") from exc
        if plan.fingerprint != record.plan_fingerprint or plan.plan_id != record.plan_id:
            raise self._plan_unusable(record, path, "it does not match its record's fingerprint")
        return plan

    def _plan_unusable(self, record: RunRecord, path: Path, why: str) -> RunCorrupt:
        """A damaged frozen plan, with what still works: a live run can always be ended."""
        run_id = record.run_id
        if record.status.terminal:
            then = (
                f"The run ended ({record.status}); its record still holds every item's "
                f"outcome: {self.record_path(run_id)}."
            )
        else:
            then = (
                f"The run cannot be resumed without it; end it with `transcribe-import cancel "
                f"{run_id}` (the pages it landed stay and are counted), then commit your plan "
                "file again to import the rest."
            )
        return RunCorrupt(
            ErrorCode.RUN_CORRUPT,
            f"The frozen plan of run {run_id} ({path}) is damaged: {why}. {then}",
            path=str(path),
        )

    def orphan_plans(self) -> dict[str, str]:
        """Frozen plans whose run record is gone (quarantined): run id -> the plan's plan_id.

        Their runs are tracked by no record, so doctor tells them, and a commit of the same
        plan treats what they landed as its own (``engine/api.validate_plan``).
        """
        names = fsio.list_dir(self.plans_dir, missing_ok=True)
        out: dict[str, str] = {}
        for name in names:
            run_id = name[: -len(".json")]
            if not name.endswith(".json") or not is_valid_id(run_id):
                continue
            if fsio.exists(self.record_path(run_id)):
                continue
            try:
                doc = orjson.loads(fsio.read_bytes(self.plan_path(run_id)))
            except (OSError, orjson.JSONDecodeError):
                continue
            plan_id = doc.get("plan_id") if isinstance(doc, dict) else None
            if is_valid_id(plan_id):
                out[run_id] = str(plan_id)
        return out

    def run_ids(self) -> list[str]:
        names = fsio.list_dir(self.dir, missing_ok=True)
        out = []
        for n in names:
            stem, _, ext = n.partition(".")
            if ext == "json" and stem != "index" and len(stem) == 36:
                out.append(stem)
        return out

    def list_runs(self) -> list[RunRecord]:
        """Every readable run, newest first (the run files are authoritative, not the index)."""
        return self.read_all()[0]

    def read_all(self) -> tuple[list[RunRecord], list[TranscribeError]]:
        """Every readable run, newest first, and why each unreadable record cannot be read.

        An unreadable record is told, never silently left out of a listing (doctor is what
        quarantines it); a listing that dropped it would read as fewer runs than there are.
        """
        records, damaged = [], []
        for rid in self.run_ids():
            try:
                records.append(self.load(rid))
            except TranscribeError as exc:
                damaged.append(exc)
        records.sort(key=lambda r: (r.created_at, r.run_id), reverse=True)
        return records, damaged

    def runs_for_plan(self, plan_id: str) -> list[RunRecord]:
        return [r for r in self.list_runs() if r.plan_id == plan_id]

    def is_locked(self, run_id: str) -> bool:
        return locks.held_elsewhere(self.run_lock(run_id))

    def is_interrupted(self, record: RunRecord) -> bool:
        """Not terminal, and no process executes it: resumable (the lock is tried only then)."""
        return not record.status.terminal and is_interrupted(record, self.is_locked(record.run_id))

    def as_it_stands(self, record: RunRecord) -> tuple[RunRecord, bool]:
        """The record and whether it is interrupted, read in step with its lock.

        A process writes a run's last state (paused, finished) before it lets go of the
        run's lock, so a record read while the lock was held is out of date once the lock is
        seen free: it is read again then, and that reading stands. Without this, a list
        made as a run pauses would call it interrupted ("the app was closed").
        """
        if record.status.terminal or self.is_locked(record.run_id):
            return record, False
        fresh = self.load(record.run_id)
        return fresh, is_interrupted(fresh, locked=False)

    def frozen_by(self, plan_id: str) -> RunRecord | None:
        """The run that froze this plan: a plan with a run is never edited again."""
        runs = self.runs_for_plan(plan_id)
        return runs[0] if runs else None

    # -- writing ---------------------------------------------------------------------------

    def create(
        self, plan: ImportPlan, discovery: dict[str, Any] | None = None, retry_of: str | None = None
    ) -> RunRecord:
        run_id = new_id()
        now = utc_now()
        plan_doc = plan.to_document()
        doc: dict[str, Any] = {
            "format": RUN_FORMAT,
            "schema_version": RUN_SCHEMA,
            "import_run_id": run_id,
            "plan_id": plan.plan_id,
            "plan_fingerprint": plan_doc["plan_fingerprint"],
            "import_policy_id": plan.import_policy_id,
            "import_manifest": {"schema_version": IMPORT_MANIFEST_SCHEMA},
            "plan_snapshot": f"{PLANS_DIR}/{run_id}.json",
            "item_ids": [it.item_id for it in plan.items],
            "discovery": discovery or {},
            "created_at": now,
            "updated_at": now,
            "status": RunStatus.PENDING.value,
            "attempt": 0,
            "cancel_requested": False,
            "retry_of": retry_of,
            "items": [
                ItemOutcome(it.item_id, ItemState.PENDING, it.notebook_id, updated_at=now).to_json()
                for it in plan.items
            ],
            "errors": [],
            "history": [self._event(HistoryEvent.CREATED, 0, retry_of=retry_of)],
        }
        # How far it got: the plan's write began; the record's is done (None: it began).
        planned = False
        recorded: bool | None = False
        try:
            fsio.make_dirs(self.plans_dir)
            planned = True
            # The frozen plan first: a record never names a snapshot that is not there.
            fsio.atomic_write(
                self.plan_path(run_id), orjson.dumps(plan_doc, option=orjson.OPT_INDENT_2)
            )
            with self.corpus.locked():
                recorded = None
                fsio.atomic_write(self.record_path(run_id), _encode(doc))
                recorded = True
                self._update_index(RunRecord(doc))
        except OSError as exc:
            raise self._creation_failed(exc, run_id, planned, recorded) from exc
        if retry_of is not None:
            # The ended run's History names its retry, once the retry exists. Its `created`
            # names the ended run too, so a disk failing in between loses no fact: logged.
            try:
                self.note_on_ended(retry_of, HistoryEvent.RETRIED, retry_run_id=run_id)
            except TranscribeError as exc:
                logger.warning("run %s: its retry %s is not in History: %s", retry_of, run_id, exc)
        return RunRecord(doc)

    def _creation_failed(
        self, exc: OSError, run_id: str, planned: bool, recorded: bool | None
    ) -> TranscribeError:
        """A run's creation a disk error cut short, said as it is left: its frozen plan is
        removed (a plan without its record would be told by every doctor as a run nobody
        tracks); a record that was written is the run, created with nothing imported yet."""
        plan = self.plan_path(run_id)
        orphan = (
            f"its frozen plan may be left at {plan}, which `transcribe-import doctor` tells as "
            "an untracked run until it is moved out of the corpus (the run imported nothing)"
        )
        then = "try again; nothing was changed"
        try:
            if recorded is None:  # a failed write's rename may have happened
                recorded = fsio.exists(self.record_path(run_id))
        except OSError:
            recorded = False
            then = f"try again; run {run_id} may have been created (committing the plan again "
            then += f"goes on with it), or {orphan}"
            planned = False  # nothing more is tried on this disk
        if recorded:
            then = (
                f"commit the plan again: run {run_id} was created (nothing imported yet) and "
                "the commit goes on with it"
            )
        elif planned:
            try:
                fsio.remove(plan)
            except OSError:
                then = f"try again; {orphan}"
        return fsio.problem_from_oserror(exc, self.dir, "creating an import run in", then=then)

    def note_on_ended(self, run_id: str, event: HistoryEvent, **detail: str) -> RunRecord:
        """Add an entry to an ended run's History (a retry of it, or a refused one)."""

        def change(doc: dict[str, Any]) -> None:
            doc["history"].append(self._event(event, int(doc["attempt"]), **detail))

        return self._mutate(run_id, None, change)

    @staticmethod
    def _event(kind: HistoryEvent | RunStatus, attempt: int, **extra: Any) -> dict[str, Any]:
        """One audit entry, written in the same atomic replace as the change it describes.

        Every transition is the app's (``actor`` and its version); the person appears only
        as the one who asked (``requested_by``), on the transitions a person asks for.
        """
        return {
            "event": kind.value,
            "at": utc_now(),
            "attempt": attempt,
            "actor": ACTOR,
            "app_version": __version__,
            **({"requested_by": _who()} if kind in ASKED_BY_A_PERSON else {}),
            "pid": os.getpid(),
            **{k: v for k, v in extra.items() if v is not None},
        }

    def _mutate(
        self, run_id: str, attempt: int | None, change: Callable[[dict[str, Any]], None]
    ) -> RunRecord:
        """Read, check the fence, change, write: all under the corpus lock.

        A disk error says what it left: nothing before the record is written; after it, the
        change is saved and only the tidying after it is not done (``left_after``).
        """
        step = UpdateStep.RECORD
        try:
            with self.corpus.locked():
                record = self.load(run_id)
                if attempt is not None and record.attempt != attempt:
                    raise AttemptSuperseded(run_id)
                doc = record.doc  # the record with its outcomes log applied
                change(doc)
                doc["updated_at"] = utc_now()
                fsio.atomic_write(self.record_path(run_id), _encode(doc))
                # Compacted: the record now holds every logged outcome. A kill before the
                # log is gone only re-applies outcomes the record already has.
                crashpoint("run.after_compact")
                self._live.pop(run_id, None)
                step = UpdateStep.LOG
                fsio.remove(self.outcomes_path(run_id))
                step = UpdateStep.INDEX
                self._update_index(RunRecord(doc))
                return RunRecord(doc)
        except OSError as exc:
            where = {
                UpdateStep.RECORD: self.record_path(run_id),
                UpdateStep.LOG: self.outcomes_path(run_id),
                UpdateStep.INDEX: self.index_path,
            }[step]
            raise fsio.problem_from_oserror(
                exc, where, "updating", then=left_after(run_id, step)
            ) from exc

    def begin_attempt(self, run_id: str) -> RunRecord:
        """Claim the run for this process (the caller holds its run lock): attempt += 1."""

        def change(doc: dict[str, Any]) -> None:
            _refuse_ended(
                self.corpus,
                doc,
                run_id,
                "a finished run is never reopened. Commit the plan again to retry what did "
                "not land.",
            )
            doc["attempt"] = int(doc["attempt"]) + 1
            kind = (
                HistoryEvent.STARTED if doc["status"] == RunStatus.PENDING else HistoryEvent.RESUMED
            )
            doc["status"] = RunStatus.RUNNING.value
            doc["history"].append(self._event(kind, doc["attempt"]))

        return self._mutate(run_id, None, change)

    def record_outcome(self, run_id: str, attempt: int, outcome: ItemOutcome) -> RunRecord:
        """Append one outcome to the run's log: O(1) in the plan's size.

        Under the corpus lock, as every run write: the record is re-read only when its file
        changed (another writer: a cancel request, a new attempt), so the fence and the
        forward-only rule are checked on the current state without parsing the record.
        """
        try:
            with self.corpus.locked():
                doc, positions = self._live_doc(run_id)
                if int(doc["attempt"]) != attempt:
                    raise AttemptSuperseded(run_id)
                k = positions.get(outcome.item_id)
                if k is None:
                    raise KeyError(outcome.item_id)
                old = ItemState(doc["items"][k]["state"])
                if old.final:
                    if old is outcome.state and old in (ItemState.COMMITTED, ItemState.SKIPPED):
                        return RunRecord(doc)  # recording the same final outcome is a no-op
                    raise ValueError(
                        f"item {outcome.item_id} is already {old}; outcomes only move forward"
                    )
                line = orjson.dumps({"attempt": attempt, "outcome": outcome.to_json()})
                log = self.outcomes_path(run_id)
                if fsio.ends_torn(log):
                    line = b"\n" + line  # a torn fragment stays a line of its own
                fsio.append_durable(log, line + b"\n")
                doc["items"][k] = outcome.to_json()
                doc["updated_at"] = outcome.updated_at or utc_now()
        except OSError as exc:
            raise fsio.problem_from_oserror(exc, self.outcomes_path(run_id), "updating") from exc
        crashpoint("run.after_item_outcome")
        return RunRecord(doc)

    def _live_doc(self, run_id: str) -> tuple[dict[str, Any], dict[str, int]]:
        """The record with its log applied, re-read only when the record file changed."""
        st = fsio.stat(self.record_path(run_id))
        key = (st.st_ino, st.st_mtime_ns, st.st_size)
        live = self._live.get(run_id)
        if live is not None and live[0] == key:
            return live[1], live[2]
        doc = self.load(run_id).doc
        positions = _item_positions(doc)
        self._live[run_id] = (key, doc, positions)
        return doc, positions

    def request_cancel(self, run_id: str) -> RunRecord:
        def change(doc: dict[str, Any]) -> None:
            _refuse_ended(self.corpus, doc, run_id, "there is nothing to cancel.")
            if not doc.get("cancel_requested"):
                doc["cancel_requested"] = True
                doc["history"].append(
                    self._event(HistoryEvent.CANCEL_REQUESTED, int(doc["attempt"]))
                )

        record = self._mutate(run_id, None, change)
        try:
            fsio.atomic_write(self.cancel_marker(run_id), b"cancel requested\n")
        except OSError:
            pass  # the record is authoritative; the executor also reads it at its next write
        return record

    def mark_paused(self, run_id: str, attempt: int) -> RunRecord:
        def change(doc: dict[str, Any]) -> None:
            doc["history"].append(self._event(HistoryEvent.PAUSED, attempt))

        return self._mutate(run_id, attempt, change)

    def finish(
        self,
        run_id: str,
        attempt: int | None,
        status: RunStatus,
        errors: list[dict[str, Any]] | None = None,
    ) -> RunRecord:
        """Write the terminal status once; pending items become cancelled_pending."""
        assert status.terminal

        def change(doc: dict[str, Any]) -> None:
            _refuse_ended(self.corpus, doc, run_id, "its status is written once.")
            now = utc_now()
            settled = settle_unfinished((ItemOutcome.from_json(d) for d in doc["items"]), now)
            doc["items"] = [o.to_json() for o in settled]
            doc["status"] = status.value
            doc["finished_at"] = now
            if errors:
                doc["errors"].extend(errors)
            if status.cancelled and not doc.get("cancel_requested"):
                # Asked in this process (the window's Stop, Ctrl-C), not through the record:
                # History still says a person asked, as a `cancel` command's request does.
                doc["cancel_requested"] = True
                doc["history"].append(
                    self._event(HistoryEvent.CANCEL_REQUESTED, int(doc["attempt"]))
                )
            doc["history"].append(self._event(status, int(doc["attempt"])))

        record = self._mutate(run_id, attempt, change)
        crashpoint("run.after_terminal")
        try:
            fsio.remove(self.cancel_marker(run_id))
        except OSError as exc:
            # The ended status is written and is the truth; the marker only signals a live
            # executor, and an ended run has none, so one left behind is never read again.
            logger.warning("cancel marker of ended run %s left in place: %s", run_id, exc)
        return record

    def _update_index(self, record: RunRecord) -> None:
        """The derived listing: rewritten under the corpus lock, rebuilt when unreadable."""
        try:
            doc = orjson.loads(fsio.read_bytes(self.index_path))
            runs = (
                doc["runs"] if isinstance(doc, dict) and isinstance(doc.get("runs"), dict) else None
            )
        except (OSError, orjson.JSONDecodeError):
            runs = None
        if runs is None:
            runs = {}
            for rid in self.run_ids():
                if rid == record.run_id:
                    continue
                try:
                    other = self.load(rid)
                except TranscribeError:
                    continue
                runs[rid] = _index_row(other)
        runs[record.run_id] = _index_row(record)
        out = {"format": RUN_INDEX_FORMAT, "schema_version": 1, "runs": runs}
        fsio.atomic_write(self.index_path, orjson.dumps(out, option=orjson.OPT_INDENT_2))

    # -- the move of plan snapshots out of the runs' folder ------------------------------------

    def legacy_plan_ids(self) -> list[str]:
        """Runs whose snapshot is still at ``<run_id>.plan.json``: one directory read."""
        names = fsio.list_dir(self.dir, missing_ok=True)
        n = len(LEGACY_PLAN_SUFFIX)
        return [
            name[:-n]
            for name in names
            if name.endswith(LEGACY_PLAN_SUFFIX) and is_valid_id(name[:-n])
        ]

    def migrate_plan_snapshots(self) -> int:
        """Move every ``<run_id>.plan.json`` to ``plans/<run_id>.json``; how many moved.

        Per run, under the corpus lock: (1) the record is made to name the new place,
        (2) the snapshot is renamed there (one atomic rename, both folders fsynced). A kill
        at any instant leaves each snapshot whole in exactly one of the two places, and the
        old name still listed, so the next open finishes; readers look in both places
        meanwhile (``load_plan``). A busy or read-only corpus is left for a later open.
        """
        pending = self.legacy_plan_ids()
        if not pending:
            return 0
        try:
            with self.corpus.locked(timeout=MIGRATE_LOCK_TIMEOUT):
                fsio.make_dirs(self.plans_dir)
                for run_id in pending:
                    self._migrate_one(run_id)
        except (OSError, TranscribeError) as exc:
            logger.info("plan snapshots not moved yet (%s); the next open tries again", exc)
            return 0
        return len(pending)

    def _migrate_one(self, run_id: str) -> None:
        old, new = self.legacy_plan_path(run_id), self.plan_path(run_id)
        if not fsio.exists(old):
            return  # moved meanwhile
        self._name_snapshot_in_record(run_id)
        crashpoint("runs.migrate.record_updated")
        if fsio.exists(new):
            # Both places hold one (an older version wrote it again after the move): the
            # new place wins; the other is set aside, never deleted.
            quarantine(self.corpus, old, f"plan-{run_id}", "a second copy of a moved plan snapshot")
            return
        fsio.replace(old, new)
        fsio.fsync_dir(self.plans_dir)
        fsio.fsync_dir(self.dir)
        crashpoint("runs.migrate.plan_moved")

    def _name_snapshot_in_record(self, run_id: str) -> None:
        """The record's ``plan_snapshot`` names the new place; an unreadable record is left."""
        try:
            record = self.load(run_id)
        except TranscribeError:
            return  # no record (a create cut short) or a damaged one: doctor tells it
        name = f"{PLANS_DIR}/{run_id}.json"
        if record.doc.get("plan_snapshot") != name:
            # Only this field changes, and not updated_at: the run itself did not change.
            doc = {**record.doc, "plan_snapshot": name}
            fsio.atomic_write(self.record_path(run_id), _encode(doc))

    def quarantine(self, run_id: str, reason: str) -> Path:
        """Move an unreadable run record to quarantine with a report; never delete it."""
        return quarantine(self.corpus, self.record_path(run_id), f"run-{run_id}", reason)


def _refuse_ended(corpus: Corpus, doc: dict[str, Any], run_id: str, why: str) -> None:
    """A terminal run is never changed again (boundary 7): refuse, saying what to do."""
    if RunStatus(doc["status"]).terminal:
        raise TranscribeError(
            ErrorCode.RUN_TERMINAL,
            f"Run {run_short_ids(corpus)(run_id)} already ended ({doc['status']}); {why}",
            item=run_id,
        )


def _item_positions(doc: dict[str, Any]) -> dict[str, int]:
    return {d["item_id"]: k for k, d in enumerate(doc["items"])}


def _index_row(record: RunRecord) -> dict[str, Any]:
    return {
        "status": str(record.status),
        "plan_id": record.plan_id,
        "created_at": record.created_at,
        "updated_at": record.doc.get("updated_at"),
    }


def _encode(doc: dict[str, Any]) -> bytes:
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n"


def _check_record(doc: Any, run_id: str) -> None:
    if not isinstance(doc, dict) or doc.get("format") != RUN_FORMAT:
        raise ValueError("not an import-run record")
    if doc.get("schema_version") != RUN_SCHEMA:
        raise ValueError("not schema version 1")
    if doc.get("import_run_id") != run_id:
        raise ValueError("its id does not match its file name")
    RunStatus(doc["status"])
    int(doc["attempt"])
    for d in doc["items"]:
        ItemOutcome.from_json(d)
