"""Runs › Undo This Import… and Runs › Trash…: undo a run as a group, and the trash it fills.

The undo dialog first shows the engine's preview (``api.preview_revert``: read only),
what will be taken out and what blocks it; only a preview with nothing in the way
offers *Undo Import*. When blocks hold some of the run's notebooks only, it offers *Undo
the Others* (``api.free_to_undo``): the free notebooks are undone, and the blocked ones
stay, each with its reason. The revert itself is one call of ``api.revert`` on a worker; what
it removed stays in the trash, which the Trash dialog lists and empties only on an
explicit, confirmed *Delete for Good*. Every decision is the engine's: the dialogs only
show its values.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from transcribe_import.engine import api
from transcribe_import.engine.api import Corpus
from transcribe_import.gui.dialogs import confirm_destructive
from transcribe_import.gui.values import RunSummary
from transcribe_import.gui.widgets import selectable_text
from transcribe_import.gui.wording import (
    format_local,
    plural,
    purge_question,
    restored_words,
    revert_blocker_words,
    revert_notebook_words,
    run_state_words,
    trash_entry_words,
)
from transcribe_import.gui.workers import TaskSlot

ENTRY_ROLE = Qt.ItemDataRole.UserRole + 1
UNFINISHED_ROLE = Qt.ItemDataRole.UserRole + 2  # what stopped half way on the entry, or None


def preview_revert(corpus: Corpus, run_id: str) -> api.RevertPreview:
    return api.preview_revert(corpus, run_id)


def revert_run(corpus: Corpus, run_id: str, leave_blocked: bool = False) -> api.RevertResult:
    return api.revert(corpus, run_id, leave_blocked=leave_blocked)


@dataclass(frozen=True)
class TrashListing:
    """The trash's entries, and the words of those that cannot be read."""

    entries: list[api.TrashEntry]
    problems: list[str]


def list_trash(corpus: Corpus) -> TrashListing:
    entries, problems = api.list_trash(corpus)
    return TrashListing(entries, [str(p) for p in problems])


@dataclass(frozen=True)
class LeftAlready:
    """A trash entry asked for that had left the trash already, in words: its ids named as
    `runs` and `trash` name them (the worker lists the corpus's runs and trash for that)."""

    words: str


def _left_already(corpus: Corpus, left: api.LeftTrash) -> LeftAlready:
    return LeftAlready(left.words(api.run_short_ids(corpus), api.revert_short_ids(corpus)))


def purge_trash(corpus: Corpus, revert_id: str) -> api.TrashEntry | LeftAlready:
    done = api.purge_trash(corpus, revert_id)
    return _left_already(corpus, done) if isinstance(done, api.LeftTrash) else done


def restore_from_trash(corpus: Corpus, revert_id: str) -> api.RestoreResult | LeftAlready:
    done = api.restore_from_trash(corpus, revert_id)
    return _left_already(corpus, done) if isinstance(done, api.LeftTrash) else done


