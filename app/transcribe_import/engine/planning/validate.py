"""Validate a plan against the world as it is now: every problem at once, nothing stored.

Validation is recomputing (docs/formats.md, the plan document): ordering ambiguities, unusable
files not yet left out, sources missing or changed since the scan, sources whose
bytes no longer bear out their media type or page count, a target notebook that
does not exist, preallocated ids already used by something else. Commit is
refused while any error stands; warnings inform.
"""

from __future__ import annotations

import concurrent.futures
import enum
from collections.abc import Set
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.media import decode
from transcribe_import.engine.media.kinds import RenderSettings
from transcribe_import.engine.planning import ordering
from transcribe_import.engine.planning.plan import ImportPlan, Op, PlanItem, PlanSource
from transcribe_import.engine.storage import fsio, project

if TYPE_CHECKING:
    from transcribe_import.engine.storage.corpus import Corpus


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"


class ProblemCode(enum.StrEnum):
    SOURCE_MISSING = "source_missing"
    SOURCE_CHANGED = "source_changed"
    # Scan and ingest say source_unreadable (ErrorCode.SOURCE_UNREADABLE) too.
    SOURCE_UNREADABLE = "source_unreadable"
    MEDIA_MISMATCH = "media_mismatch"
    NOTEBOOK_NOT_FOUND = "notebook_not_found"
    ID_IN_USE = "id_in_use"
    NOTHING_TO_IMPORT = "nothing_to_import"
    DUPLICATES_SKIPPED = "duplicates_skipped"
    TITLE_EXISTS = "title_exists"


@dataclass(frozen=True)
class PlanProblem:
    severity: Severity
    code: str  # a ProblemCode or an ordering.AmbiguityCode
    item_id: str
    message: str
    source_ids: tuple[str, ...] = ()
    path: str | None = None
    resolutions: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "severity": str(self.severity),
            "code": str(self.code),
            "item_id": self.item_id,
            "message": self.message,
            "source_ids": list(self.source_ids),
            "path": self.path,
            "resolutions": list(self.resolutions),
        }


