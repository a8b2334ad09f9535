"""Pages of a notebook turned: a run of its own whose pages replace the pages they turn
(planning/corpus_turns.py), planned from the pages a person names and committed as any plan."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from transcribe_import.engine.api.placement import _manifest
from transcribe_import.engine.planning.plan import ImportPlan
from transcribe_import.engine.storage.corpus import Corpus

if TYPE_CHECKING:
    from transcribe_import.engine.media.kinds import Turn
    from transcribe_import.engine.runs.executor import RunControl, RunEvent
    from transcribe_import.engine.runs.model import RunResult


@dataclass(frozen=True)
class CorpusTurn:
    """Pages of a notebook to turn, planned: the plan its run commits, and what it does."""

    plan: ImportPlan
    notebook_id: str
    title: str  # the notebook's title (its id when it has none)
    positions: tuple[int, ...]  # the pages turned, by their place in the notebook
    turns: tuple[int, ...]  # each one's turn, clockwise from its file's upright: 0 to 270

    @property
    def page_ids(self) -> tuple[str, ...]:
        """The ids of the turned pages, which take the places of the pages they turn."""
        return tuple(new for new, _old in self.plan.items[0].replacements)

    @property
    def words(self) -> str:
        """``pages 3 and 4 turned 90° clockwise``, as the faces say what was done."""
        from transcribe_import.engine.media.kinds import Turn
        from transcribe_import.engine.planning.corpus_turns import pages_words, turned_words

        return f"{pages_words(self.positions)} {turned_words([Turn(t) for t in self.turns])}"


def turns_taken(corpus: Corpus, notebook_id: str) -> dict[str, str]:
    """The notebook's replaced pages whose place a turn of them took, each with what the turn
    did and its run: ``turned 90° clockwise (run 2861b7b1)``. TranscribeError when the
    notebook cannot be read."""
    from transcribe_import.engine.api.library import read_notebook
    from transcribe_import.engine.base.ids import short_id
    from transcribe_import.engine.media.kinds import Turn
    from transcribe_import.engine.planning.corpus_turns import turned_words

    notebook = read_notebook(corpus, notebook_id)
    turn_of = {p.page_id: p.turn for p in (*notebook.pages, *notebook.history)}
    taken = {}
    for old in notebook.history:
        if old.replaced_by_turn and old.replaced_by in turn_of:
            run = f" (run {short_id(old.replaced_in_run)})" if old.replaced_in_run else ""
            taken[old.page_id] = turned_words([Turn.of(turn_of[old.replaced_by])]) + run
    return taken


def plan_corpus_turn(
    corpus: Corpus, notebook_id: str, pages: Sequence[str], degrees: int
) -> CorpusTurn:
    """The turn of the notebook's ``pages`` (each named as ``place`` reads ``after``: its
    id, label, file name, position or the start of its id) ``degrees`` clockwise from their
    file's upright, 0 taking a turn back. ValueError in words for a wrong angle, a page the
    notebook does not have, or pages already so; TranscribeError when the notebook cannot
    be read."""
    from transcribe_import.engine.ingest.placement import find_page
    from transcribe_import.engine.media.kinds import Turn

    turn = Turn.of(degrees)
    manifest = _manifest(corpus, notebook_id)
    return _corpus_turn(corpus, manifest, [(find_page(manifest, n), turn) for n in pages])


def plan_page_turns(corpus: Corpus, notebook_id: str, turns: Mapping[str, int]) -> CorpusTurn:
    """The turn of each of the notebook's pages in ``turns`` (page id: degrees clockwise
    from its file's upright, 0 taking a turn back), as the window's Turn asks it; raises
    as ``plan_corpus_turn``."""
    from transcribe_import.engine.media.kinds import Turn

    manifest = _manifest(corpus, notebook_id)
    return _corpus_turn(corpus, manifest, [(pid, Turn.of(d)) for pid, d in turns.items()])


def _corpus_turn(
    corpus: Corpus, manifest: dict[str, Any], turns: Sequence[tuple[str, Turn]]
) -> CorpusTurn:
    from transcribe_import.engine.api.library import notebook_folder
    from transcribe_import.engine.planning.corpus_turns import turn_plan

    notebook_id = str(manifest["id"])
    plan, turned = turn_plan(manifest, notebook_folder(corpus, notebook_id), turns)
    title = manifest.get("title")
    return CorpusTurn(
        plan,
        notebook_id,
        title if isinstance(title, str) and title.strip() else notebook_id,
        tuple(t.position for t in turned),
        tuple(int(t.turn) for t in turned),
    )


def turn_in_corpus(
    corpus: Corpus,
    turn: CorpusTurn,
    *,
    control: RunControl | None = None,
    on_event: Callable[[RunEvent], None] | None = None,
) -> RunResult:
    """Commit ``turn``'s plan as a run of its own and execute it: the pages turned land in
    their pages' places, which move to the notebook's history (``replaced_pages``); undone
    by reverting the run. Raises as ``prepare_commit`` and ``execute`` do."""
    from transcribe_import.engine.api.commit import prepare_commit
    from transcribe_import.engine.runs.executor import execute_run

    prepared = prepare_commit(corpus, turn.plan, workers=1)
    return execute_run(corpus, prepared.run_id, workers=1, control=control, on_event=on_event)
