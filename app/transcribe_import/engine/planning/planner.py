"""Turn a scan into an ImportPlan: adapter groups become items with every id preallocated.

Only this module turns adapter output into plan items, so an adapter never
touches plan, validate or commit. The proposed order is natural sort (ordering
module); the cover heuristic and duplicate decisions are applied here, as the
contract says, and recorded in the plan so that they are fingerprinted.

A bag's notebooks (``build_bag_plan``) are the one exception to "every id is new":
they keep the bag's ids, order, cover and project.json keys, and a notebook the corpus
already holds unchanged is planned as skipped.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.base.text import json_safe, json_safe_deep
from transcribe_import.engine.media.kinds import PDF, RenderSettings
from transcribe_import.engine.planning import bag, ordering
from transcribe_import.engine.planning.adapters import AdapterResult, Group, adapter_for
from transcribe_import.engine.planning.adapters.bag import BagAdapter, BagGroup, BagRender
from transcribe_import.engine.planning.dedupe import (
    CorpusHashIndex,
    corpus_index_for,
    judge_item,
)
from transcribe_import.engine.planning.plan import (
    DEFAULT_MODE,
    DEFAULT_POLICY_ID,
    POLICY_IDS,
    AdapterMode,
    DedupeScope,
    Duplicate,
    DuplicatePolicy,
    ImportPlan,
    Op,
    Ordering,
    OrderingRule,
    PageRender,
    PlanItem,
    PlanPage,
    PlanSource,
    Restore,
    SourceProvenance,
    new_plan_provenance,
)
from transcribe_import.engine.planning.scan import (
    DEFAULT_SETTINGS,
    ScanCancelled,
    ScannedFile,
    ScanResult,
)
from transcribe_import.engine.storage import fsio, project
from transcribe_import.engine.storage.bag_format import VerifiedBag, bag_error

if TYPE_CHECKING:
    from transcribe_import.engine.storage.corpus import Corpus


def build_plan(
    corpus: Corpus | None,
    scan: ScanResult,
    *,
    mode: AdapterMode = DEFAULT_MODE,
    policy_id: str = DEFAULT_POLICY_ID,
    title: str | None = None,
    dedupe_scope: DedupeScope = DedupeScope.CORPUS,
    should_stop: Callable[[], bool] | None = None,
) -> ImportPlan:
    """Plan an import of ``scan`` with the adapter of ``mode``: folders, pdfs, prefix, single, into.

    ``ScanCancelled`` soon after ``should_stop()`` turns true (it is asked per notebook).
    """
    adapter, notebook_id = adapter_for(mode)
    result = adapter.group(scan, title=title, notebook_id=notebook_id)
    return plan_from_groups(
        corpus,
        result,
        scan,
        mode=str(mode),
        policy_id=policy_id,
        dedupe_scope=dedupe_scope,
        should_stop=should_stop,
    )


def plan_from_groups(
    corpus: Corpus | None,
    result: AdapterResult,
    scan: ScanResult,
    *,
    mode: str,
    policy_id: str,
    dedupe_scope: DedupeScope,
    should_stop: Callable[[], bool] | None = None,
) -> ImportPlan:
    policy = POLICY_IDS[policy_id]
    corpus_index = corpus_index_for(corpus, policy, [dedupe_scope])
    seen_in_plan: set[str] = set()  # hashes of the plan's sources so far (for corpus scope)
    items = []
    for group in result.groups:
        # Planning 5,000 files takes seconds (duplicates, each notebook's order): a Cancel
        # Scan pressed meanwhile is honoured at the next notebook, not after the last.
        if should_stop is not None and should_stop():
            raise ScanCancelled("the scan was cancelled while its plan was made")
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


def _provenance_of(f: ScannedFile) -> SourceProvenance:
    """Where a scanned file came from, as a plan's source records it."""
    return SourceProvenance.for_path(
        f.path,
        rel=json_safe(f.rel),
        size=f.size,
        mtime=f.mtime,
        mtime_ns=f.mtime_ns,
        captured_at=f.captured_at,
        width=f.width,
        height=f.height,
        dpi=f.dpi,
    )


def _source_for(f: ScannedFile) -> PlanSource:
    assert f.sha256 is not None and f.media_type is not None
    label = ordering.page_label(f.rel.rsplit("/", 1)[-1]) if f.media_type != PDF else None
    return PlanSource(
        source_id=new_id(),
        sha256=f.sha256,
        media_type=f.media_type,
        pages=tuple(
            # An image's name can give its page a label (f. 12r -> "12r"); a PDF's cannot.
            PlanPage(
                new_id(),
                new_id(),
                i,
                label=label if f.page_count == 1 else None,
                look=f.looks[i] if i < len(f.looks) else None,
            )
            for i in range(f.page_count)
        ),
        provenance=_provenance_of(f),
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
            # Its bytes as found, when they could be read: a later scan of the folder knows
            # it again (planning/reimport.leave_out_as_before) if it was left out.
            **({"sha256": f.sha256} if f.sha256 else {}),
        }
        for f in group.files
        if f.problem is not None
    ]
    sources = ordering.propose_order([_source_for(f) for f in usable])
    op = group.op
    notebook_id = group.notebook_id if op is Op.IMPORT_INTO_NOTEBOOK else new_id()
    assert notebook_id is not None

    provenance: dict[str, Any] = {**group.provenance, "label": group.label}
    if unusable:
        provenance["unusable"] = unusable
    item = PlanItem(
        item_id=new_id(),
        op=op,
        notebook_id=notebook_id,
        title=json_safe(group.title or "") or None if op is Op.CREATE_NOTEBOOK else None,
        sources=tuple(sources),
        # Recorded as the order was proposed: by capture time when the names carry none.
        ordering=Ordering(ordering.proposed_rule(sources)),
        dedupe_scope=scope,
        provenance=json_safe_deep(provenance),
    )
    if policy is DuplicatePolicy.SKIP_EXISTING:
        item = judge_item(corpus, item, policy, corpus_index, seen_in_plan)
    for s in item.sources:
        if s.imported and ordering.is_cover_name(s.name) and s.media_type != PDF:
            return replace(item, cover_page_id=s.pages[0].page_id)
    return item


