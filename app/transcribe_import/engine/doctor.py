"""doctor: check the whole corpus, perform the contract's recovery, report what needs a person.

Order matters: dead ingest journals are recovered first (outside the corpus lock,
since hashing can be slow), then registration is reconciled under the corpus lock
(so a notebook being created right now is never mistaken for a leftover), then
every manifest is checked against the files on disk. Each step is idempotent, so
doctor can be killed at any point and run again.

About 600 lines, over the usual 500: doctor is one ordered procedure, and its steps (journals,
index and registration, each notebook's files with their restore and re-render, runs and
frozen plans, quarantine) are called only from ``doctor`` and share its findings' words; apart,
each would be a module with a single caller. What it shares with others already lives below it
(recovery in ``ingest``, quarantine in ``storage``, the run records in ``runs``).
"""

from __future__ import annotations

import os
import shlex
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from transcribe_import.engine.audit.report import fixity_findings
from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.base.errors import DISK_CODES, TranscribeError
from transcribe_import.engine.base.findings import (
    DoctorReport,
    DoctorStop,
    Finding,
    FindingCode,
    Remedy,
    Severity,
)
from transcribe_import.engine.base.ids import ShortIds, is_valid_id
from transcribe_import.engine.base.text import agreeing, counted, quoted_title
from transcribe_import.engine.ingest import journal
from transcribe_import.engine.ingest.empty import is_empty
from transcribe_import.engine.ingest.recovery import recover_journal
from transcribe_import.engine.ingest.transaction import remove_dead_creation
from transcribe_import.engine.media import rerender
from transcribe_import.engine.media.rerender import RenderAgain
from transcribe_import.engine.runs.held_twice import held_twice_findings
from transcribe_import.engine.runs.incomplete import incomplete_findings
from transcribe_import.engine.runs.model import RunCorrupt
from transcribe_import.engine.runs.restore import finish_restores
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.runs.undo_findings import finish_all, moving_now
from transcribe_import.engine.storage import fsio, locks, project, quarantine, trash
from transcribe_import.engine.storage.corpus import CREATING_PREFIX, Corpus, IndexEntry


def doctor(
    corpus: Corpus, *, verify_hashes: bool = False, restore_from: Sequence[Path] = ()
) -> DoctorReport:
    """Check and recover the corpus; ``restore_from``: files or folders to copy lost files from.

    A file a manifest lists but that is missing is restored from ``restore_from`` when a
    file there has exactly its recorded sha256 (checked on the copied bytes), under the
    notebook's ingest lock; nothing else is ever taken from there.
    """
    report = DoctorReport(str(corpus.root))
    try:
        _check(corpus, report, verify_hashes, restore_from)
    except OSError as exc:  # a disk error outside a step guarded on its own: doctor stops
        report.findings.append(_disk_finding(exc, corpus.root))
        report.stopped = DoctorStop.DISK
    except TranscribeError as exc:
        if exc.code not in DISK_CODES:
            raise
        report.findings.append(_stopped_finding(exc, exc.path or str(corpus.root)))
        report.stopped = DoctorStop.DISK
    return report


# What finishes a doctor stopped by the disk, said at the end of its finding.
_AGAIN = (
    "run `transcribe-import doctor` again once the disk is sound: what doctor repaired so far "
    "is kept, and it finishes the rest"
)


def _disk_finding(exc: OSError, where: Path) -> Finding:
    """A disk error met by doctor, as one finding naming the file, coded as every command
    codes that errno (``disk_full``, ``permission_denied``, ``read_only``, ``io_error``)."""
    path = fsio.failed_path(exc, where)
    return _stopped_finding(
        fsio.problem_from_oserror(exc, path, "recovering", then=_AGAIN), str(path)
    )


def _stopped_finding(error: TranscribeError, path: str) -> Finding:
    """The finding of a disk's failure that stopped doctor: its code is the error's."""
    return Finding(FindingCode(error.code.value), Severity.PROBLEM, str(error), path=path)