@dataclass(frozen=True)
class ValidationReport:
    plan_id: str
    plan_fingerprint: str
    problems: tuple[PlanProblem, ...]

    @property
    def errors(self) -> list[PlanProblem]:
        return [p for p in self.problems if p.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[PlanProblem]:
        return [p for p in self.problems if p.severity is Severity.WARNING]

    @property
    def ok(self) -> bool:
        return not self.errors

    def for_item(self, item_id: str) -> list[PlanProblem]:
        return [p for p in self.problems if p.item_id == item_id]

    def to_json(self) -> dict[str, Any]:
        return {
            "plan_id": self.plan_id,
            "plan_fingerprint": self.plan_fingerprint,
            "valid": self.ok,
            "errors": len(self.errors),
            "warnings": len(self.warnings),
            "problems": [p.to_json() for p in self.problems],
        }


def validate(
    corpus: Corpus | None,
    plan: ImportPlan,
    *,
    settings: RenderSettings | None = None,
    workers: int = 2,
    own_run_ids: Set[str] | None = None,
) -> ValidationReport:
    """Check ``plan`` against ``corpus`` as it is now.

    ``own_run_ids`` are the ids of the import runs of this same plan (the caller asks the
    run store: ``{r.run_id for r in RunStore(corpus).runs_for_plan(plan.plan_id)}``):
    notebooks and ids they committed are this plan's own, not a conflict. None: no run
    of this plan committed anything.
    """
    settings = settings or RenderSettings()
    problems: list[PlanProblem] = []
    own = frozenset(own_run_ids or ())
    titles = _existing_titles(corpus) if corpus is not None else {}

    for item in plan.items:
        problems.extend(_item_problems(corpus, item, own, titles))

    # Source checks read headers from disk: run them in parallel, report in plan order.
    checks = [(it, s) for it in plan.items for s in it.sources if s.imported]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        results = list(pool.map(lambda pair: _source_problem(pair[0], pair[1], settings), checks))
    problems.extend(p for p in results if p is not None)

    order = {it.item_id: k for k, it in enumerate(plan.items)}
    problems.sort(key=lambda p: (order.get(p.item_id, 0), p.severity != Severity.ERROR))
    return ValidationReport(plan.plan_id, plan.fingerprint, tuple(problems))


def _existing_titles(corpus: Corpus) -> dict[str, str]:
    return {e.title.casefold(): nbid for nbid, e in corpus.index_entries().items()}


def _item_problems(
    corpus: Corpus | None, item: PlanItem, own: Set[str], titles: dict[str, str]
) -> list[PlanProblem]:
    out: list[PlanProblem] = []
    label = item.label
    for amb in ordering.find_ambiguities(item):
        out.append(
            PlanProblem(
                Severity.ERROR,
                str(amb.code),
                item.item_id,
                f"{label}: {amb.message}",
                amb.source_ids,
                resolutions=amb.resolutions,
            )
        )
    for u in item.unusable:
        if u["rel"] in item.acknowledged:
            continue
        out.append(
            PlanProblem(
                Severity.ERROR,
                ProblemCode.SOURCE_UNREADABLE,
                item.item_id,
                f"{label}: {u['message']} To import the rest without it, exclude it "
                f'(order --exclude "{u["rel"]}").',
                path=u["path"],
                resolutions=("exclude",),
            )
        )
    if not item.imported_sources():
        skipped = [s for s in item.sources if s.duplicate is not None]
        if skipped and len(skipped) == len([s for s in item.sources if not s.excluded]):
            msg = f"{label}: all {len(skipped)} files are already in the corpus; nothing to import."
        else:
            msg = f"{label}: every file is excluded; nothing will be imported."
        out.append(PlanProblem(Severity.WARNING, ProblemCode.NOTHING_TO_IMPORT, item.item_id, msg))
    else:
        dups = item.planned_skips()
        if dups:
            out.append(
                PlanProblem(
                    Severity.WARNING,
                    ProblemCode.DUPLICATES_SKIPPED,
                    item.item_id,
                    f"{label}: {len(dups)} file(s) already in the corpus will be skipped "
                    f"({', '.join(s.name for s in dups[:3])}{'…' if len(dups) > 3 else ''}).",
                    tuple(s.source_id for s in dups),
                )
            )
    if corpus is not None:
        out.extend(_target_problems(corpus, item, own, titles))
    return out


def _target_problems(
    corpus: Corpus, item: PlanItem, own: Set[str], titles: dict[str, str]
) -> list[PlanProblem]:
    nb_dir = corpus.notebook_dir(item.notebook_id)
    exists = corpus.is_registered(item.notebook_id) or fsio.exists(nb_dir)
    label = item.label
    if item.op is Op.IMPORT_INTO_NOTEBOOK:
        if not exists:
            return [
                PlanProblem(
                    Severity.ERROR,
                    ProblemCode.NOTEBOOK_NOT_FOUND,
                    item.item_id,
                    f"The target notebook {item.notebook_id} does not exist in {corpus.root}; "
                    "pick an existing notebook (`transcribe-import notebooks`).",
                )
            ]
    elif not exists:
        other = titles.get((item.title or "").casefold())
        if other:
            return [
                PlanProblem(
                    Severity.WARNING,
                    ProblemCode.TITLE_EXISTS,
                    item.item_id,
                    f"A notebook titled “{item.title}” already exists ({other}); this creates a "
                    "second one. Rename it in the plan if that is not what you want.",
                )
            ]
        return []
    try:
        doc = project.read(nb_dir, item.notebook_id)
    except TranscribeError as exc:
        return [PlanProblem(Severity.ERROR, ProblemCode.NOTEBOOK_NOT_FOUND, item.item_id, str(exc))]
    if item.op is Op.CREATE_NOTEBOOK and doc.get("import_run_id") not in own:
        return [
            PlanProblem(
                Severity.ERROR,
                ProblemCode.ID_IN_USE,
                item.item_id,
                f"{label}: notebook id {item.notebook_id} is already used by another notebook; "
                "make a new plan.",
            )
        ]
    foreign = _foreign_ids(doc, item, own)
    if foreign:
        return [
            PlanProblem(
                Severity.ERROR,
                ProblemCode.ID_IN_USE,
                item.item_id,
                f"{label}: {len(foreign)} preallocated id(s) are already used by other pages "
                f"of the notebook ({foreign[0]}…); make a new plan.",
            )
        ]
    return []


def _foreign_ids(doc: dict[str, Any], item: PlanItem, own: Set[str]) -> list[str]:
    """Ids of this item that the notebook uses for something not committed by this plan."""
    mine = {s.source_id for s in item.sources}
    mine |= {p.page_id for s in item.sources for p in s.pages}
    mine |= {p.render_id for s in item.sources for p in s.pages}
    committed_by_us = {
        s.get("id") for s in doc["sources"] if isinstance(s, dict) and s.get("import_run_id") in own
    }
    used: list[str] = []
    for s in doc["sources"]:
        if isinstance(s, dict) and s.get("id") in mine and s.get("id") not in committed_by_us:
            used.append(s["id"])
    for p in doc["pages"]:
        if not isinstance(p, dict) or p.get("source_id") in committed_by_us:
            continue
        used.extend(i for i in (p.get("id"), p.get("render_id")) if i in mine)
    return used


def _source_problem(item: PlanItem, s: PlanSource, settings: RenderSettings) -> PlanProblem | None:
    path = s.provenance.fs_path
    shown = s.provenance.rel or str(path)
    try:
        st = fsio.stat(path)
    except FileNotFoundError:
        return PlanProblem(
            Severity.ERROR,
            ProblemCode.SOURCE_MISSING,
            item.item_id,
            f"{shown} is missing (was it moved, or the disk disconnected?); reconnect it or "
            "plan again.",
            (s.source_id,),
            str(path),
            ("exclude",),
        )
    except OSError as exc:
        return PlanProblem(
            Severity.ERROR,
            ProblemCode.SOURCE_UNREADABLE,
            item.item_id,
            f"{shown} cannot be read ({exc.strerror}).",
            (s.source_id,),
            str(path),
            ("exclude",),
        )
    if st.st_size != s.provenance.size or st.st_mtime_ns != s.provenance.mtime_ns:
        return PlanProblem(
            Severity.ERROR,
            ProblemCode.SOURCE_CHANGED,
            item.item_id,
            f"{shown} changed since the scan (size or modification time differ); plan again to "
            "pick up the new version.",
            (s.source_id,),
            str(path),
            ("exclude",),
        )
    try:
        info = decode.probe(path, settings, display_path=str(path))
    except TranscribeError as exc:
        return PlanProblem(
            Severity.ERROR,
            ProblemCode.SOURCE_UNREADABLE,
            item.item_id,
            str(exc),
            (s.source_id,),
            str(path),
            ("exclude",),
        )
    wanted = max(p.page_index for p in s.pages) + 1
    if info.media_type != s.media_type or info.page_count < wanted:
        return PlanProblem(
            Severity.ERROR,
            ProblemCode.MEDIA_MISMATCH,
            item.item_id,
            f"{shown} is {info.media_type} with {info.page_count} page(s), but the plan expects "
            f"{s.media_type} with at least {wanted}; plan again.",
            (s.source_id,),
            str(path),
        )
    return None