class UndoDialog(QDialog):
    """The preview of undoing one run, then the undo itself; ``reverted`` when it is done."""

    reverted = Signal(str)  # run id

    def __init__(self, corpus: Corpus, run: RunSummary, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.corpus = corpus
        self.run = run
        self.setWindowTitle(self.tr("Undo This Import"))
        self.setObjectName("undoDialog")
        self.resize(620, 420)
        self.headline = selectable_text(QLabel())
        self.headline.setAccessibleName(self.tr("What undoing does"))
        self.removed_label = QLabel(self.tr("Taken out of the corpus, into the trash:"))
        self.removed = QListWidget()
        self.removed.setAccessibleName(self.tr("What the undo takes out"))
        self.removed_label.setBuddy(self.removed)
        self.blocked_label = QLabel(self.tr("Why it cannot be undone:"))
        self.blocked = QListWidget()
        self.blocked.setWordWrap(True)
        self.blocked.setAccessibleName(self.tr("Why the import cannot be undone"))
        self.blocked_label.setBuddy(self.blocked)
        self.buttons = QDialogButtonBox()
        self.undo_button = QPushButton(self.tr("&Undo Import"))
        self.undo_button.setEnabled(False)
        self.undo_button.setAccessibleName(self.tr("Undo the import"))
        self.close_button = QPushButton(self.tr("&Keep It"))
        # Shown when blocks hold some notebooks only: undo the others, leave those.
        self.others_button = QPushButton(self.tr("Undo the &Others"))
        self.others_button.setAccessibleName(self.tr("Undo the notebooks nothing blocks"))
        self.others_button.clicked.connect(self._others_clicked)
        self.buttons.addButton(self.others_button, QDialogButtonBox.ButtonRole.DestructiveRole)
        self.others_button.hide()  # after addButton, which shows it
        self.buttons.addButton(self.undo_button, QDialogButtonBox.ButtonRole.DestructiveRole)
        self.buttons.addButton(self.close_button, QDialogButtonBox.ButtonRole.RejectRole)
        self.close_button.setDefault(True)
        self.undo_button.clicked.connect(self._undo_clicked)
        self.close_button.clicked.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.headline)
        layout.addWidget(self.removed_label)
        layout.addWidget(self.removed, 2)
        layout.addWidget(self.blocked_label)
        layout.addWidget(self.blocked, 1)
        layout.addWidget(self.buttons)
        self._set_blocked([])
        self.headline.setText(self.tr("Looking at what this import wrote…"))
        self._task = TaskSlot(self, done=self._answered, failed=self._failed)
        # Whether Undo (or Undo the Others) was clicked: once only. Not whether the slot is
        # busy: the preview's thread may not have ended yet when its answer enables the
        # button, and a click then waits for it (the slot runs it next), never dropped.
        self._undo_asked = False
        self._task.run(preview_revert, corpus, run.run_id)

    def _set_blocked(self, lines: list[str]) -> None:
        self.blocked.clear()
        self.blocked.addItems(list(dict.fromkeys(lines)))  # each reason once
        self.blocked_label.setVisible(bool(lines))
        self.blocked.setVisible(bool(lines))

    def _answered(self, value: object) -> None:
        if isinstance(value, api.RevertResult):
            self._done(value)
            return
        assert isinstance(value, api.RevertPreview)
        self._show_preview(value)

    def _show_preview(self, preview: api.RevertPreview) -> None:
        plan = preview.plan
        when = format_local(self.run.created_at)
        self.removed.clear()
        self.removed.addItems(
            [revert_notebook_words(n, turn=self.run.turn) for n in plan.notebooks]
        )
        self._set_blocked([revert_blocker_words(b) for b in plan.blockers])
        if preview.already_reverted:
            self.headline.setText(
                self.tr("The import of {when} was undone already.").format(when=when)
            )
        elif preview.unfinished is not None:
            self.headline.setText(
                self.tr(
                    "An undo of the import of {when} was interrupted. Undo Import finishes it "
                    "(or, if what is left changed since, puts everything back)."
                ).format(when=when)
            )
        elif plan.ok and self.run.turn:
            self.headline.setText(
                plural(
                    plan.pages,
                    self.tr(
                        "Undo the turn of {when}? The page it made is taken out of the corpus "
                        "and kept in the trash, and the page as it was comes back; nothing else "
                        "is touched."
                    ),
                    self.tr(
                        "Undo the turn of {when}? The %n pages it made are taken out of the "
                        "corpus and kept in the trash, and the pages as they were come back; "
                        "nothing else is touched.",
                        "",
                        plan.pages,
                    ),
                ).format(when=when)
            )
        elif plan.ok:
            self.headline.setText(
                plural(
                    plan.pages,
                    self.tr(
                        "Undo the import of {when} ({state})? 1 page is taken out of the "
                        "corpus and kept in the trash until you delete it for good; nothing "
                        "else is touched."
                    ),
                    self.tr(
                        "Undo the import of {when} ({state})? %n pages are taken out of the "
                        "corpus and kept in the trash until you delete them for good; nothing "
                        "else is touched.",
                        "",
                        plan.pages,
                    ),
                ).format(when=when, state=run_state_words(self.run))
            )
        elif (free := api.free_to_undo(plan)) is not None:
            self._show_free_part(free, when)
            return
        else:
            self.headline.setText(
                self.tr(
                    "The import of {when} cannot be undone without destroying later work; "
                    "nothing was changed."
                ).format(when=when)
            )
        self.removed_label.setText(
            self.tr("Taken out of the corpus, into the trash:")
            if plan.ok
            else self.tr("What an undo would take out:")
        )
        self.blocked_label.setText(self.tr("Why it cannot be undone:"))
        can = not preview.already_reverted and (plan.ok or preview.unfinished is not None)
        self.undo_button.setEnabled(can)
        self.undo_button.setDefault(False)
        self.close_button.setText(self.tr("&Keep It") if can else self.tr("&Close"))

    def _show_free_part(self, free: api.RevertPlan, when: str) -> None:
        """Blocks hold some notebooks only: the others can be undone, these stay."""
        stay = len(free.held_titles)
        stays = plural(
            stay,
            self.tr("1 notebook changed since, as said below, and it stays"),
            self.tr("%n notebooks changed since, as said below, and they stay", "", stay),
        )
        others = plural(
            len(free.notebooks),
            self.tr("The other notebook"),
            self.tr("The other %n notebooks", "", len(free.notebooks)),
        )
        pages = plural(free.pages, self.tr("1 page"), self.tr("%n pages", "", free.pages))
        self.headline.setText(
            self.tr(
                "The import of {when} cannot be undone whole: {stays}. {others} ({pages}) "
                "can be undone: Undo the Others takes them out into the trash and leaves the "
                "changed ones as they are. Nothing was changed yet."
            ).format(when=when, stays=stays, others=others, pages=pages)
        )
        self.removed.clear()
        self.removed.addItems(
            [revert_notebook_words(n, turn=self.run.turn) for n in free.notebooks]
        )
        self.removed_label.setText(self.tr("Undo the Others takes out, into the trash:"))
        self._set_blocked([revert_blocker_words(b) for b in free.held])
        self.blocked_label.setText(self.tr("These stay, and why:"))
        self.undo_button.hide()
        self.others_button.show()
        self.others_button.setEnabled(True)
        self.others_button.setAutoDefault(False)  # Enter keeps it all: undoing is clicked
        self.close_button.setDefault(True)
        self.close_button.setFocus()
        self.close_button.setText(self.tr("&Keep It All"))

    def _others_clicked(self) -> None:
        if self._undo_asked:
            return
        self._undo_asked = True
        self.others_button.setEnabled(False)
        self.headline.setText(self.tr("Undoing the notebooks nothing blocks…"))
        self._task.run(revert_run, self.corpus, self.run.run_id, True)

    def _undo_clicked(self) -> None:
        if self._undo_asked:
            return
        self._undo_asked = True
        self.undo_button.setEnabled(False)
        self.headline.setText(self.tr("Undoing the import…"))
        self._task.run(revert_run, self.corpus, self.run.run_id)

    def _done(self, result: api.RevertResult) -> None:
        self.removed.clear()
        self.removed.addItems(
            [revert_notebook_words(n, turn=self.run.turn) for n in result.plan.notebooks]
        )
        self.removed_label.setText(self.tr("Taken out, kept in the trash:"))
        if result.plan.partial:
            self.headline.setText(
                self.tr(
                    "Part of the import was undone: what it added to the notebooks listed "
                    "first is kept in the trash (Runs › Trash…) until you delete it for good. "
                    "{stay} stayed, for the reasons below."
                ).format(stay=", ".join(f"“{t}”" for t in result.plan.held_titles))
            )
            self._set_blocked([revert_blocker_words(b) for b in result.plan.held])
            self.blocked_label.setText(self.tr("These stayed, and why:"))
        elif self.run.turn:
            self.headline.setText(
                self.tr(
                    "The turn was undone: the pages are back as they were. The pages it made "
                    "are kept in the trash (Runs › Trash…) until you delete them for good."
                )
            )
        else:
            self.headline.setText(
                self.tr(
                    "The import was undone. What it added is kept in the trash (Runs › Trash…) "
                    "until you delete it for good."
                )
            )
        self.undo_button.hide()
        self.others_button.hide()
        self.close_button.setText(self.tr("&Close"))
        self.reverted.emit(self.run.run_id)

    def _failed(self, message: str) -> None:
        # A RevertBlocked (something changed since the preview) or a busy notebook: the
        # engine's message names the cause, and what it changed, if anything (an earlier
        # undo left half done, put back first).
        self.headline.setText(html.escape(message))
        self.undo_button.setEnabled(False)
        self.others_button.setEnabled(False)
        self.close_button.setText(self.tr("&Close"))

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt's name)
        self._task.close()
        super().closeEvent(event)

    def done(self, r: int) -> None:  # noqa: D102 (QDialog's)
        self._task.close()  # an undo under way finishes first: it is never left half done
        super().done(r)