def _check(
    corpus: Corpus, report: DoctorReport, verify_hashes: bool, restore_from: Sequence[Path]
) -> None:
    copies = _Copies(restore_from)
    add = report.findings.extend
    links = _guard(lambda: _links(corpus), corpus.root)
    if links:
        # Every repair below writes in the corpus's folders: none is tried through a link
        # (or when the folders could not even be looked at).
        add(links)
        linked = any(f.code is FindingCode.LINK_IN_CORPUS for f in links)
        report.stopped = DoctorStop.LINK if linked else DoctorStop.DISK
        return
    names = fsio.list_dir(corpus.notebooks_dir, missing_ok=True)

    for name in names:
        nb_dir = corpus.notebooks_dir / name
        if (
            is_valid_id(name)
            and not fsio.is_link(nb_dir)
            and fsio.exists(nb_dir / journal.JOURNAL_FILE)
        ):
            found = _guard(
                lambda n=name: recover_journal(
                    corpus, n, finish_command=lambda run_id: _finish_command(corpus, run_id)
                ),
                corpus.notebooks_dir / name,
            )
            add(found)
    # An undo killed half way is finished or undone before registration is judged: its
    # notebooks are in the trash or back in place, never both, never half.
    add(_guard(lambda: finish_all(corpus), trash.trash_root(corpus)))
    add(_guard(lambda: finish_restores(corpus), trash.trash_root(corpus)))
    # An undo running in another process moves its notebooks' files: they are not judged.
    busy = moving_now(corpus)
    if busy is None:
        report.stopped = DoctorStop.UNDO_RUNNING
        return

    with corpus.locked():
        # Every atomic write in these folders happens under the corpus lock: a temp is dead.
        for d in (corpus.root, corpus.runs_dir, RunStore(corpus).plans_dir):
            if fsio.exists(d):
                fsio.remove_stale_temps(d)
        add(_repair_index(corpus))
        add(_reconcile_registration(corpus, fsio.list_dir(corpus.notebooks_dir), busy))

    entries = corpus.index_entries()
    page_owners: Counter[str] = Counter()
    manifests: dict[str, dict[str, Any]] = {}
    titles = {nbid: e.title for nbid, e in entries.items()}
    for nbid in (n for n in entries if n not in busy):
        nb_dir = corpus.notebook_dir(nbid)
        outside = corpus.outside_problem(nbid)
        if outside is not None:
            report.findings.append(
                Finding(
                    FindingCode.OUTSIDE_CORPUS,
                    Severity.PROBLEM,
                    # Not "read": notebooks, audit and export read a linked folder's files.
                    f"Notebook {nbid}: {outside}. Nothing is written, moved or removed through "
                    "it; put the notebook's own folder back in its place (move the linked "
                    "folder there) and run doctor again.",
                    nbid,
                    str(nb_dir),
                )
            )
            continue
        try:
            manifest = project.read(nb_dir, nbid)
        except TranscribeError:
            continue  # reported by the registration pass
        report.notebooks_checked += 1
        titles[nbid] = str(manifest.get("title") or titles[nbid])
        add(_check_files(corpus, nbid, nb_dir, manifest, verify_hashes, copies))
        if is_empty(manifest):
            add([_empty_notebook(nbid, nb_dir, manifest)])
        page_owners.update(str(p.get("id")) for p in project.page_records(manifest))
        manifests[nbid] = manifest
    for page_id, count in page_owners.items():
        if count > 1:
            report.findings.append(
                Finding(
                    FindingCode.DUPLICATE_ID,
                    Severity.PROBLEM,
                    f"Page id {page_id} appears {count} times in the corpus; a page was doubled. "
                    "Remove the duplicate entry from the notebook's project.json.",
                )
            )
    # What the fixity audit found and nothing has repaired since (engine/audit): told once.
    told = {f.path for f in report.findings if f.path is not None}
    add(_guard(lambda: fixity_findings(corpus, told), corpus.root))
    add(_check_runs(corpus))
    add(incomplete_findings(corpus, titles))  # notes, not problems: what finishes each
    add(held_twice_findings(corpus, manifests))
    add(_quarantine_summary(corpus))


