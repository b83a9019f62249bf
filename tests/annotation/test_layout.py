"""The project's layout: no module of the product's packages imports one that imports it
back (directly or through others, across apps, deferred imports included), nor do two
packages of one app; apps import only lower layers and config/ is reached only by Django;
the annotation app is one package per concern."""

from __future__ import annotations

import ast
from pathlib import Path

import annotation

ROOT = Path(annotation.__file__).parent.parent
APP = ROOT / "annotation"
# The product's packages: every Django app, the shared utilities and the project wiring.
PACKAGES = ("annotation", "crowd", "frontend", "prolific", "mturk", "modeling", "common", "config")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(node: ast.AST, module: str, is_package: bool) -> list[str]:
    """The dotted names an import statement may load (a name imported from a package may
    be one of its modules); relative imports resolved against `module`."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ""
    if node.level:
        package = module.split(".")
        package = package if is_package else package[:-1]
        package = package[: len(package) - (node.level - 1)]
        base = ".".join([*package, base] if base else package)
    return [base, *(f"{base}.{alias.name}" for alias in node.names)]


def import_graph(packages: tuple[str, ...] = PACKAGES) -> dict[str, set[str]]:
    """Module -> the modules of `packages` it imports anywhere in its body."""
    files = {
        _module_name(path): path
        for package in packages
        for path in (ROOT / package).rglob("*.py")
        if "migrations" not in path.parts
    }
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            candidates = _imported(node, name, path.name == "__init__.py")
            deps.update(c for c in candidates if c in files and c != name)
        graph[name] = deps
    return graph


def _app(module: str) -> str:
    return module.split(".", 1)[0]


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
    assert {_app(module) for module in graph} == set(PACKAGES)  # the walk found every package
    assert len(graph) > 150
    assert cycles(graph) == []


def room_loops(graph: dict[str, set[str]]) -> list[str]:
    """Import loops of any length between rooms: inside each package, its modules and
    sub-packages (each standing for all below it) are rooms, and a room that reaches itself
    through others is a loop (annotation.task_types -> annotation.keywords ->
    annotation.datasets -> annotation.task_types). Each loop with one import per arrow."""
    loops = []
    depth = max(module.count(".") for module in graph) + 1
    for level in range(1, depth + 1):
        arrows: dict[tuple[str, str], str] = {}
        for module, deps in sorted(graph.items()):
            for dep in sorted(deps):
                ends = (_room(module, level), _room(dep, level))
                same_parent = ends[0].rsplit(".", 1)[0] == ends[1].rsplit(".", 1)[0]
                if ends[0] != ends[1] and same_parent and ends[0].count(".") == level - 1:
                    arrows.setdefault(ends, f"{module} -> {dep}")
        rooms: dict[str, set[str]] = {}
        for start, end in arrows:
            rooms.setdefault(start, set()).add(end)
            rooms.setdefault(end, set())
        for loop in cycles(rooms):
            inside = [arrows[pair] for pair in sorted(arrows) if {*pair} <= {*loop}]
            loops.append(" -> ".join(loop) + ": " + "; ".join(inside))
    return loops


def _room(module: str, level: int) -> str:
    """The room a module is in, `level` names deep (annotation.datasets.records at level 2
    is annotation.datasets; annotation.text is its own room at every level)."""
    return ".".join(module.split(".")[:level])


def test_no_import_loop_between_rooms():
    """Packages and modules are layers at every depth: datasets read what analysis does not
    write back, a task type's package uses quality's measures and quality never reaches into
    a type, one type never reaches into another. A loop through rooms, however long, would
    be one room in several folders."""
    assert room_loops(import_graph()) == []


def test_loops_between_rooms_are_found_through_a_third_room():
    graph = {
        "annotation.task_types.write.task": {"annotation.keywords"},
        "annotation.keywords": {"annotation.datasets.records"},
        "annotation.datasets.records": {"annotation.task_types.align.models"},
        "annotation.task_types.align.models": set(),
        "annotation.task_types.rate.task": {"annotation.task_types.align.models"},
        "annotation.text": {"crowd.models"},
        "crowd.models": set(),
    }
    assert room_loops(graph) == [
        "annotation.datasets -> annotation.keywords -> annotation.task_types: "
        "annotation.datasets.records -> annotation.task_types.align.models; "
        "annotation.keywords -> annotation.datasets.records; "
        "annotation.task_types.write.task -> annotation.keywords"
    ]
    graph["annotation.task_types.align.models"] = {"annotation.task_types.rate.task"}
    del graph["annotation.datasets.records"]
    graph["annotation.keywords"] = set()
    assert room_loops(graph) == [
        "annotation.task_types.align -> annotation.task_types.rate: "
        "annotation.task_types.align.models -> annotation.task_types.rate.task; "
        "annotation.task_types.rate.task -> annotation.task_types.align.models"
    ]


def test_only_config_itself_imports_config():
    """config/ is wiring (settings, URLs, the Celery app, WSGI/ASGI): Django, gunicorn and
    Celery load it by name; no app imports it."""
    graph = import_graph()
    importers = sorted(
        f"{module} -> {dep}"
        for module, deps in graph.items()
        for dep in deps
        if _app(dep) == "config" and _app(module) != "config"
    )
    assert importers == []


# Each app imports only apps of lower layers (docs/ARCHITECTURE.md), never one beside it.
LAYERS = {
    "common": 0,
    "crowd": 1,
    "annotation": 2,
    "frontend": 2,
    "modeling": 3,
    "mturk": 3,
    "prolific": 3,
    "config": 4,
}


def test_apps_import_only_lower_layers():
    graph = import_graph()
    upward = sorted(
        f"{module} -> {dep}"
        for module, deps in graph.items()
        for dep in deps
        if _app(dep) != _app(module) and LAYERS[_app(dep)] >= LAYERS[_app(module)]
    )
    assert upward == []
    assert set(LAYERS) == set(PACKAGES)


def test_import_graph_resolves_relative_imports(tmp_path, monkeypatch):
    package = tmp_path / "annotation" / "sub"
    package.mkdir(parents=True)
    (tmp_path / "annotation" / "__init__.py").write_text("from .sub import one\n")
    (package / "__init__.py").write_text("")
    (package / "one.py").write_text("from . import two\nfrom ..sub.two import name\n")
    (package / "two.py").write_text("def f():\n    import annotation.sub.one\n")
    monkeypatch.setattr(__import__(__name__, fromlist=["ROOT"]), "ROOT", tmp_path)
    graph = import_graph(("annotation",))
    assert graph["annotation.sub.one"] == {"annotation.sub", "annotation.sub.two"}
    assert graph["annotation"] == {"annotation.sub", "annotation.sub.one"}
    assert cycles(graph) == [["annotation.sub.one", "annotation.sub.two"]]


def test_cycle_finder_sees_a_cycle_through_a_third_module():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_top_level_holds_about_a_dozen_concerns():
    entries = {p.name for p in APP.iterdir() if p.name != "__pycache__"}
    packages = {
        "admin",
        "analysis",
        "api",
        "curation",
        "datasets",
        "exports",
        "models",
        "quality",
        "task_parts",
        "task_types",
    }
    assert packages <= entries
    for package in packages:
        docstring = ast.get_docstring(ast.parse((APP / package / "__init__.py").read_text()))
        assert docstring, f"annotation/{package}/__init__.py has no docstring"
    # Its concerns, Django's own left out (as bench/size/run.py counts them): at most 14.
    django_own = {"__init__.py", "apps.py", "migrations", "management"}
    concerns = {
        name
        for name in entries - django_own
        if name.endswith(".py") or (APP / name / "__init__.py").exists()
    }
    assert len(concerns) <= 14, sorted(concerns)


def test_every_celery_task_is_defined_in_its_apps_tasks_module():
    """One rule for where a task lives (docs/ARCHITECTURE.md): its app's tasks.py, which
    imports the services; a service queues a task by its name, never importing tasks.py."""
    defined, importers = [], []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            tree = ast.parse(path.read_text())
            for node in ast.walk(tree):
                decorators = getattr(node, "decorator_list", [])
                if any("task" in ast.unparse(d).split("(")[0] for d in decorators):
                    defined.append(f"{path.relative_to(ROOT)}:{node.lineno}")
                modules = _imported(node, _module_name(path), path.name == "__init__.py")
                if path.name != "apps.py" and any(m.endswith(".tasks") for m in modules):
                    importers.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert defined and all(place.split(":")[0].endswith("/tasks.py") for place in defined)
    assert [place for place in importers if not place.split(":")[0].endswith("/tasks.py")] == []


# Modules that run without Django (plain Python: the analysis' worker processes, training).
WITHOUT_DJANGO = ("annotation.text", "annotation.task_parts.records", "modeling.training")


def _imports_django(path: Path) -> bool:
    return any(
        name.split(".")[0] == "django"
        for node in ast.walk(ast.parse(path.read_text()))
        for name in _imported(node, "", False)
    )


def test_what_runs_without_django_imports_none_through_anything_it_imports():
    graph = import_graph()
    reached = {m for m in graph if any(m == w or m.startswith(w + ".") for w in WITHOUT_DJANGO)}
    frontier = list(reached)
    while frontier:
        for dep in graph[frontier.pop()]:
            if dep not in reached:
                reached.add(dep)
                frontier.append(dep)
    files = {
        _module_name(path): path for package in PACKAGES for path in (ROOT / package).rglob("*.py")
    }
    assert {"annotation.text", "annotation.task_parts.records"} <= reached
    assert sorted(m for m in reached if _imports_django(files[m])) == []
