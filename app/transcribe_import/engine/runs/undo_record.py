"""The transitions an undo and a restore write in a run record: ``RunStore``'s, kept apart.

Each is one ``_mutate`` of the record (read, change, write, under the corpus lock) with its
History entry in the same write, as every transition of a run is (store.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from transcribe_import.engine.base.clock import utc_now
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.runs.model import HistoryEvent, RunRecord, RunStatus


class RecordWriter(Protocol):
    """What the transitions below need of their host: ``RunStore`` provides both."""

    def _mutate(
        self, run_id: str, attempt: int | None, change: Callable[[dict[str, Any]], None]
    ) -> RunRecord: ...

    def _event(
        self, kind: HistoryEvent | RunStatus, attempt: int, **extra: Any
    ) -> dict[str, Any]: ...

    def short(self, run_id: str) -> str: ...


class UndoTransitions:
    """Mixed into ``RunStore``; each method's ``self`` is a ``RecordWriter`` (checked by mypy)."""

    def request_revert(
        self: RecordWriter, run_id: str, revert_id: str, notebook_ids: list[str] | None = None
    ) -> RunRecord:
        """Record that a person asked to undo the run (once: a second request keeps the first).

        ``notebook_ids``: an undo of these notebooks only, the run's blocked ones kept (a
        kill is then taken up for these and no other)."""

        def change(doc: dict[str, Any]) -> None:
            status = RunStatus(doc["status"])
            if status is RunStatus.REVERTED:
                return
            if not status.revertible:
                raise TranscribeError(
                    ErrorCode.RUN_BUSY,
                    f"Run {self.short(run_id)} is {status.value}: only an ended run is undone.",
                    item=run_id,
                )
            pending = doc.get("revert")
            if isinstance(pending, dict) and pending.get("state") == "requested":
                return
            event = self._event(
                HistoryEvent.REVERT_REQUESTED, int(doc["attempt"]), revert_id=revert_id
            )
            doc["revert"] = {
                "revert_id": revert_id,
                "state": "requested",
                "requested_at": event["at"],
                "requested_by": event["requested_by"],
                **({"notebook_ids": notebook_ids} if notebook_ids is not None else {}),
            }
            doc["history"].append(event)

        return self._mutate(run_id, None, change)

    def mark_reverted(self: RecordWriter, run_id: str, revert_id: str) -> RunRecord:
        """The one transition after a terminal status: ``reverted``, written once."""

        def change(doc: dict[str, Any]) -> None:
            if doc["status"] == RunStatus.REVERTED:
                return
            doc["status"] = RunStatus.REVERTED.value
            doc["reverted_at"] = utc_now()
            doc["revert"] = {**(doc.get("revert") or {}), "revert_id": revert_id, "state": "done"}
            doc["history"].append(
                self._event(HistoryEvent.REVERTED, int(doc["attempt"]), revert_id=revert_id)
            )

        return self._mutate(run_id, None, change)

    def mark_partly_reverted(
        self: RecordWriter, run_id: str, revert_id: str, titles: list[str]
    ) -> RunRecord:
        """Some of the run's notebooks undone (``titles``): the run keeps its status, and its
        ``revert`` names this undo, done and ``partial`` (a later undo takes the rest)."""

        def change(doc: dict[str, Any]) -> None:
            revert = doc.get("revert")
            if not isinstance(revert, dict) or revert.get("revert_id") != revert_id:
                return
            if revert.get("state") != "requested":
                return
            doc["revert"] = {**revert, "state": "done", "partial": True}
            doc["history"].append(
                self._event(
                    HistoryEvent.PARTLY_REVERTED,
                    int(doc["attempt"]),
                    revert_id=revert_id,
                    titles=titles,
                )
            )

        return self._mutate(run_id, None, change)

    def abandon_revert(self: RecordWriter, run_id: str, revert_id: str, why: str) -> RunRecord:
        """A revert that could not finish was undone: the run keeps its status."""

        def change(doc: dict[str, Any]) -> None:
            pending = doc.get("revert")
            if not isinstance(pending, dict) or pending.get("state") != "requested":
                return
            doc["revert"] = {**pending, "state": "abandoned", "why": why}
            doc["history"].append(
                self._event(
                    HistoryEvent.REVERT_ABANDONED, int(doc["attempt"]), revert_id=revert_id, why=why
                )
            )

        return self._mutate(run_id, None, change)

    def request_restore(self: RecordWriter, run_id: str, revert_id: str) -> RunRecord:
        """Record that a person asked to put the undone run back (``revert.state``
        ``restoring`` until it is back: a kill before then is finished by ``doctor``)."""

        def change(doc: dict[str, Any]) -> None:
            revert = doc.get("revert")
            if not isinstance(revert, dict) or revert.get("state") != "done":
                return  # restoring already, or not undone: nothing to ask
            event = self._event(
                HistoryEvent.RESTORE_REQUESTED, int(doc["attempt"]), revert_id=revert_id
            )
            doc["revert"] = {**revert, "state": "restoring", "restore_requested_at": event["at"]}
            doc["history"].append(event)

        return self._mutate(run_id, None, change)

    def mark_restored(
        self: RecordWriter, run_id: str, revert_id: str, status: RunStatus
    ) -> RunRecord:
        """The run is back: ``status``, the one it ended with, is its status again."""

        def change(doc: dict[str, Any]) -> None:
            revert = doc.get("revert")
            if not isinstance(revert, dict) or revert.get("state") != "restoring":
                return
            doc["status"] = status.value
            doc.pop("reverted_at", None)
            doc["revert"] = {**revert, "state": "restored", "restored_at": utc_now()}
            doc["history"].append(
                self._event(HistoryEvent.RESTORED, int(doc["attempt"]), revert_id=revert_id)
            )

        return self._mutate(run_id, None, change)