def _titles(titles: Iterable[str], shown: int = 3) -> str:
    """Notebook titles as a sentence names them: “A”, “B” and 2 more."""
    named = [f"“{t}”" for t in titles]
    if len(named) <= shown:
        return ", ".join(named[:-1]) + (" and " if len(named) > 1 else "") + named[-1]
    return ", ".join(named[:shown]) + f" and {len(named) - shown} more"


def _finish_command(corpus: Corpus, run_id: str) -> str | None:
    """The command that imports a checkpoint's undone pages once its run has ended (committing
    its frozen plan again: the window's Finish Import); None while the run can be resumed."""
    store = RunStore(corpus)
    try:
        record = store.load(run_id)
    except (OSError, TranscribeError):
        return None  # its record is judged below; Resume is what the journal knew
    if not record.status.terminal:
        return None
    return f"transcribe-import commit {store.plan_path(run_id)}"


def _links(corpus: Corpus) -> list[Finding]:
    """Every symbolic link among the corpus's own folders and files, each a problem.

    A notebook folder that is itself a link is left to the notebooks' own check
    (``outside_corpus``), which reports it and goes on with the other notebooks.
    """
    return [
        Finding(
            FindingCode.LINK_IN_CORPUS,
            Severity.PROBLEM,
            f"{fsio.link_words(link)} Doctor repaired nothing else while it is there.",
            path=str(link),
        )
        for link in fsio.links_under(corpus.root)
        if not (link.parent == corpus.notebooks_dir and is_valid_id(link.name))
    ]


def _check_runs(corpus: Corpus) -> list[Finding]:
    """Quarantine unreadable run records; list interrupted runs so a person can resume them."""
    store = RunStore(corpus)
    out: list[Finding] = []
    run_ids = store.run_ids()
    shown = ShortIds.of(run_ids)  # each run as `runs` lists it, which every command takes
    for run_id in run_ids:
        run = shown(run_id)
        try:
            record = store.load(run_id)
        except RunCorrupt as exc:
            lock = store.run_lock(run_id)
            if not locks.take_unless_owned(lock):
                continue  # being rewritten by its executor right now
            try:
                target = store.quarantine(run_id, str(exc))
            finally:
                lock.release()
            out.append(
                Finding(
                    FindingCode.RUN_QUARANTINED,
                    Severity.PROBLEM,
                    f"Import run {run}: its record could not be read; it was moved to "
                    f"{target} with a report. The notebooks it committed are unaffected; "
                    "its frozen plan is kept (see below).",
                    path=str(target),
                )
            )
            continue
        if store.is_interrupted(record):
            counts = record.counts()
            said = (
                f"Import run {run} was interrupted with "
                f"{counted(counts['pending'], 'item')} not done ({counts['committed']} "
                "committed)"
            )
            try:
                plan = store.load_plan(run_id, record)
                # The window's words name the import by its notebooks, never by its id.
                situation = (
                    f"The import into {_titles(it.label for it in plan.items)} was interrupted "
                    f"with {counted(counts['pending'], 'notebook')} not done "
                    f"({counts['committed']} committed)."
                )
                remedies: tuple[Remedy, ...] = (Remedy.RESUME_RUN, Remedy.CANCEL_RUN)
                advice = (
                    f"resume it with `transcribe-import resume {run}` or cancel it with "
                    f"`transcribe-import cancel {run}`."
                )
            except RunCorrupt as exc:
                # Only a cancel works without the plan: never advise a resume that cannot.
                damaged = f"its frozen plan is damaged ({exc.path}), so it cannot be resumed"
                situation = f"{said}; {damaged}."
                remedies = (Remedy.CANCEL_RUN,)
                advice = (
                    f"{damaged}: end it with `transcribe-import cancel {run}` (the pages it "
                    "landed stay and are counted), then commit your plan file again to import "
                    "the rest."
                )
            out.append(
                Finding(
                    FindingCode.INTERRUPTED_RUN,
                    Severity.PROBLEM,
                    f"{said}; {advice}",
                    path=str(store.record_path(run_id)),
                    situation=situation,
                    remedies=remedies,
                    run_id=run_id,
                )
            )
    out += _orphan_plans(store)
    return out


