"""Real files: Pillow's ``Tests/images`` and pypdf's ``resources``, planned and committed.

Every page file (by suffix) that Pillow or pdfium reads cleanly must be planned and
imported; every other one must be refused by name with a coded reason at planning, never
planned and then failing at commit. The corpora come from the sdists of the installed
Pillow and pypdf, which ``packaging/dev.sh test`` downloads into ``.cache/real-files``
(or ``TRANSCRIBE_REAL_FILES``). Without them the test skips, except under
``packaging/dev.sh test`` (and so CI), which sets ``TRANSCRIBE_REAL_FILES``: there it fails.
"""

from __future__ import annotations

import collections
import os
import tarfile
import warnings
from importlib.metadata import version
from pathlib import Path

import orjson
import pypdfium2
import pytest
from PIL import Image

from transcribe_import.engine.media import decode  # noqa: F401 - Pillow's logs demoted, as in the app
from transcribe_import.engine.media.kinds import KIND_BY_TYPE, PAGE_FILE_SUFFIXES, SUFFIX_TYPES

from helpers.cli import Exit, run_cli

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]
# packaging/dev.sh test (and so CI) sets TRANSCRIBE_REAL_FILES after downloading them.
REQUIRED = bool(os.environ.get("TRANSCRIBE_REAL_FILES"))
CACHE = Path(os.environ.get("TRANSCRIBE_REAL_FILES") or ROOT / ".cache" / "real-files")
CORPORA = {  # sdist -> the folder of real files inside it
    f"pillow-{version('pillow')}.tar.gz": "Tests/images/",
    f"pypdf-{version('pypdf')}.tar.gz": "resources/",
}


def _extract(dest: Path) -> list[Path]:
    missing = [name for name in CORPORA if not (CACHE / name).is_file()]
    if missing:
        reason = f"real-file corpora not downloaded ({', '.join(missing)} in {CACHE}); "
        reason += "bash packaging/dev.sh fetch-real-files gets them"
        if REQUIRED:
            pytest.fail(reason)
        pytest.skip(reason)
    files = []
    for name, inner in CORPORA.items():
        with tarfile.open(CACHE / name) as tar:
            for member in tar.getmembers():
                parts = member.name.split("/", 1)
                if len(parts) < 2 or not parts[1].startswith(inner) or not member.isfile():
                    continue
                if Path(member.name).suffix.lower() not in PAGE_FILE_SUFFIXES:
                    continue
                target = dest / name.split("-")[0] / parts[1]
                target.parent.mkdir(parents=True, exist_ok=True)
                extracted = tar.extractfile(member)
                assert extracted is not None
                target.write_bytes(extracted.read())
                files.append(target)
    return files


def _reads_cleanly(path: Path) -> bool:
    """The oracle, independent of the app: does the library that would decode it read it?"""
    media_type = SUFFIX_TYPES[path.suffix.lower()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if media_type == "application/pdf":
                doc = pypdfium2.PdfDocument(path)
                try:
                    if len(doc) == 0:
                        return False
                    for index in range(len(doc)):
                        page = doc[index]
                        page.render(scale=0.1).close()
                        page.close()
                finally:
                    doc.close()
                return True
            with Image.open(path, formats=KIND_BY_TYPE[media_type].pil_formats) as im:
                # A TIFF's frames are its pages; a PNG or WebP's page is its default image.
                frames = getattr(im, "n_frames", 1) if media_type == "image/tiff" else 1
                for frame in range(frames):
                    im.seek(frame)
                    if im.width * im.height > (Image.MAX_IMAGE_PIXELS or 0):
                        return False  # Pillow warns: a decompression bomb
                    im.load()
            return True
        except Exception:  # noqa: BLE001 - any failure means "not read cleanly"
            return False


def test_every_real_file_is_imported_or_refused_by_name(tmp_path: Path) -> None:
    shelf = tmp_path / "shelf"
    files = _extract(shelf)
    assert len(files) > 600
    clean = {f.relative_to(tmp_path).as_posix(): _reads_cleanly(f) for f in files}
    data, plan = tmp_path / "data", tmp_path / "plan.json"
    proc = run_cli(data, "plan", str(shelf), "-o", str(plan), "--policy", "create_duplicate")
    assert proc.returncode == Exit.OK, proc.stderr

    doc = orjson.loads(plan.read_bytes())
    planned, refused = set(), {}
    for item in doc["items"]:
        planned |= {s["provenance"]["rel"] for s in item["sources"]}
        refused |= {u["rel"]: u["code"] for u in item["provenance"].get("unusable", [])}
    refused |= {
        n["rel"]: n.get("code", "not_planned") for n in doc["provenance"].get("not_planned", [])
    }
    assert planned | set(refused) == set(clean)
    assert {rel for rel, ok in clean.items() if ok} == planned, "clean files refused"
    assert {rel for rel, ok in clean.items() if not ok} == set(refused)

    for item in doc["items"]:
        unusable = [u["rel"] for u in item["provenance"].get("unusable", [])]
        if unusable:
            proc = run_cli(data, "order", str(plan), item["item_id"], "--exclude", *unusable)
            assert proc.returncode == Exit.OK, proc.stderr
        proc = run_cli(data, "order", str(plan), item["item_id"], "--by", "name")
        assert proc.returncode == Exit.OK, proc.stderr
    proc = run_cli(data, "commit", str(plan), "--json", timeout=600)
    assert proc.returncode == Exit.OK, proc.stdout[-3000:] + proc.stderr
    run = orjson.loads(proc.stdout)
    assert run["status"] == "complete", run

    notebooks = orjson.loads(run_cli(data, "notebooks", "--json").stdout)
    pages = sum(n["page_count"] for n in notebooks["notebooks"])
    codes = collections.Counter(refused.values())
    counts = f"{len(files)} files, {len(planned)} imported ({pages} pages)"
    print(f"\nreal files: {counts}, refused {dict(codes)}")
    assert pages >= len(planned)
