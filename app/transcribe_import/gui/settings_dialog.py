"""The settings dialog and the import settings the window keeps in QSettings.

Render size, duplicate policy and workers apply to the next scan or commit; the data
directory applies on the next start (the corpus is opened once, when the app starts),
and only when neither ``--data-dir`` nor TRANSCRIBE_DATA_DIR chooses another. The audit
reminder (the Corpus view's, when the last full fixity audit is older) applies at once, and
so do the hints of pages worth a second look switched off (their badges and Problems' lines).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QSettings
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from transcribe_import.engine.api import ALL_HINTS, DEFAULT_AUDIT_REMINDER_DAYS, Hint
from transcribe_import.engine.media.kinds import RenderSettings
from transcribe_import.engine.planning.plan import (
    DEFAULT_POLICY_ID,
    POLICY_IDS,
    DedupeScope,
    DuplicatePolicy,
)

DATA_DIR_KEY = "Import/dataDirectory"
MAX_SIDE_KEY = "Import/renderMaxSide"
POLICY_KEY = "Import/duplicatePolicy"
WORKERS_KEY = "Import/workers"
DEDUPE_CORPUS_KEY = "Import/duplicatesAcrossCorpus"
AUDIT_REMINDER_KEY = "Audit/reminderDays"
# The hints switched off, by their values, comma-separated: a hint added later is on.
HINTS_OFF_KEY = "Review/hintsOff"
MAX_REMINDER_DAYS = 3650

MIN_SIDE, MAX_SIDE = 600, 12_000
MAX_WORKERS = max(1, min(16, os.cpu_count() or 2))


@dataclass(frozen=True)
class ImportSettings:
    """What the user chose; every field is handed to the engine as it is."""

    data_dir: str = ""  # empty: the default (TRANSCRIBE_DATA_DIR or the platform's)
    max_side: int = RenderSettings().max_side
    policy_id: str = DEFAULT_POLICY_ID
    workers: int = 2
    # skip_existing looks in every notebook of the corpus, not only the target (plan --dedupe).
    dedupe_corpus: bool = True
    # The Corpus view reminds of a fixity audit when the last full one is older than this.
    audit_reminder_days: int = DEFAULT_AUDIT_REMINDER_DAYS
    # The pages worth a second look the review tells (badges, Problems): the engine's kinds.
    hints: frozenset[Hint] = ALL_HINTS

    @property
    def render(self) -> RenderSettings:
        return RenderSettings(max_side=self.max_side)

    @property
    def dedupe_scope(self) -> DedupeScope:
        return DedupeScope.CORPUS if self.dedupe_corpus else DedupeScope.NOTEBOOK


def _int(value: object, default: int, low: int, high: int) -> int:
    if not isinstance(value, int | float | str):
        return default
    try:
        number = int(value)
    except (ValueError, OverflowError):
        return default
    return min(max(number, low), high)


def load_settings(settings: QSettings) -> ImportSettings:
    """The saved settings; anything missing or unreadable falls back to its default."""
    defaults = ImportSettings()
    policy = str(settings.value(POLICY_KEY, defaults.policy_id))
    return ImportSettings(
        data_dir=str(settings.value(DATA_DIR_KEY, "") or ""),
        max_side=_int(settings.value(MAX_SIDE_KEY), defaults.max_side, MIN_SIDE, MAX_SIDE),
        policy_id=policy if policy in POLICY_IDS else defaults.policy_id,
        workers=_int(settings.value(WORKERS_KEY), defaults.workers, 1, MAX_WORKERS),
        dedupe_corpus=str(settings.value(DEDUPE_CORPUS_KEY, "true")).lower() in ("true", "1"),
        audit_reminder_days=_int(
            settings.value(AUDIT_REMINDER_KEY),
            defaults.audit_reminder_days,
            1,
            MAX_REMINDER_DAYS,
        ),
        hints=_hints(settings.value(HINTS_OFF_KEY, "")),
    )


def _hints(value: object) -> frozenset[Hint]:
    """The hints left on by a saved list of those switched off (unknown words ignored)."""
    words = value if isinstance(value, list) else str(value or "").split(",")
    off = {str(w).strip() for w in words}
    return frozenset(h for h in Hint if h.value not in off)


def save_settings(settings: QSettings, values: ImportSettings) -> None:
    settings.setValue(DATA_DIR_KEY, values.data_dir)
    settings.setValue(MAX_SIDE_KEY, values.max_side)
    settings.setValue(POLICY_KEY, values.policy_id)
    settings.setValue(WORKERS_KEY, values.workers)
    settings.setValue(DEDUPE_CORPUS_KEY, values.dedupe_corpus)
    settings.setValue(AUDIT_REMINDER_KEY, values.audit_reminder_days)
    off = [h.value for h in Hint if h not in values.hints]
    settings.setValue(HINTS_OFF_KEY, ",".join(off))
    settings.sync()


class SettingsDialog(QDialog):
    """Data directory, render size, duplicate policy, workers and the audit reminder."""

    def __init__(
        self, values: ImportSettings, current_data_dir: Path, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Settings"))

        self.data_dir_edit = QLineEdit(values.data_dir)
        self.data_dir_edit.setAccessibleName(self.tr("Data directory"))
        self.data_dir_edit.setToolTip(
            self.tr("Empty: TRANSCRIBE_DATA_DIR if set, else the platform's data folder")
        )
        self.browse_button = QPushButton(
            self.style().standardIcon(QStyle.StandardPixmap.SP_DirOpenIcon), self.tr("&Browse…")
        )
        self.browse_button.setAccessibleName(self.tr("Choose the data directory"))
        self.browse_button.clicked.connect(self._browse)
        dir_row = QHBoxLayout()
        dir_row.addWidget(self.data_dir_edit, 1)
        dir_row.addWidget(self.browse_button)
        self.data_dir_note = QLabel(
            self.tr(
                "Applies the next time Transcribe Import starts. This session uses {path}."
            ).format(path=current_data_dir)
        )
        self.data_dir_note.setWordWrap(True)
        self.data_dir_note.setAccessibleName(self.tr("When the data directory applies"))

        self.max_side_spin = QSpinBox()
        self.max_side_spin.setRange(MIN_SIDE, MAX_SIDE)
        self.max_side_spin.setSingleStep(100)
        self.max_side_spin.setSuffix(self.tr(" px"))
        self.max_side_spin.setValue(values.max_side)
        self.max_side_spin.setAccessibleName(self.tr("Longest side of rendered pages"))
        self.max_side_spin.setToolTip(
            self.tr("Pages are rendered so that their longest side is at most this many pixels")
        )

        self.policy_combo = QComboBox()
        self.policy_combo.setAccessibleName(self.tr("Duplicate policy"))
        self.policy_combo.addItem(
            self.tr("Skip files already in the notebook"), _policy(DuplicatePolicy.SKIP_EXISTING)
        )
        self.policy_combo.addItem(
            self.tr("Import them again as duplicates"), _policy(DuplicatePolicy.CREATE_DUPLICATE)
        )
        self.policy_combo.setCurrentIndex(max(0, self.policy_combo.findData(values.policy_id)))
        self.policy_combo.currentIndexChanged.connect(self._policy_changed)
        self.corpus_check = QCheckBox(self.tr("Look for them &across the whole corpus"))
        self.corpus_check.setChecked(values.dedupe_corpus)
        self.corpus_check.setToolTip(
            self.tr(
                "A file any notebook of the corpus already holds is skipped, not only one the "
                "target notebook holds: a folder scanned again never imports its pages twice. "
                "On by default; a change judges the notebooks under review again"
            )
        )
        self._policy_changed()

        self.workers_spin = QSpinBox()
        self.workers_spin.setRange(1, MAX_WORKERS)
        self.workers_spin.setValue(values.workers)
        self.workers_spin.setAccessibleName(self.tr("Notebooks imported at once"))
        self.workers_spin.setToolTip(
            self.tr("Different notebooks are imported in parallel; one notebook never is")
        )

        self.reminder_spin = QSpinBox()
        self.reminder_spin.setRange(1, MAX_REMINDER_DAYS)
        self.reminder_spin.setSuffix(self.tr(" days"))
        self.reminder_spin.setValue(values.audit_reminder_days)
        self.reminder_spin.setAccessibleName(self.tr("Remind of a fixity audit after"))
        self.reminder_spin.setToolTip(
            self.tr(
                "The Corpus view reminds you to audit the corpus (re-hash its files) when the "
                "last full audit is older than this"
            )
        )

        # One box a hint of a page worth a second look, two columns of them.
        self.hint_checks: dict[Hint, QCheckBox] = {}
        hints_grid = QGridLayout()
        for n, hint in enumerate(Hint):
            check = QCheckBox(hint_setting_words(hint))
            check.setChecked(hint in values.hints)
            check.setToolTip(
                self.tr("A badge on such pages in the review, and a line in its Problems")
            )
            self.hint_checks[hint] = check
            hints_grid.addWidget(check, n // 2, n % 2)

        form = QFormLayout()
        form.addRow(self.tr("&Data directory:"), dir_row)
        form.addRow("", self.data_dir_note)
        form.addRow(self.tr("&Render size:"), self.max_side_spin)
        form.addRow(self.tr("D&uplicates:"), self.policy_combo)
        form.addRow("", self.corpus_check)
        form.addRow(self.tr("&Workers:"), self.workers_spin)
        form.addRow(self.tr("Audit re&minder:"), self.reminder_spin)
        form.addRow(self.tr("Worth a second look:"), hints_grid)
        # Buddies for the labels QFormLayout made, so Alt+letter reaches each field.
        label = form.labelForField(dir_row)
        if isinstance(label, QLabel):
            label.setBuddy(self.data_dir_edit)

        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.buttons)
        self.resize(560, self.sizeHint().height())

    def values(self) -> ImportSettings:
        return ImportSettings(
            data_dir=self.data_dir_edit.text().strip(),
            max_side=self.max_side_spin.value(),
            policy_id=str(self.policy_combo.currentData()),
            workers=self.workers_spin.value(),
            dedupe_corpus=self.corpus_check.isChecked(),
            audit_reminder_days=self.reminder_spin.value(),
            hints=frozenset(h for h, check in self.hint_checks.items() if check.isChecked()),
        )

    def _policy_changed(self) -> None:
        # Where to look for duplicates means something only when duplicates are skipped.
        skip = self.policy_combo.currentData() == _policy(DuplicatePolicy.SKIP_EXISTING)
        self.corpus_check.setEnabled(skip)

    def _browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self, self.tr("Choose the Data Directory"), self.data_dir_edit.text()
        )
        if folder:
            self.data_dir_edit.setText(folder)


def _policy(policy: DuplicatePolicy) -> str:
    return next(pid for pid, p in POLICY_IDS.items() if p is policy)


def hint_setting_words(hint: Hint) -> str:
    """A hint's check box in the settings (Alt letters: none, the form's own are taken)."""
    tr = QCoreApplication.translate
    return {
        Hint.BLANK: tr("SettingsDialog", "Blank pages"),
        Hint.TOO_SMALL: tr("SettingsDialog", "Too small to read"),
        Hint.TOO_DARK: tr("SettingsDialog", "Too dark"),
        Hint.TOO_LIGHT: tr("SettingsDialog", "Too light"),
        Hint.BLURRED: tr("SettingsDialog", "Blurred"),
        Hint.SIDEWAYS: tr("SettingsDialog", "Sideways (Turn it?)"),
    }[hint]