def _orphan_plans(store: RunStore) -> list[Finding]:
    """Frozen plans whose record is gone: what their runs did is tracked by no run.

    Told until a run of the same plan exists (committing the snapshot again makes one),
    with the command that brings the rest in, and the way to give it up.
    """
    with store.corpus.locked():  # a run is created (plan, then record) under this lock
        orphans = store.orphan_plans()
    if not orphans:
        return []
    tracked = {r.plan_id for r in store.list_runs()}
    shown = ShortIds.of([*store.run_ids(), *orphans])  # as `runs` and the plans' files name them
    out = []
    for run_id, plan_id in sorted(orphans.items()):
        if plan_id in tracked:
            continue
        path = store.plan_path(run_id)
        situation = (
            f"Import run {shown(run_id)} has no record (it is in quarantine, or missing), so no "
            f"run tracks its items; its frozen plan is kept at {path}. Pages it landed stay "
            "in their notebooks."
        )
        out.append(
            Finding(
                FindingCode.RUN_UNTRACKED,
                Severity.PROBLEM,
                f"{situation} To import what did not land, commit that plan again: "
                f"`transcribe-import commit {path}` (what landed is recognised as the plan's "
                f"own and not imported twice). To give it up instead, move {path} out of the "
                "corpus.",
                path=str(path),
                situation=situation,
                remedies=(Remedy.OPEN_PLAN,),
                run_id=run_id,
            )
        )
    return out


def _guard(step: Any, where: Path) -> list[Finding]:
    """Run one recovery step; an I/O error is reported, not fatal, and the next run retries."""
    try:
        return list(step())
    except OSError as exc:
        return [_disk_finding(exc, where)]


def _repair_index(corpus: Corpus) -> list[Finding]:
    """Quarantine a copy of a damaged index and rewrite it with its readable entries."""
    damage = corpus.index_damage()
    if not damage:
        return []
    lines = "; ".join(f"line {d.line_no}: {d.reason}" for d in damage[:5])
    target = quarantine.quarantine(
        corpus, corpus.index_path, "index", f"damaged index ({lines})", copy=True
    )
    crashpoint("doctor.index_copied")
    entries = list(corpus.index_entries().values())
    corpus.rewrite_index(entries)
    return [
        Finding(
            FindingCode.INDEX_REPAIRED,
            Severity.REPAIRED,
            f"The corpus index had {counted(len(damage), 'unreadable line')} ({lines}); a copy "
            f"is in {target} and the index was rewritten from its readable lines. Notebooks those "
            "lines named are registered again from their project.json.",
            path=str(target),
        )
    ]