class TrashDialog(QDialog):
    """What reverts moved out of the corpus: Put Back restores an entry's import as it was;
    Delete for Good empties one entry, confirmed."""

    purged = Signal(str)  # revert id
    restored = Signal(str)  # the run id put back

    def __init__(self, corpus: Corpus, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.corpus = corpus
        self.setWindowTitle(self.tr("Trash"))
        self.setObjectName("trashDialog")
        self.resize(620, 360)
        self.headline = selectable_text(QLabel())
        self.list = QListWidget()
        self.list.setAccessibleName(self.tr("Undone imports kept in the trash"))
        self.list.currentItemChanged.connect(lambda *_: self._update())
        self.delete_button = QPushButton(self.tr("&Delete for Good…"))
        self.delete_button.setAccessibleName(self.tr("Delete the selected trash entry for good"))
        self.delete_button.clicked.connect(self._delete_clicked)
        self.restore_button = QPushButton(self.tr("&Put Back"))
        self.restore_button.setAccessibleName(
            self.tr("Put the import the selected entry undid back into the corpus")
        )
        self.restore_button.clicked.connect(self._restore_clicked)
        self.close_button = QPushButton(self.tr("&Close"))
        self.close_button.clicked.connect(self.accept)
        buttons = QDialogButtonBox()
        buttons.addButton(self.restore_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.delete_button, QDialogButtonBox.ButtonRole.DestructiveRole)
        buttons.addButton(self.close_button, QDialogButtonBox.ButtonRole.RejectRole)
        layout = QVBoxLayout(self)
        layout.addWidget(self.headline)
        layout.addWidget(self.list, 1)
        layout.addWidget(buttons)
        self._said = ""  # what the last Put Back did, shown once the list is read again
        # A Put Back or Delete asked and not yet answered. The guard is this, not "the slot
        # is busy": the listing's answer enables the buttons a moment before its thread ends,
        # and a click in that moment must wait its turn in the slot, not be dropped.
        self._acting = False
        self._task = TaskSlot(self, done=self._answered, failed=self._failed)
        self.refresh()

    def refresh(self) -> None:
        self.delete_button.setEnabled(False)
        self.restore_button.setEnabled(False)
        self._task.run(list_trash, self.corpus)

    def _answered(self, value: object) -> None:
        if isinstance(value, (api.RestoreResult, api.TrashEntry, LeftAlready)):
            self._acting = False
        if isinstance(value, api.RestoreResult):
            self.restored.emit(value.run_id)
            self.refresh()
            self._said = restored_words(value)  # kept over the listing's headline
            return
        if isinstance(value, api.TrashEntry):
            self.purged.emit(value.revert_id)
            self.refresh()
            return
        if isinstance(value, LeftAlready):  # done already (by another window, say)
            self.refresh()
            self._said = value.words
            return
        assert isinstance(value, TrashListing), value
        entries, problems = value.entries, value.problems
        self.list.clear()
        for entry in reversed(entries):  # newest first
            item = QListWidgetItem(trash_entry_words(entry))
            item.setData(ENTRY_ROLE, entry.revert_id)
            item.setData(UNFINISHED_ROLE, entry.unfinished)
            item.setToolTip(str(entry.path))
            self.list.addItem(item)
        for problem in problems:
            self.list.addItem(QListWidgetItem(problem))
        if entries:
            self.list.setCurrentRow(0)
        self.headline.setText(
            self._said
            or (
                self.tr(
                    "Imports you undid are kept here, whole, until you put them back or "
                    "delete them for good."
                )
                if entries or problems
                else self.tr("The trash is empty.")
            )
        )
        self._said = ""
        self._update()

    def _update(self) -> None:
        item = self.list.currentItem()
        chosen = item is not None and item.data(ENTRY_ROLE) is not None
        # An entry something stopped half way on offers only what finishes it (an undo cut
        # short, neither: Check Again finishes it).
        unfinished = item.data(UNFINISHED_ROLE) if item is not None else None
        if self._acting:  # one thing at a time: the answer enables them again
            chosen = False
        self.delete_button.setEnabled(chosen and unfinished in (None, api.TrashUnfinished.PURGE))
        self.restore_button.setEnabled(chosen and unfinished in (None, api.TrashUnfinished.RESTORE))

    def _restore_clicked(self) -> None:
        item = self.list.currentItem()
        revert_id = item.data(ENTRY_ROLE) if item is not None else None
        if revert_id is None or self._acting:
            return
        self._acting = True
        self.restore_button.setEnabled(False)
        self.delete_button.setEnabled(False)
        self._task.run(restore_from_trash, self.corpus, str(revert_id))

    def _delete_clicked(self) -> None:
        item = self.list.currentItem()
        revert_id = item.data(ENTRY_ROLE) if item is not None else None
        if revert_id is None or self._acting:
            return
        if not confirm_destructive(self, purge_question(item.text())):
            return
        self._acting = True
        self.restore_button.setEnabled(False)
        self.delete_button.setEnabled(False)
        self._task.run(purge_trash, self.corpus, str(revert_id))

    def _failed(self, message: str) -> None:
        self._acting = False
        self.headline.setText(html.escape(message))
        self._update()

    def done(self, r: int) -> None:  # noqa: D102 (QDialog's)
        self._task.close()
        super().done(r)
