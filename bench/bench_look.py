"""Benchmark: the look pass's work on each page, by step, and a digest of all it makes.

Issue #38: every page of a shelf pays the look pass (``look_pass.look_job``: the file read
and hashed, its small decode, the page's ink, look and measures, the ink packed for the
process that keeps it), so it sets the floor of ``plan``. This runs that job on three sets
of page files, each page alone, and reports the CPU a page by step:

  shelf     the 600x850 JPEGs of bench/bench_shelf.py's 500-page shelf (``--make``)
  a4        bench/bench_scan.py --a4's 60 pages at 300 dpi (30 JPEGs, 3 PDFs of 10 pages)
  a4-kinds  a page of each kind of tests/helpers/pages.py's under each light, enlarged to A4
            at 300 dpi (date only, few words, page number: sparse, decoded twice)
  labelled  tests/helpers/pages.py's labelled sets (the tuned seed 11 and the held-out 2027,
            4 pages a notebook: first scans, rescans of every kind, new pages, PNGs among
            them) and a numbered notebook: dense, half, sparse and blank pages

Steps (CPU, ``time.process_time``, each step's own time, the steps it calls left out):
hash (the read and sha256), decode (libjpeg, pdfium's image bytes are in "rest"), shrink
(libjpeg's scale and the resize to ``ink.SIDE``), ink, measures, look (the 32x32 reduction
and the DCT hash), pack (the ink packed) and rest (the job's time less all of these).

With every run it writes a digest of each page's outputs (the look and measures as kept,
the ink's pixels and detail bytes, the written part, the packed ink): ``--before APP`` runs
another tree's app/ (``git archive BASE app | tar -x -C /tmp/base``) in the same run, each
of its rounds just before this tree's, and the outputs must be equal to the last bit: a
page that differs is named and the run fails.

    PYTHONPATH=app .venv/bin/python bench/bench_look.py [--before /tmp/base/app] [--repeat 3]
        [--sets shelf a4 labelled] [--limit N]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
WORK = BENCH / "_work"
APP = ROOT / "app"
STEPS = ("hash", "decode", "shrink", "ink", "measures", "look", "pack", "rest")
SETS = ("shelf", "a4", "a4-kinds", "labelled")
LABELLED_SEEDS = (11, 2027)


# -- the pages (made once, in the parent, so that both trees read the same bytes) -----------


def _shelf_pages() -> list[tuple[Path, str, int]]:
    from bench_shelf import make_shelf  # noqa: PLC0415 - beside this script

    root = make_shelf(500)
    return [(p, "image/jpeg", 1) for p in sorted(root.rglob("*.jpg"))]


def _a4_pages() -> list[tuple[Path, str, int]]:
    from bench_scan import PDF_PAGES, make_a4_tree  # noqa: PLC0415 - beside this script

    root = make_a4_tree(60)
    out = [(p, "image/jpeg", 1) for p in sorted(root.rglob("*.jpg"))]
    out += [(p, "application/pdf", PDF_PAGES) for p in sorted(root.rglob("*.pdf"))]
    return out


def _a4_sparse_pages() -> list[tuple[Path, str, int]]:
    """Labelled-set pages of every kind enlarged to 300 dpi A4 (2480x3508): the sparse ones
    are decoded twice, the second time whole, for their written part at 2048 pixels."""
    sys.path.insert(0, str(ROOT / "tests"))
    from helpers.pages import Kind, Light, Paper, notebook, page  # noqa: PLC0415

    folder = WORK / "look-a4-kinds"
    done = folder.with_name(folder.name + ".complete")
    if not done.exists():
        folder.mkdir(parents=True, exist_ok=True)
        for k, kind in enumerate(Kind):
            for light in Light:
                im = page(notebook(70 + k, Paper.RULED, light), 2, kind).resize((2480, 3508))
                im.save(folder / f"{kind.name.lower()} {light.name.lower()}.jpg", quality=85)
        done.write_text("12 pages\n")
    return [(p, "image/jpeg", 1) for p in sorted(folder.glob("*.jpg"))]


def _labelled_pages() -> list[tuple[Path, str, int]]:
    sys.path.insert(0, str(ROOT / "tests"))
    from helpers.pages import labelled_set, numbered_notebook  # noqa: PLC0415

    out: list[tuple[Path, str, int]] = []
    for seed in LABELLED_SEEDS:
        folder = WORK / f"look-labelled-{seed}"
        done = folder.with_name(folder.name + ".complete")
        if not done.exists():
            folder.mkdir(parents=True, exist_ok=True)
            made = labelled_set(4, per_light=3, rescans_per_page=3, seed=seed)
            files = [(f"sheet {i:03d}.jpg", s.data) for i, s in enumerate(made.sheets)]
            files += [(f"rescan {i:03d}{t.ext}", t.data) for i, t in enumerate(made.rescans)]
            files += [(f"new {i:03d}.jpg", s.data) for i, s in enumerate(made.new_pages)]
            if seed == LABELLED_SEEDS[0]:
                files += [(f"number {i:02d}.jpg", d) for i, d in enumerate(numbered_notebook(6))]
            for name, data in files:
                (folder / name).write_bytes(data)
            done.write_text(f"{len(files)} pages\n")
        for p in sorted(folder.iterdir()):
            kind = "image/png" if p.suffix == ".png" else "image/jpeg"
            out.append((p, kind, 1))
    return out


def pages(sets: list[str], limit: int | None) -> list[tuple[str, Path, str, int]]:
    makers = {
        "shelf": _shelf_pages,
        "a4": _a4_pages,
        "a4-kinds": _a4_sparse_pages,
        "labelled": _labelled_pages,
    }
    out = []
    for name in sets:
        found = makers[name]()
        out += [(name, *page) for page in found[:limit]]
    return out


# -- the child: one tree's look job on each page, timed by step ------------------------------


class _Clock:
    """Each step's own CPU: a wrapped function's time less that of the wrapped ones it calls."""

    def __init__(self) -> None:
        self.own: dict[str, float] = dict.fromkeys(STEPS, 0.0)
        self._stack: list[float] = []  # the time of wrapped calls made by each open call

    def wrap(self, owner: object, name: str, step: str) -> None:
        original = getattr(owner, name, None)
        if original is None:
            return
        clock = self

        def timed(*args: object, **kwargs: object) -> object:
            clock._stack.append(0.0)
            start = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                spent = time.process_time() - start
                inner = clock._stack.pop()
                clock.own[step] += spent - inner
                if clock._stack:
                    clock._stack[-1] += spent

        setattr(owner, name, timed)


def _array_digest(h: hashlib._Hash, pixels: object) -> None:
    import numpy as np  # noqa: PLC0415

    if pixels is None:
        h.update(b"none")
        return
    a = np.asarray(pixels)
    h.update(f"{a.dtype}{a.shape}".encode())
    h.update(np.ascontiguousarray(a).tobytes())


def child(listing: Path, repeat: int) -> dict[str, object]:
    from PIL import ImageFile  # noqa: PLC0415

    from transcribe_import.engine.media import (  # noqa: PLC0415
        check,
        ink,
        lookalike,
        page_measures,
    )
    from transcribe_import.engine.planning import inks, look_pass  # noqa: PLC0415

    clock = _Clock()
    clock.wrap(check, "read_once", "hash")
    clock.wrap(ImageFile.ImageFile, "load", "decode")
    clock.wrap(lookalike, "_jpeg_image", "shrink")
    clock.wrap(lookalike, "_jpeg_whole", "shrink")
    clock.wrap(ink, "ink_of", "ink")
    clock.wrap(page_measures, "measure", "measures")
    clock.wrap(lookalike, "_look", "look")
    clock.wrap(lookalike, "_reduced", "look")
    clock.wrap(inks, "packed", "pack")
    seen_now: list[object] = []
    page_seen = lookalike.page_seen

    def recorded(*args: object, **kwargs: object) -> object:
        out = page_seen(*args, **kwargs)  # type: ignore[arg-type]
        seen_now.extend(out)
        return out

    lookalike.page_seen = recorded  # type: ignore[assignment]
    listed = json.loads(listing.read_text())
    results = []
    for set_name, path_text, media_type, count in listed:
        path = Path(path_text)
        data = path.read_bytes()
        sha = hashlib.sha256(data).hexdigest()
        job = look_pass.LookJob(path, sha, len(data), media_type, count, tuple(range(count)))
        times = []
        steps: dict[str, list[float]] = {s: [] for s in STEPS}
        digest = ""
        for _ in range(repeat):
            seen_now.clear()
            before = dict(clock.own)
            start = time.process_time()
            if media_type in look_pass.PASS_TYPES:
                looked = look_pass.look_job(job, keep_inks=False, send_inks=True)
                looks = [looked.looks.get(k) for k in sorted(looked.looks)]
                packed = [looked.packed_inks.get(k) for k in sorted(looked.looks)]
            else:  # a PNG: what a verification makes of a page whose ink is not kept
                seen = lookalike.page_seen(path, media_type, count, size=len(data), data=data)
                looks = [None if s is None else s.kept() for s in seen]
                packed = [None if s is None else inks.packed(s.ink) for s in seen]
            spent = time.process_time() - start
            own = {s: clock.own[s] - before[s] for s in STEPS}
            own["rest"] = spent - sum(v for s, v in own.items() if s != "rest")
            times.append(spent)
            for s in STEPS:
                steps[s].append(own[s])
            h = hashlib.sha256()
            for look, pk, s in zip(looks, packed, seen_now, strict=True):
                h.update(repr(look).encode())
                if s is None:
                    h.update(b"no page")
                    continue
                _array_digest(h, s.ink.pixels)
                _array_digest(h, s.ink.detail)
                _array_digest(h, ink.written(s.ink))
                h.update(repr(pk).encode())
            digest = h.hexdigest()
        best = min(range(repeat), key=lambda k: times[k])
        results.append(
            {
                "set": set_name,
                "path": path_text,
                "pages": count,
                "cpu": times[best],
                "steps": {s: steps[s][best] for s in STEPS},
                "digest": digest,
                "looks": looks,
            }
        )
    return {"pages": results}


def run_child(app: Path, listing: Path, repeat: int) -> dict[str, object]:
    env = dict(os.environ, PYTHONPATH=str(app))
    out = subprocess.run(
        [sys.executable, __file__, "--child", str(listing), "--repeat", str(repeat)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, object] = json.loads(out.stdout)
    return result


# -- the parent: the figures, and the outputs compared ---------------------------------------


def _per_page(result: dict[str, object], set_name: str) -> dict[str, float]:
    rows = [r for r in result["pages"] if r["set"] == set_name]  # type: ignore[attr-defined]
    count = sum(r["pages"] for r in rows)
    out = {s: 1000 * sum(r["steps"][s] for r in rows) / count for s in STEPS}
    out["total"] = 1000 * sum(r["cpu"] for r in rows) / count
    out["median"] = 1000 * statistics.median(r["cpu"] / r["pages"] for r in rows)
    out["pages"] = count
    return out


def _table(runs: dict[str, dict[str, object]], sets: list[str]) -> str:
    lines = [
        "| set | tree | pages | " + " | ".join(STEPS) + " | total ms/page | median |",
        "|---|---|---:|" + "---:|" * (len(STEPS) + 2),
    ]
    for set_name in sets:
        for tree, result in runs.items():
            f = _per_page(result, set_name)
            cells = " | ".join(f"{f[s]:.2f}" for s in STEPS)
            lines.append(
                f"| {set_name} | {tree} | {f['pages']:.0f} | {cells} | "
                f"**{f['total']:.2f}** | {f['median']:.2f} |"
            )
    return "\n".join(lines)


def _compared(before: dict[str, object], after: dict[str, object]) -> list[str]:
    differ = []
    for a, b in zip(before["pages"], after["pages"], strict=True):  # type: ignore[call-overload]
        if a["digest"] != b["digest"]:
            differ.append(f"{a['set']}: {a['path']}")
    return differ


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--before", type=Path, help="another tree's app/ folder, run alongside")
    ap.add_argument("--repeat", type=int, default=3, help="each page's job this often, best kept")
    ap.add_argument("--sets", nargs="+", choices=SETS, default=list(SETS))
    ap.add_argument("--limit", type=int, help="at most this many files of each set")
    ap.add_argument("--rounds", type=int, default=1, help="rounds of before then after")
    ap.add_argument("--digests", type=Path, help="write each page's digest here (JSON)")
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.repeat)))
        return
    listed = [(s, str(p), kind, n) for s, p, kind, n in pages(args.sets, args.limit)]
    load_before = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    with tempfile.TemporaryDirectory(prefix="bench-look-") as tmp:
        listing = Path(tmp) / "pages.json"
        listing.write_text(json.dumps(listed))
        best: dict[str, dict[str, object]] = {}
        for _ in range(args.rounds):
            trees = ([("before", args.before)] if args.before else []) + [("after", APP)]
            for tree, app in trees:
                result = run_child(app, listing, args.repeat)
                kept = best.get(tree)
                if kept is None:
                    best[tree] = result
                else:  # each page's best of the rounds
                    for old, new in zip(kept["pages"], result["pages"], strict=True):  # type: ignore[call-overload]
                        if new["cpu"] < old["cpu"]:
                            old.update(new)
    load_after = os.getloadavg()
    print(
        f"{started}; load {load_before[0]:.1f} before, {load_after[0]:.1f} after; "
        f"{len(listed)} files, each job's best of {args.repeat} x {args.rounds} round(s)\n"
    )
    print(_table(best, args.sets))
    if args.digests:
        args.digests.write_text(
            json.dumps({r["path"]: r["digest"] for r in best["after"]["pages"]}, indent=1)  # type: ignore[index]
        )
    if args.before:
        differ = _compared(best["before"], best["after"])
        total = len(best["after"]["pages"])  # type: ignore[arg-type]
        if differ:
            print(f"\nOUTPUTS DIFFER on {len(differ)} of {total} files:")
            for line in differ[:20]:
                print("  " + line)
            sys.exit(1)
        print(f"\nOutputs equal to the last bit on all {total} files (looks, measures, inks).")


if __name__ == "__main__":
    main()