def _reconcile_registration(
    corpus: Corpus, names: list[str], busy: frozenset[str]
) -> list[Finding]:
    """Boundaries 1 and 2: register valid manifests, report registrations without one.

    ``busy``: notebooks an undo is moving right now, left alone.
    """
    out: list[Finding] = []
    entries = {n: e for n, e in corpus.index_entries().items() if n not in busy}
    for name in (n for n in names if n not in busy):
        path = corpus.notebooks_dir / name
        if name.startswith(CREATING_PREFIX) and is_valid_id(name[len(CREATING_PREFIX) :]):
            # Creation renames this into place before registering: never registered, roll back,
            # unless its first pages are being imported into it right now (its lock is held).
            if not remove_dead_creation(corpus, name[len(CREATING_PREFIX) :]):
                continue
            out.append(
                Finding(
                    FindingCode.INCOMPLETE_CREATE_REMOVED,
                    Severity.REPAIRED,
                    f"An interrupted notebook creation ({path.name}) was rolled back; it was "
                    "never shown in the corpus, and resuming its import run imports its pages.",
                    path=str(path),
                )
            )
            continue
        if not is_valid_id(name):
            if not name.startswith("."):
                out.append(
                    Finding(
                        FindingCode.UNREGISTERED_DIRECTORY,
                        Severity.PROBLEM,
                        f"{path} is not a notebook folder of this corpus; move it elsewhere.",
                        path=str(path),
                    )
                )
            continue
        if name in entries:
            continue
        try:
            manifest = project.read(path, name)
        except TranscribeError as exc:
            out.append(
                Finding(
                    FindingCode.UNREGISTERED_DIRECTORY,
                    Severity.PROBLEM,
                    f"{path} was never registered and has no valid project.json ({exc}); it is "
                    "kept for you to inspect. Move it out of the corpus when done.",
                    name,
                    str(path),
                )
            )
            continue
        title = manifest["title"] if isinstance(manifest.get("title"), str) else name
        run = manifest.get("import_run_id")
        corpus.register(
            IndexEntry.of_notebook(
                name,
                title,
                str(manifest.get("created_at", "")),
                run if isinstance(run, str) and is_valid_id(run) else None,
            )
        )
        out.append(
            Finding(
                FindingCode.REGISTRATION_COMPLETED,
                Severity.REPAIRED,
                f"Notebook {quoted_title(title)} ({name}) existed but was not registered; "
                "its registration was completed.",
                name,
                str(path),
            )
        )
    for nbid, entry in entries.items():
        path = corpus.root / entry.directory
        try:
            project.read(path, nbid)
        except TranscribeError as exc:
            code = (
                FindingCode.REGISTERED_WITHOUT_MANIFEST
                if not fsio.exists(path / project.PROJECT_FILE)
                else FindingCode.MANIFEST_INVALID
            )
            out.append(
                Finding(
                    code,
                    Severity.PROBLEM,
                    f"Notebook {quoted_title(entry.title)} ({nbid}) is registered but cannot be "
                    f"loaded: {exc} Its index entry is kept.",
                    nbid,
                    str(path),
                )
            )
    return out


def _empty_notebook(nbid: str, nb_dir: Path, manifest: dict[str, Any]) -> Finding:
    title = manifest["title"] if isinstance(manifest.get("title"), str) else nbid
    command = f"transcribe-import doctor --remove-empty {nbid}"
    return Finding(
        FindingCode.EMPTY_NOTEBOOK,
        Severity.INFO,
        f"Notebook {quoted_title(title)} ({nbid}) holds no page (an earlier version left it "
        f"when an import was cancelled or failed). Import pages into it, or remove it with "
        f"`{command}`.",
        nbid,
        str(nb_dir),
        command=command,
    )


class _Copies:
    """Files a person offered to restore lost ones from, found by their sha256 (lazily)."""

    def __init__(self, roots: Sequence[Path]) -> None:
        self.roots = [Path(r) for r in roots]
        self._by_sha: dict[str, Path] | None = None

    def find(self, sha: str) -> Path | None:
        if not self.roots:
            return None
        if self._by_sha is None:
            self._by_sha = {}
            for root in self.roots:
                files = [root] if fsio.is_file(root) else sorted(root.rglob("*"))
                for f in files:
                    if fsio.is_link(f) or not fsio.is_file(f):
                        continue
                    try:
                        self._by_sha.setdefault(fsio.hash_file(f)[0], f)
                    except OSError:
                        continue
        return self._by_sha.get(sha)


def _restore(nb_dir: Path, rel: str, sha: str, copies: _Copies) -> Path | None:
    """Copy the file with ``sha`` back to ``nb_dir/rel`` under the ingest lock; its source."""
    src = copies.find(sha)
    if src is None:
        return None

    def copy(dst: Path) -> bool:
        tmp = dst.parent / f".{dst.name}.tmp-{os.getpid()}-restore"
        got, _ = fsio.copy_hashed(src, tmp)
        if got != sha:  # changed since it was hashed: never restore other bytes
            fsio.remove(tmp)
            return False
        fsio.replace(tmp, dst)
        fsio.fsync_dir(dst.parent)
        return True

    return src if _put_back(nb_dir, rel, copy) else None


def _put_back(nb_dir: Path, rel: str, write: Callable[[Path], bool]) -> bool:
    """Write a lost file of a notebook back (``write`` says whether it did), under the
    notebook's ingest lock and only where nothing is: the one way doctor restores a file."""
    lock = locks.make_lock(nb_dir / journal.LOCK_FILE)
    if not locks.try_acquire(lock):
        return False  # an import is running there: the next doctor does it
    try:
        dst = nb_dir / rel
        if fsio.exists(dst):
            return False
        return write(dst)
    finally:
        lock.release()


