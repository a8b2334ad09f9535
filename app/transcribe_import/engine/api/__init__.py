"""The use cases the command line and the window both call: plan, validate, commit, runs, doctor.

Each function here is one thing a person asks of the app, written once. The CLI
(``cli/``) turns them into commands, words on a terminal and exit codes; the window
(``gui/``) runs them on worker threads and shows their values. Neither face holds a
rule of its own: what a run "interrupted" is, which runs a commit continues, what a
plan's discovery record says, which exit code a result has, are decided here or in
the layer below.

One package, one name space: the faces write ``from transcribe_import.engine import api`` and
call ``api.X``, never a module of this package (import-linter holds them to it). The use
cases live in modules by what a person is doing: ``exits`` (exit codes), ``plans`` (scan,
plan, reorder, validate, plan files), ``looks`` (the look pass after a plan), ``drafts``,
``commit`` (commit, retry, resume, execute, cancel), ``runs`` (listing and showing runs, their
history), ``undo`` (undoing a run, the trash), ``placement`` (late pages and rescans),
``turns`` (pages of a notebook turned, by a run), ``corpus`` (opening it, notebooks, doctor,
previews, export), ``audit`` (fixity checks, their
report, repair from a copy), ``library`` (what an import put in the corpus, read back) and
``watch`` (hot folders: drops taken in on their own).

Imports that pull in the media decoders (Pillow, pypdf, pypdfium2) are deferred
into the functions that scan or validate, so listing runs or notebooks starts fast.
``execute`` is the executor's own ``execute_run``, loaded on first use for the same reason.
"""

from typing import TYPE_CHECKING

from transcribe_import.engine.api.audit import (
    DEFAULT_AUDIT_REMINDER_DAYS,
    audit_due,
    audit_report,
    failure_words,
    file_words,
    repair_from,
    run_audit,
)
from transcribe_import.engine.api.commit import (
    NothingToImport,
    PlanInvalid,
    PreparedRun,
    cancel,
    discovery_for,
    prepare_commit,
    prepare_resume,
    prepare_retry,
)
from transcribe_import.engine.api.corpus import (
    PreviewPixels,
    WindowClaim,
    check_corpus,
    disk_problem,
    export_notebooks,
    finish_command,
    list_notebooks,
    listing_problems,
    load_renderer,
    notebook_state,
    notebook_title,
    open_corpus,
    preview_pixels,
    remove_empty_notebook,
    render_preview,
)
from transcribe_import.engine.api.drafts import (
    Draft,
    discard_draft,
    list_drafts,
    load_draft,
    save_draft,
)
from transcribe_import.engine.api.exits import (
    ExitCode,
    exit_code_for_doctor,
    exit_code_for_error,
    exit_code_for_export,
    exit_code_for_export_error,
    exit_code_for_result,
    exit_code_for_status,
)
from transcribe_import.engine.api.library import (
    NotebookLibrary,
    StoredPage,
    StoredSource,
    notebook_sources,
    read_notebook,
    run_pages,
)
from transcribe_import.engine.api.looks import (
    blank_pages,
    item_with_looks,
    look_pass,
    look_stamps,
    pages_to_look_at,
    with_looks,
)
from transcribe_import.engine.api.placement import (
    Answered,
    AnsweredQuestion,
    Landing,
    NotebookPage,
    answer_lookalike,
    answer_lookalikes,
    complete_notebook,
    completion_target,
    import_into,
    keep_pages,
    landing,
    none_are_rescans,
    notebook_id_for,
    notebook_pages,
    notebook_short_ids,
    place,
    placement_words,
    replace_page,
)
from transcribe_import.engine.api.plans import (
    NotImported,
    PlanItemState,
    PlannedScan,
    PlanRequest,
    as_new_notebook,
    blank_page_refs,
    check_plan_editable,
    completes_by_default,
    completes_by_title,
    found_not_imported,
    hinted_turn,
    is_bag,
    item_state,
    item_states,
    leave_out_blank,
    load_plan_file,
    mode_for,
    not_imported,
    nothing_to_import,
    page_hints,
    plan_paths,
    rejudge_duplicates,
    reorder,
    save_plan_file,
    sideways_pages,
    sideways_turns,
    sideways_words,
    turn_as_hinted,
    turn_page_ids,
    turn_pages,
    validate_plan,
)
from transcribe_import.engine.api.retries import RETRYABLE, can_retry
from transcribe_import.engine.api.run_pace import AttemptPace, PaceStart, pace_start
from transcribe_import.engine.api.run_state import RunCounts, RunState
from transcribe_import.engine.api.runs import (
    HistoryEntry,
    OutcomeRow,
    RunDetail,
    RunListing,
    RunSummary,
    history_event,
    interrupted_runs,
    is_turn,
    list_runs,
    outcome_rows,
    resolve_run_id,
    result_summary,
    run_history,
    run_listing_problems,
    run_short_ids,
    run_summary,
    show_run,
)
from transcribe_import.engine.api.turns import (
    CorpusTurn,
    plan_corpus_turn,
    plan_page_turns,
    turn_in_corpus,
    turns_taken,
)
from transcribe_import.engine.api.undo import (
    RevertPreview,
    free_to_undo,
    list_trash,
    preview_revert,
    purge_trash,
    restore_from_trash,
    revert,
    revert_short_ids,
    unfinished_undos,
)
from transcribe_import.engine.api.watch import (
    DEFAULT_INTERVAL_SECONDS,
    DEFAULT_SETTLE_SECONDS,
    PassResult,
    WatchSettings,
    drop_log,
    drop_queue,
    drop_states,
    watch_pass,
)
from transcribe_import.engine.audit.model import (
    AuditBudget,
    AuditEnd,
    AuditProgress,
    AuditReport,
    AuditResult,
    RepairResult,
)
from transcribe_import.engine.base.background import lower_this_thread, run_below  # a window's