# -- bags ----------------------------------------------------------------------------------


def build_bag_plan(
    corpus: Corpus | None,
    bags: Sequence[VerifiedBag],
    *,
    policy_id: str = DEFAULT_POLICY_ID,
    settings: RenderSettings = DEFAULT_SETTINGS,
) -> tuple[ImportPlan, ScanResult]:
    """Plan the import of verified bags: one item per notebook, with the bag's own ids.

    Returns the plan, and the bags' sources as a scan would list them.

    A notebook the corpus already holds with the same content is planned with every
    source a skip (``duplicate_in_notebook``), which validate reports as ``unchanged``;
    one whose id is taken by a different notebook is left as planned, for validate to
    report as a conflict with its two choices. The duplicate policy and scope do not
    apply: a bag's notebook lands whole, or not at all.
    """
    items: list[PlanItem] = []
    files: list[ScannedFile] = []
    where: dict[str, str] = {}
    not_planned: list[dict[str, str]] = []
    adapter = BagAdapter()
    for verified in bags:
        result = adapter.group_bag(verified, settings=settings)
        for group in result.groups:
            assert isinstance(group, BagGroup)
            nbid = group.notebook_id_in_bag
            if nbid in where:
                raise bag_error(
                    ErrorCode.BAG_INVALID,
                    str(verified.root),
                    f"holds notebook {nbid}, which {where[nbid]} holds too; import one bag "
                    "at a time.",
                )
            where[nbid] = str(verified.root)
            items.append(_bag_item(corpus, group))
            files += group.files
        not_planned += [
            {"path": n.path, "rel": n.rel, "reason": n.reason} for n in result.not_planned
        ]
    provenance = new_plan_provenance(
        [str(b.root) for b in bags],
        "bag",
        not_planned=not_planned,
        ignored=[],
        bags=[{"path": str(b.root), "info": b.info} for b in bags],
    )
    plan = ImportPlan(new_id(), policy_id, tuple(items), json_safe_deep(provenance))
    return plan, ScanResult(tuple(b.root for b in bags), tuple(files), ())


def _page_render(r: BagRender | None) -> PageRender | None:
    if r is None:
        return None
    raw = str(r.file.path)
    try:
        raw.encode("utf-8")
        b64 = None
    except UnicodeEncodeError:
        b64 = base64.b64encode(os.fsencode(r.file.path)).decode("ascii")
    return PageRender(
        r.sha256, r.width, r.height, json_safe(raw), r.file.size, r.file.mtime_ns, b64, r.renderer
    )


def _bag_item(corpus: Corpus | None, group: BagGroup) -> PlanItem:
    sources = []
    for bs in group.sources:
        f = bs.file
        sources.append(
            PlanSource(
                source_id=bs.source_id,
                sha256=bs.sha256,
                media_type=bs.media_type,
                pages=tuple(
                    PlanPage(
                        p.page_id,
                        p.render_id,
                        p.page_index,
                        render=_page_render(p.render),
                        extra=p.extra or None,
                    )
                    for p in [*group.pages, *group.history]
                    if p.source_id == bs.source_id
                ),
                provenance=_provenance_of(f),
                extra=bs.extra or None,
            )
        )
    provenance: dict[str, Any] = {**group.provenance, "label": group.label}
    if group.rendered_again:
        provenance["rendered_again"] = list(group.rendered_again)
    item = PlanItem(
        item_id=new_id(),
        op=Op.CREATE_NOTEBOOK,
        notebook_id=group.notebook_id_in_bag,
        title=group.title,
        sources=tuple(sources),
        # The bag's order is the notebook's: nothing to guess, so nothing to ask.
        ordering=Ordering(OrderingRule.SEQUENCE, True),
        cover_page_id=group.cover_page_id,
        provenance=json_safe_deep(provenance),
        restore=Restore(
            group.manifest,
            tuple(p.page_id for p in group.pages),
            tuple(p.page_id for p in group.history),
        ),
    )
    if corpus is not None and fsio.exists(corpus.notebook_dir(item.notebook_id)):
        try:
            doc = project.read(corpus.notebook_dir(item.notebook_id), item.notebook_id)
        except TranscribeError:
            return item  # validate reports the unreadable notebook
        if bag.same_notebook(doc, item):
            marked = tuple(replace(s, duplicate=Duplicate.IN_NOTEBOOK) for s in item.sources)
            item = replace(item, sources=marked)
    return item