def _rerender(
    nb_dir: Path, rel: str, page: dict[str, Any], manifest: dict[str, Any]
) -> RenderAgain:
    """A lost page render made again (media/rerender.py), written only with its recorded
    bytes, under the notebook's ingest lock."""
    again = rerender.render_again(nb_dir, page, manifest)
    png = again.png

    def write(dst: Path) -> bool:
        fsio.atomic_write(dst, png or b"")
        return True

    if png is None or _put_back(nb_dir, rel, write):
        return again
    return RenderAgain(None, again.source, "an import is writing to the notebook")


def _restore_command(corpus: Corpus, original: str | None) -> str:
    """The command that brings a lost file back (a re-import cannot: it is a duplicate skip),
    from the file it was imported from, or else from a BACKUP the person names."""
    head = f"transcribe-import --data-dir {shlex.quote(str(corpus.data_dir))} doctor --restore-from"
    return f"{head} {shlex.quote(original)}" if original else f"{head} BACKUP"


def _missing_advice(corpus: Corpus, rel: str, original: str | None, why_not: str = "") -> str:
    """How to bring a lost file back: ``_restore_command``, with what it takes."""
    command = _restore_command(corpus, original)
    if original:
        return (
            f"restore it with `{command}` (the file it was imported from; "
            "a backup folder holding a copy works too: only bytes with its recorded sha256 "
            "are used)"
        )
    if rel.startswith("renders/"):
        return (
            f"doctor cannot render it again ({why_not}): restore the source first if it is "
            "missing (its own "
            f"finding says how), or restore the render with `{command}`, BACKUP being a "
            "backup of this corpus (only bytes with its recorded sha256 are used)"
        )
    return (
        f"restore it with `{command}`, BACKUP being a backup of this corpus or a folder "
        "holding a copy of the file (only bytes with its recorded sha256 are used)"
    )