# The handles and values the faces name, from the layers below (the faces import no module
# below api but the value modules import-linter lists).
from transcribe_import.engine.base.config import ENV_DATA_DIR, resolve_data_dir
from transcribe_import.engine.base.crashpoints import crashpoint  # the tests' points, faces too
from transcribe_import.engine.base.ids import SHORT_ID_CHARS, ShortIds, ids_by_prefix, short_id
from transcribe_import.engine.base.progress import Events, drive  # how faces drive long work
from transcribe_import.engine.export.model import ExportProgress, ExportResult, ExportStatus
from transcribe_import.engine.planning.corpus_turns import turned_words
from transcribe_import.engine.planning.ordering import NothingToOrderBy
from transcribe_import.engine.planning.second_look import ALL_HINTS, Hint, PageHint, Sideways
from transcribe_import.engine.runs.restore import LeftTrash, RestoreResult
from transcribe_import.engine.runs.revert import (
    NotebookRevert,
    RevertBlock,
    RevertBlocker,
    RevertPlan,
)
from transcribe_import.engine.runs.undo import RevertBlocked, RevertResult
from transcribe_import.engine.storage.corpus import (
    Corpus,
    NotebookState,
    NotebookSummary,
    UnfinishedImport,
)
from transcribe_import.engine.storage.trash import TrashEntry
from transcribe_import.engine.storage.trash import Unfinished as TrashUnfinished
from transcribe_import.engine.watch.records import DropKind, DropRecord, DropState

