"""Helpers for packaging/build.sh's smoke tests: make a small shelf of scans, check JSON outputs.

Runs with any Python that has Pillow (the smoke-test virtual environments); only
``check-resources`` imports the installed transcribe_import. Each check exits 1 with one line
on stderr saying what is wrong.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ICON_FILES = ["transcribe-import.svg"] + [
    f"transcribe-import-{s}.png" for s in (16, 32, 48, 64, 128, 256)
]


def fail(message: str) -> int:
    print(f"smoke: {message}", file=sys.stderr)
    return 1


def make_shelf(root: Path) -> int:
    """Two notebooks: three JPEG pages numbered 1, 2, 4 (an order to accept) and a 2-page PDF."""
    from PIL import Image, ImageDraw

    notes = root / "Field notes"
    letters = root / "Letters"
    notes.mkdir(parents=True)
    letters.mkdir(parents=True)
    for n in (1, 2, 4):
        page = Image.new("RGB", (420, 600), "white")
        ImageDraw.Draw(page).text((24, 24), f"Field notes, page {n}", fill="black")
        page.save(notes / f"page {n}.jpg", quality=85)
    sheets = [Image.new("RGB", (420, 600), colour) for colour in ("white", "lightyellow")]
    sheets[0].save(letters / "letters.pdf", save_all=True, append_images=sheets[1:])
    return 0


def accept_ids(validate_json: Path) -> int:
    """Print the ids of items whose problems `order --accept` resolves, one a line."""
    doc = json.loads(validate_json.read_text())
    ids = {p["item_id"] for p in doc.get("problems", []) if "accept" in p.get("resolutions", [])}
    print("\n".join(sorted(i for i in ids if i)))
    return 0


def check_doctor(report: Path) -> int:
    doc = json.loads(report.read_text())
    if doc.get("clean") is not True:
        return fail(f"doctor did not report a clean corpus: {doc.get('findings')}")
    return 0


def check_notebooks(listing: Path, expected: list[str]) -> int:
    """``expected`` is TITLE=PAGES for every notebook the corpus must hold, and no others."""
    doc = json.loads(listing.read_text())
    got = {n["title"]: n.get("page_count") for n in doc["notebooks"]}
    want = {}
    for e in expected:
        title, pages = e.rsplit("=", 1)
        want[title] = int(pages)
    if got != want:
        return fail(f"notebooks are {got}, expected {want}")
    from PIL import Image

    for n in doc["notebooks"]:  # every page was rendered (PDF pages by pdfium) to an image
        renders = sorted((Path(n["directory"]) / "renders").iterdir())
        if len(renders) != n["page_count"]:
            return fail(f"{n['title']}: {len(renders)} renders for {n['page_count']} pages")
        for r in renders:
            with Image.open(r) as im:
                if min(im.size) < 100:
                    return fail(f"{n['title']}: render {r.name} is only {im.size}")
        # JPEG and PDF pages are rendered by libvips: its shared library was found and loaded.
        manifest = json.loads((Path(n["directory"]) / "project.json").read_text())
        made_by = {p["render"].get("renderer", "") for p in manifest["pages"]}
        if not all(m.startswith("libvips ") for m in made_by):
            return fail(f"{n['title']}: renders made by {sorted(made_by)}, not all by libvips")
    return 0


def check_resources(version: str, not_under: Path) -> int:
    """The installed package's icons are reachable through importlib.resources, outside the repo."""
    import importlib.resources

    import transcribe_import

    if transcribe_import.__version__ != version:
        return fail(f"installed version {transcribe_import.__version__}, expected {version}")
    icons = importlib.resources.files("transcribe_import.resources") / "icons"
    missing = [name for name in ICON_FILES if not (icons / name).is_file()]
    if missing:
        return fail(f"icons missing from the installed package: {missing}")
    where = Path(str(icons)).resolve()
    if where.is_relative_to(not_under.resolve()):
        return fail(f"icons were found in the source tree ({where}), not in the install")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("make-shelf").add_argument("root", type=Path)
    sub.add_parser("accept-ids").add_argument("validate_json", type=Path)
    sub.add_parser("check-doctor").add_argument("report", type=Path)
    n = sub.add_parser("check-notebooks")
    n.add_argument("listing", type=Path)
    n.add_argument("expected", nargs="+", metavar="TITLE=PAGES")
    r = sub.add_parser("check-resources")
    r.add_argument("version")
    r.add_argument("not_under", type=Path)
    a = p.parse_args(argv)
    if a.cmd == "make-shelf":
        return make_shelf(a.root)
    if a.cmd == "accept-ids":
        return accept_ids(a.validate_json)
    if a.cmd == "check-doctor":
        return check_doctor(a.report)
    if a.cmd == "check-notebooks":
        return check_notebooks(a.listing, a.expected)
    return check_resources(a.version, a.not_under)


if __name__ == "__main__":
    sys.exit(main())