def _pages_by_file(manifest: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    """Each file of a notebook's current pages, by its relative path, with the numbers of the
    pages that show it (a PDF's source is shown by each of its pages; a page's render by it)."""
    sources = {
        s.get("id"): s["path"]
        for s in manifest["sources"]
        if isinstance(s, dict) and isinstance(s.get("path"), str)
    }
    shown: dict[str, list[int]] = {}
    live = [p for p in manifest["pages"] if isinstance(p, dict)]
    for number, page in enumerate(live, start=1):
        render = page.get("render")
        files = [sources.get(page.get("source_id"))]
        files.append(render.get("path") if isinstance(render, dict) else None)
        for rel in files:
            if isinstance(rel, str):
                shown.setdefault(rel, []).append(number)
    return {rel: tuple(numbers) for rel, numbers in shown.items()}


def _check_files(
    corpus: Corpus,
    nbid: str,
    nb_dir: Path,
    manifest: dict[str, Any],
    verify_hashes: bool,
    copies: _Copies,
) -> list[Finding]:
    out: list[Finding] = []
    expected: dict[str, tuple[str | None, int | None]] = {}
    originals: dict[str, str] = {}
    for s in manifest["sources"]:
        if isinstance(s, dict) and isinstance(s.get("path"), str):
            expected[s["path"]] = (s.get("sha256"), s.get("size"))
            prov = s.get("provenance")
            if isinstance(prov, dict) and isinstance(prov.get("original_path"), str):
                originals[s["path"]] = prov["original_path"]
    renders: dict[str, dict[str, Any]] = {}
    # A page a rescan replaced is history: its render is checked (and put back) as any is.
    records = project.page_records(manifest)
    for p in records:
        r = p.get("render")
        if isinstance(r, dict) and isinstance(r.get("path"), str):
            expected[r["path"]] = (r.get("sha256"), None)
            renders[r["path"]] = p
    shown_by = _pages_by_file(manifest)
    ids = [s.get("id") for s in manifest["sources"] if isinstance(s, dict)]
    ids += [p.get("id") for p in records]
    for dup, n in Counter(ids).items():
        if n > 1:
            out.append(
                Finding(
                    FindingCode.DUPLICATE_ID,
                    Severity.PROBLEM,
                    f"Notebook {nbid} lists id {dup} {n} times in project.json.",
                    nbid,
                    str(nb_dir / project.PROJECT_FILE),
                )
            )
    for rel, (sha, size) in expected.items():
        path = nb_dir / rel
        try:
            st = fsio.stat(path)
        except FileNotFoundError:
            restored = _restore(nb_dir, rel, sha, copies) if isinstance(sha, str) else None
            again = RenderAgain(None, None)
            if restored is None and isinstance(sha, str) and rel in renders:
                again = _rerender(nb_dir, rel, renders[rel], manifest)
            if again.png is not None:
                out.append(
                    Finding(
                        FindingCode.FILE_RESTORED,
                        Severity.REPAIRED,
                        f"Notebook {nbid}: {rel} was missing; it was rendered again from "
                        f"{again.source} (the same bytes: its sha256 matches project.json).",
                        nbid,
                        str(path),
                        pages=shown_by.get(rel, ()),
                    )
                )
                continue
            if restored is not None:
                out.append(
                    Finding(
                        FindingCode.FILE_RESTORED,
                        Severity.REPAIRED,
                        f"Notebook {nbid}: {rel} was missing; it was restored from {restored} "
                        "(its sha256 matches project.json).",
                        nbid,
                        str(path),
                        pages=shown_by.get(rel, ()),
                    )
                )
                continue
            out.append(
                Finding(
                    FindingCode.FILE_MISSING,
                    Severity.PROBLEM,
                    f"Notebook {nbid}: {rel} is listed in project.json but missing; "
                    f"{_missing_advice(corpus, rel, originals.get(rel), again.why_not)}.",
                    nbid,
                    str(path),
                    command=_restore_command(corpus, originals.get(rel)),
                    pages=shown_by.get(rel, ()),
                )
            )
            continue
        bad_size = size is not None and st.st_size != size
        if bad_size or (verify_hashes and sha and fsio.hash_file(path)[0] != sha):
            out.append(
                Finding(
                    FindingCode.FILE_HASH_MISMATCH,
                    Severity.PROBLEM,
                    f"Notebook {nbid}: {rel} does not match the hash in project.json; the file "
                    "was changed or damaged. Restore it from a backup.",
                    nbid,
                    str(path),
                    pages=shown_by.get(rel, ()),
                )
            )
    live_journal = fsio.exists(nb_dir / journal.JOURNAL_FILE)
    for sub in ("sources", "renders"):
        names = fsio.list_dir(nb_dir / sub, missing_ok=True)
        for name in names:
            rel = f"{sub}/{name}"
            if rel not in expected and not live_journal:
                out.append(
                    Finding(
                        FindingCode.ORPHAN_FILE,
                        Severity.PROBLEM,
                        f"Notebook {nbid}: {rel} is not listed in project.json (an orphaned "
                        "file); it is kept. Delete it if you do not need it.",
                        nbid,
                        str(nb_dir / rel),
                    )
                )
    staging = nb_dir / journal.STAGING_DIR
    if not live_journal and fsio.exists(staging):
        for name in fsio.list_dir(staging):
            out.append(
                Finding(
                    FindingCode.ORPHAN_FILE,
                    Severity.PROBLEM,
                    f"Notebook {nbid}: staging folder {name} has no journal (left by a "
                    "quarantined or foreign transaction); it is kept. Delete it if you do not "
                    "need it.",
                    nbid,
                    str(staging / name),
                )
            )
    return out


def _quarantine_summary(corpus: Corpus) -> list[Finding]:
    out: list[Finding] = []
    held = quarantine.held_files(corpus)
    if held:
        out.append(
            Finding(
                FindingCode.QUARANTINE_PRESENT,
                Severity.INFO,
                f"{counted(len(held), 'file')} {agreeing(len(held), 'is', 'are')} kept in "
                f"{corpus.quarantine_dir}, each with a report "
                "beside it.",
                path=str(corpus.quarantine_dir),
            )
        )
    return out
