"""The README.md tag file of an export bag: what it is, how to verify it without the app, import."""

from __future__ import annotations

from transcribe_import.engine.base.text import agreeing, counted
from transcribe_import.engine.export.model import ExportResult, ExportStatus
from transcribe_import.engine.storage.bag_format import INCOMPLETE, MANIFEST_JSON, PAYLOAD_MANIFEST

# Kept in step with docs/formats.md ("The chain hash"); tests run this very text.
CHAIN_SNIPPET = """\
import hashlib, json
m = json.load(open("MANIFEST.json", encoding="utf-8"))
h = hashlib.sha256(b"").digest()
for path, digest in sorted(m["files"].items(), key=lambda kv: kv[0].encode()):
    h = hashlib.sha256(h + path.encode() + b"\\0" + digest.encode()).digest()
assert h.hex() == m["chain_hash"], "MANIFEST.json does not match its chain hash"
print("chain hash OK:", h.hex())
"""


def _line(text: str) -> str:
    # A title is anyone's text: one line of it, with Markdown's own marks taken literally.
    flat = " ".join(text.split())
    return "".join("\\" + c if c in "\\`*_[]<>#|" else c for c in flat)


def readme_text(result: ExportResult, software: str, exported_at: str) -> str:
    n = len(result.notebooks)
    out = [
        "# Transcribe notebooks export",
        "",
        f"This folder is a [BagIt 1.0](https://www.rfc-editor.org/rfc/rfc8493) bag written by "
        f"{software} on {exported_at}: {counted(n, 'notebook')} copied out of the Transcribe "
        f"corpus `{result.corpus_id}`, {counted(len(result.files), 'file')}, "
        f"{counted(result.payload_bytes, 'byte')}.",
        "",
    ]
    if result.status is ExportStatus.COMPLETE:
        out += [
            "**Status: complete.** Every file the notebooks list is here, with the sha256 the "
            "corpus recorded for it.",
        ]
    else:
        out += [
            f"**Status: partial.** {counted(len(result.missing), 'file')} could not be copied, so "
            "this "
            "bag does **not** validate: any BagIt validator reports them as missing. They are "
            f"listed with the reason in `{MANIFEST_JSON}` (`missing`):",
            "",
            *(f"- `{m.path}`: {m.reason}" for m in result.missing[:50]),
            *(["- …"] if len(result.missing) > 50 else []),
            "",
            "Repair the corpus (`transcribe-import doctor --verify-hashes`) and export again.",
        ]
    unfinished = [nb for nb in result.notebooks if nb.unfinished is not None]
    if unfinished:
        out += [
            "",
            f"**{counted(len(unfinished), 'notebook')} {agreeing(len(unfinished), 'is', 'are')} "
            "incomplete.** Their import had not finished "
            "when this export began: each holds only the pages that had landed (listed below "
            f"as `incomplete`; in `{MANIFEST_JSON}`, `state` and `unfinished_import`). Finish "
            "the import in Transcribe and export them again for the whole notebook.",
        ]
    out += [
        "",
        "## What is in it",
        "",
        "- `data/notebooks/<notebook_id>/`: one folder per notebook, as it is in the corpus:",
        "  `project.json` (its manifest, byte for byte, every key kept), `sources/` (the "
        "imported files, unchanged) and `renders/` (one PNG per page).",
        f"- `{PAYLOAD_MANIFEST}`, `tagmanifest-sha256.txt`, `bagit.txt`, `bag-info.txt`: the "
        "BagIt files. `bag-info.txt` names the corpus (`External-Identifier`) and the status.",
        f"- `{MANIFEST_JSON}`: the sha256 of each payload file, a chain hash over them, the "
        "status and what is missing and why.",
        "",
        "Notebooks:",
        "",
    ]
    for nb in result.notebooks:
        title = _line(nb.title) if nb.title is not None else "(manifest unreadable)"
        pages = "? pages" if nb.page_count is None else counted(nb.page_count, "page")
        line = f"- `{nb.notebook_id}` {title}: {pages}, {nb.status}"
        if nb.unfinished is not None:
            u = nb.unfinished
            of = "" if u.pages_expected is None else f" of its {u.pages_expected} planned"
            last = u.pages_landed if u.pages_expected is None else u.pages_expected
            line += (
                f"; the notebook is **incomplete**: its import (run {u.run_id}) had landed "
                f"{u.pages_landed}{of} {agreeing(last, 'page', 'pages')}"
            )
        out.append(line)
    out += [
        "",
        "## Verify it without Transcribe",
        "",
        "Any BagIt validator checks every file against the manifests, for example the Library "
        "of Congress's `bagit` for Python:",
        "",
        "```sh",
        "pip install bagit",
        "bagit.py --validate /path/to/this/folder",
        "```",
        "",
        f"The chain hash in `{MANIFEST_JSON}` can be recomputed in a few lines of Python (run "
        "them in this folder). It chains the sha256 of every payload file, sorted by path: "
        'h0 = sha256(b""), h_i = sha256(h_(i-1) + path + b"\\0" + hex digest).',
        "",
        "```python",
        CHAIN_SNIPPET.rstrip("\n"),
        "```",
        "",
        f"A folder that holds `{INCOMPLETE}` is an export that did not finish: do not use it.",
        "",
        "## Import it",
        "",
        "Into a Transcribe corpus, with the same notebook ids:",
        "",
        "```sh",
        "transcribe-import plan /path/to/this/folder --mode bag -o plan.json",
        "transcribe-import commit plan.json",
        "```",
        "",
    ]
    return "\n".join(out)
