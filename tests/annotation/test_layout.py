"""The annotation app's layout: one package per concern, and no module imports one that
imports it back (directly or through others), deferred imports included."""

from __future__ import annotations

import ast
from pathlib import Path

import annotation

APP = Path(annotation.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(APP.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Module -> the annotation modules it imports anywhere in its body."""
    files = {
        _module_name(path): path for path in APP.rglob("*.py") if "migrations" not in path.parts
    }
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                candidates = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                candidates = [a.name for a in node.names]
            else:
                continue
            deps.update(c for c in candidates if c in files and c != name)
        graph[name] = deps
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for dep in graph[module]:
            if dep not in index:
                visit(dep)
                low[module] = min(low[module], low[dep])
            elif dep in stack:
                low[module] = min(low[module], index[dep])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in graph:
        if module not in index:
            visit(module)
    return found


def test_no_module_imports_one_that_imports_it_back():
    graph = import_graph()
    assert len(graph) > 50  # the walk found the app's modules
    assert cycles(graph) == []


def test_cycle_finder_sees_a_cycle_through_a_third_module():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_top_level_holds_about_a_dozen_concerns():
    entries = {p.name for p in APP.iterdir() if p.name != "__pycache__"}
    packages = {"admin", "analysis", "api", "curation", "datasets", "quality", "task_types"}
    assert packages <= entries
    for package in packages:
        docstring = ast.get_docstring(ast.parse((APP / package / "__init__.py").read_text()))
        assert docstring, f"annotation/{package}/__init__.py has no docstring"
    modules = {p for p in entries if p.endswith(".py")}
    assert len(modules) <= 9, sorted(modules)
