"""Empty notebooks: the rule of what one is, and the confirmed removal of one, crash-safely.

A notebook is created by the transaction that lands its first pages
(transaction.py), so this version never leaves one empty; earlier versions left a
registered notebook with no page for every item a cancel, a pause or a failure
stopped. ``doctor`` reports them (``is_empty``); ``remove_empty_notebook`` takes one
away when a person asks for it by id, never automatically.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.ids import check_id
from transcribe_import.engine.base.text import counted, quoted_title
from transcribe_import.engine.ingest import journal
from transcribe_import.engine.storage import fsio, locks, project
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.engine.storage.quarantine import quarantine


def is_empty(manifest: dict[str, Any]) -> bool:
    """A notebook that holds no page and no source."""
    return not manifest.get("pages") and not manifest.get("sources")


def remove_empty_notebook(corpus: Corpus, notebook_id: str) -> Path:
    """Take a notebook that holds no page out of the corpus; returns where it was put.

    Refused (TranscribeError, nothing changed) unless the notebook is registered, loads,
    holds no page or source, and has no import in progress or left unfinished. It is
    unregistered (the index rewritten atomically, under the corpus lock) and then its
    folder is moved to ``corpus/quarantine/`` with a report, never deleted. A kill
    between the two leaves its folder unregistered with its valid project.json: the
    contract's boundary 1, so doctor registers it again and it can be removed again.
    """
    check_id(notebook_id, "notebook_id")
    nb_dir = corpus.notebook_dir(notebook_id)
    outside = corpus.outside_problem(notebook_id)
    if outside is not None:
        raise TranscribeError(
            ErrorCode.NOTEBOOK_INVALID,
            f"{outside}; it is not removed. Put the notebook's folder back in its place.",
            item=notebook_id,
        )
    if not corpus.is_registered(notebook_id):
        raise TranscribeError(
            ErrorCode.NOTEBOOK_NOT_FOUND,
            f"Notebook {notebook_id} is not in the corpus at {corpus.root}; check the id with "
            "`transcribe-import notebooks`.",
            item=notebook_id,
        )
    ingest_lock = locks.make_lock(nb_dir / journal.LOCK_FILE)
    with (
        locks.hold(
            ingest_lock,
            0.5,
            ErrorCode.NOTEBOOK_BUSY,
            f"Notebook {notebook_id} is being imported into right now; it is not removed.",
        ),
        corpus.locked(),
    ):
        if corpus.index_damage():
            raise TranscribeError(
                ErrorCode.CORPUS_INVALID,
                f"The corpus index {corpus.index_path} has damaged lines; run "
                "`transcribe-import doctor` first, then remove the notebook.",
                path=str(corpus.index_path),
            )
        if fsio.exists(nb_dir / journal.JOURNAL_FILE):
            raise TranscribeError(
                ErrorCode.JOURNAL_PENDING,
                f"Notebook {notebook_id} has an unfinished import; run `transcribe-import "
                "doctor` first. It is not removed.",
                item=notebook_id,
            )
        manifest = project.read(nb_dir, notebook_id)
        if not is_empty(manifest):
            raise TranscribeError(
                ErrorCode.NOTEBOOK_INVALID,
                f"Notebook {notebook_id} holds {counted(len(manifest['pages']), 'page')} and "
                f"{counted(len(manifest['sources']), 'source')}; only a notebook with no page is "
                "removed. Nothing was changed.",
                item=notebook_id,
            )
        keep = [e for e in corpus.index_entries().values() if e.notebook_id != notebook_id]
        corpus.rewrite_index(keep)
        crashpoint("remove_empty.after_unregister")
        title = manifest.get("title")
        return quarantine(
            corpus,
            nb_dir,
            f"{notebook_id}-empty-notebook",
            f"empty notebook {quoted_title(title)} removed on request (it held no page)",
            notebook_id=notebook_id,
        )
