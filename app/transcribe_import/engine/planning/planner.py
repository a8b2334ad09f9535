"""Turn a scan into an ImportPlan: adapter groups become items with every id preallocated.

Only this module turns adapter output into plan items, so an adapter never
touches plan, validate or commit. The proposed order is natural sort (ordering
module); the cover heuristic and duplicate decisions are applied here, as the
contract says, and recorded in the plan so that they are fingerprinted.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.base.text import json_safe, json_safe_deep
from transcribe_import.engine.media.kinds import PDF
from transcribe_import.engine.planning import ordering
from transcribe_import.engine.planning.adapters import AdapterResult, Group, adapter_for
from transcribe_import.engine.planning.dedupe import CorpusHashIndex, classify, notebook_hashes
from transcribe_import.engine.planning.plan import (
    DEFAULT_POLICY_ID,
    POLICY_IDS,
    DedupeScope,
    DuplicatePolicy,
    ImportPlan,
    Op,
    PlanItem,
    PlanPage,
    PlanSource,
    SourceProvenance,
    new_plan_provenance,
)
from transcribe_import.engine.planning.scan import ScannedFile, ScanResult

if TYPE_CHECKING:
    from transcribe_import.engine.storage.corpus import Corpus


def build_plan(
    corpus: Corpus | None,
    scan: ScanResult,
    *,
    mode: str = "folders",
    policy_id: str = DEFAULT_POLICY_ID,
    title: str | None = None,
    dedupe_scope: DedupeScope = DedupeScope.NOTEBOOK,
) -> ImportPlan:
    """Plan an import of ``scan`` with an adapter: folders, pdfs, prefix, single or into:ID."""
    adapter, notebook_id = adapter_for(mode)
    result = adapter.group(scan, title=title, notebook_id=notebook_id)
    return plan_from_groups(
        corpus, result, scan, mode=mode, policy_id=policy_id, dedupe_scope=dedupe_scope
    )


def plan_from_groups(
    corpus: Corpus | None,
    result: AdapterResult,
    scan: ScanResult,
    *,
    mode: str,
    policy_id: str,
    dedupe_scope: DedupeScope,
) -> ImportPlan:
    policy = POLICY_IDS[policy_id]
    corpus_index: CorpusHashIndex | None = None
    if (
        corpus is not None
        and policy is DuplicatePolicy.SKIP_EXISTING
        and (dedupe_scope is DedupeScope.CORPUS)
    ):
        corpus_index = CorpusHashIndex(corpus)
        corpus_index.refresh()
    seen_in_plan: set[str] = set()  # hashes of the plan's sources so far (for corpus scope)
    items = []
    for group in result.groups:
        items.append(_item_for(group, corpus, policy, dedupe_scope, corpus_index, seen_in_plan))
    provenance = new_plan_provenance(
        [str(r) for r in scan.roots],
        mode,
        not_planned=[
            {"path": n.path, "rel": n.rel, "reason": n.reason} for n in result.not_planned
        ],
        ignored=[
            {"path": str(i.path), "rel": i.rel, "reason": i.reason, "junk": i.junk}
            for i in scan.ignored
        ],
    )
    return ImportPlan(new_id(), policy_id, tuple(items), json_safe_deep(provenance))


def _source_for(f: ScannedFile) -> PlanSource:
    assert f.sha256 is not None and f.media_type is not None
    return PlanSource(
        source_id=new_id(),
        sha256=f.sha256,
        media_type=f.media_type,
        pages=tuple(PlanPage(new_id(), new_id(), i) for i in range(f.page_count)),
        provenance=SourceProvenance.for_path(
            f.path,
            rel=json_safe(f.rel),
            size=f.size,
            mtime=f.mtime,
            mtime_ns=f.mtime_ns,
            captured_at=f.captured_at,
            width=f.width,
            height=f.height,
        ),
    )


def _item_for(
    group: Group,
    corpus: Corpus | None,
    policy: DuplicatePolicy,
    scope: DedupeScope,
    corpus_index: CorpusHashIndex | None,
    seen_in_plan: set[str],
) -> PlanItem:
    usable = [f for f in group.files if f.problem is None and f.page_count > 0]
    unusable = [
        {
            "path": str(f.path),
            "rel": f.rel,
            "code": str(f.problem.code),
            "message": f.problem.message,
        }
        for f in group.files
        if f.problem is not None
    ]
    sources = ordering.propose_order([_source_for(f) for f in usable])
    op = group.op
    notebook_id = group.notebook_id if op is Op.IMPORT_INTO_NOTEBOOK else new_id()
    assert notebook_id is not None

    if policy is DuplicatePolicy.SKIP_EXISTING:
        in_notebook: dict[str, str] = {}
        if op is Op.IMPORT_INTO_NOTEBOOK and corpus is not None:
            try:
                in_notebook = notebook_hashes(corpus, notebook_id)
            except TranscribeError:
                in_notebook = {}  # validate reports the missing target
        marked = []
        # Hashes of the sources before this one: in this item, and with corpus scope in
        # the plan's earlier items too (then the plan-wide set grows as it goes).
        earlier = seen_in_plan if scope is DedupeScope.CORPUS else set()
        for s in sources:
            dup = classify(
                s.sha256,
                policy=policy,
                scope=scope,
                notebook_id=notebook_id,
                in_notebook=in_notebook,
                corpus_index=corpus_index,
                earlier=earlier,
            )
            earlier.add(s.sha256)
            marked.append(s if dup is None else replace(s, duplicate=dup))
        sources = marked

    cover = None
    for s in sources:
        if s.imported and ordering.is_cover_name(s.name) and s.media_type != PDF:
            cover = s.pages[0].page_id
            break
    provenance: dict[str, Any] = {**group.provenance, "label": group.label}
    if unusable:
        provenance["unusable"] = unusable
    return PlanItem(
        item_id=new_id(),
        op=op,
        notebook_id=notebook_id,
        title=json_safe(group.title or "") or None if op is Op.CREATE_NOTEBOOK else None,
        sources=tuple(sources),
        cover_page_id=cover,
        dedupe_scope=scope,
        provenance=json_safe_deep(provenance),
    )
