"""The engine is a plain library: it imports and works with PySide6 blocked."""

from __future__ import annotations

import subprocess
import sys

BLOCK_QT = """
import sys, importlib.abc
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "PySide6" or name.startswith("PySide6.") or name.startswith("shiboken6"):
            raise ImportError("Qt is blocked in this test: " + name)
sys.meta_path.insert(0, Block())
import pkgutil, importlib, tempfile, pathlib
import transcribe_import.engine as engine
for mod in pkgutil.walk_packages(engine.__path__, "transcribe_import.engine."):
    importlib.import_module(mod.name)
import transcribe_import.cli as cli
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.engine.doctor import doctor
d = pathlib.Path(tempfile.mkdtemp())
assert doctor(Corpus.open(d)).clean
assert cli.main(["--data-dir", str(d), "notebooks", "--json"]) == 0
assert not any(m.startswith("PySide6") for m in sys.modules)
print("engine-ok")
"""


def test_engine_imports_and_runs_with_qt_blocked() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", BLOCK_QT], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert "engine-ok" in proc.stdout