__all__ = [
    "Corpus",
    "NotebookSummary",
    "NotebookState",
    "UnfinishedImport",
    "finish_command",
    "notebook_state",
    "notebook_title",
    "ENV_DATA_DIR",
    "crashpoint",
    "resolve_data_dir",
    "SHORT_ID_CHARS",
    "short_id",
    "NothingToOrderBy",
    "ShortIds",
    "run_short_ids",
    "revert_short_ids",
    "notebook_short_ids",
    "drive",
    "Events",
    "run_below",
    "lower_this_thread",
    "ExportProgress",
    "ExportResult",
    "ExportStatus",
    "ExitCode",
    "exit_code_for_status",
    "exit_code_for_result",
    "exit_code_for_error",
    "exit_code_for_doctor",
    "exit_code_for_export",
    "exit_code_for_export_error",
    "PlannedScan",
    "PlanRequest",
    "plan_paths",
    "as_new_notebook",
    "completes_by_default",
    "completes_by_title",
    "is_bag",
    "mode_for",
    "check_plan_editable",
    "reorder",
    "sideways_pages",
    "sideways_turns",
    "sideways_words",
    "turn_as_hinted",
    "hinted_turn",
    "page_hints",
    "leave_out_blank",
    "blank_page_refs",
    "Hint",
    "ALL_HINTS",
    "PageHint",
    "Sideways",
    "turn_page_ids",
    "turn_pages",
    "rejudge_duplicates",
    "validate_plan",
    "load_plan_file",
    "save_plan_file",
    "NotImported",
    "not_imported",
    "found_not_imported",
    "nothing_to_import",
    "PlanItemState",
    "item_state",
    "item_states",
    "Draft",
    "save_draft",
    "list_drafts",
    "load_draft",
    "discard_draft",
    "PlanInvalid",
    "NothingToImport",
    "PreparedRun",
    "discovery_for",
    "prepare_commit",
    "RETRYABLE",
    "can_retry",
    "prepare_retry",
    "prepare_resume",
    "execute",
    "cancel",
    "RunSummary",
    "RunState",
    "RunCounts",
    "AttemptPace",
    "PaceStart",
    "pace_start",
    "run_summary",
    "result_summary",
    "OutcomeRow",
    "outcome_rows",
    "RunListing",
    "list_runs",
    "run_listing_problems",
    "interrupted_runs",
    "is_turn",
    "RunDetail",
    "show_run",
    "ids_by_prefix",
    "resolve_run_id",
    "HistoryEntry",
    "history_event",
    "run_history",
    "RevertPreview",
    "RevertPlan",
    "RevertBlock",
    "RevertBlocker",
    "RevertBlocked",
    "RevertResult",
    "NotebookRevert",
    "TrashEntry",
    "TrashUnfinished",
    "free_to_undo",
    "preview_revert",
    "revert",
    "unfinished_undos",
    "list_trash",
    "purge_trash",
    "restore_from_trash",
    "RestoreResult",
    "LeftTrash",
    "NotebookPage",
    "notebook_pages",
    "place",
    "replace_page",
    "plan_corpus_turn",
    "turns_taken",
    "turned_words",
    "plan_page_turns",
    "turn_in_corpus",
    "CorpusTurn",
    "keep_pages",
    "placement_words",
    "Answered",
    "AnsweredQuestion",
    "answer_lookalike",
    "answer_lookalikes",
    "none_are_rescans",
    "notebook_id_for",
    "item_with_looks",
    "look_pass",
    "blank_pages",
    "look_stamps",
    "pages_to_look_at",
    "with_looks",
    "complete_notebook",
    "completion_target",
    "import_into",
    "Landing",
    "landing",
    "open_corpus",
    "WindowClaim",
    "list_notebooks",
    "listing_problems",
    "check_corpus",
    "disk_problem",
    "remove_empty_notebook",
    "PreviewPixels",
    "preview_pixels",
    "render_preview",
    "load_renderer",
    "export_notebooks",
    "AuditBudget",
    "AuditEnd",
    "AuditProgress",
    "AuditReport",
    "AuditResult",
    "RepairResult",
    "DEFAULT_AUDIT_REMINDER_DAYS",
    "run_audit",
    "audit_report",
    "audit_due",
    "failure_words",
    "file_words",
    "repair_from",
    "NotebookLibrary",
    "StoredPage",
    "StoredSource",
    "read_notebook",
    "run_pages",
    "notebook_sources",
    "DEFAULT_INTERVAL_SECONDS",
    "DEFAULT_SETTLE_SECONDS",
    "WatchSettings",
    "PassResult",
    "watch_pass",
    "drop_log",
    "drop_queue",
    "drop_states",
    "DropKind",
    "DropRecord",
    "DropState",
]


if TYPE_CHECKING:
    from transcribe_import.engine.runs.executor import execute_run as execute


def __getattr__(name: str) -> object:
    # PEP 562: the executor (and with it the media decoders) is imported on first use.
    if name == "execute":
        from transcribe_import.engine.runs.executor import execute_run

        return execute_run
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
