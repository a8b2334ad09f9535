"""The package's shape: no two modules import each other, and every module is in the docs' tree."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "app" / "transcribe_import"
ARCHITECTURE = REPO / "docs" / "architecture.md"


def _modules() -> dict[str, Path]:
    """Dotted name below the package -> file, for every module (packages by their folder)."""
    out = {}
    for f in PACKAGE.rglob("*.py"):
        parts = f.relative_to(PACKAGE).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = f
    return out


def _imported(name: str, f: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules ``name`` imports, wherever the import stands: in a function, or
    under ``if TYPE_CHECKING:`` (two modules whose types name each other are tied all the same).
    An import of a package's ``__init__`` counts as none: it re-exports, it is not a half."""
    is_package = f.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"), str(f))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ("transcribe_import." + name).split(".")
                base = base if is_package else base[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            targets = [f"{target}.{a.name}" for a in node.names] + [target]
        for t in targets:
            if not t.startswith("transcribe_import."):
                continue
            dotted = t.removeprefix("transcribe_import.")
            while dotted and dotted not in modules:
                dotted = dotted.rpartition(".")[0]
            if dotted and dotted != name and modules[dotted].name != "__init__.py":
                found.add(dotted)
    return found


def _cycles(edges: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[frozenset[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            w = next(children, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.add(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(frozenset(comp))
    return out


def test_no_module_imports_one_that_imports_it() -> None:
    modules = _modules()
    edges = {name: _imported(name, f, modules) for name, f in modules.items()}
    cycles = _cycles(edges)
    assert cycles == [], "modules tied in a loop of imports: " + "; ".join(
        " <-> ".join(sorted(c)) for c in cycles
    )


def test_the_cycle_finder_sees_a_type_checking_import(tmp_path: Path) -> None:
    tied = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(tied) == [frozenset({"a", "b", "c"})]
    half = tmp_path / "half.py"
    half.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from transcribe_import.gui.pages.review import ReviewPage\n",
        encoding="utf-8",
    )
    modules = {**_modules(), "half": half}
    assert _imported("half", half, modules) == {"gui.pages.review"}


# -- every module named in docs/architecture.md's tree ---------------------------------------


def _tree() -> list[str]:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    block = text.split("## The tree", 1)[1].split("```text", 1)[1].split("```", 1)[0]
    return block.splitlines()


def _region(lines: list[str], folder: str) -> list[str] | None:
    """The lines of ``folder/``'s entry in the tree and of everything under it."""
    for i, line in enumerate(lines):
        m = re.search(r"[├└]── ", line)
        if m and line[m.end() :].startswith(folder + "/"):
            end = i + 1
            while end < len(lines):
                n = re.search(r"[├└]── ", lines[end])
                if n and n.start() <= m.start():
                    break
                end += 1
            return lines[i:end]
    return None


def _unnamed() -> list[str]:
    missing = []
    for f in sorted(PACKAGE.rglob("*.py")):
        if f.name == "__init__.py":
            continue
        folders = f.relative_to(PACKAGE).parts[:-1]
        region: list[str] | None = _tree()
        for folder in folders:
            inner = _region(region, folder) if region is not None else None
            # A folder without an entry of its own is named, with its modules, in its parent's.
            if inner is None and region is not None and f"{folder}/" not in "\n".join(region):
                region = None
            region = inner if inner is not None else region
        if region is None or not re.search(rf"\b{re.escape(f.stem)}\b", "\n".join(region)):
            missing.append(str(f.relative_to(PACKAGE)))
    return missing


def test_every_module_is_named_in_the_architecture_tree() -> None:
    assert _unnamed() == [], "add these to the tree in docs/architecture.md"
