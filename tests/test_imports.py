"""The library's import graph: no private name imported across modules, and no import cycle,
counting imports inside functions (a cycle hidden in a function still ties two modules together)
and the package ``__init__`` that importing a submodule of another package runs."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "posenc_lib"


def module_name(path, root=ROOT):
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def is_package(name):
    return MODULES[name].name == "__init__.py"


def imports(name):
    """(imported module, imported name or None, line) of every import in ``name``, anywhere."""
    tree = ast.parse(MODULES[name].read_text())
    package = name if is_package(name) else name.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "posenc_lib":
                    yield alias.name, None, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "posenc_lib":
                continue
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                if submodule in MODULES:
                    yield submodule, None, node.lineno
                else:
                    yield target, alias.name, node.lineno


def is_private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def edges(name):
    """The modules importing ``name`` runs: each imported module, and the package __init__ of
    one imported from outside its package (the top package, which holds everything, aside)."""
    out = set()
    for target, _, _ in imports(name):
        if target not in MODULES:
            continue
        out.add(target)
        parent = target.rsplit(".", 1)[0]
        outside = not name.startswith(parent + ".") and name != parent
        if parent != "posenc_lib" and parent in MODULES and outside:
            out.add(parent)
    return out


def cycles():
    graph = {name: edges(name) for name in MODULES}
    found = set()

    def visit(node, path):
        for nxt in graph[node]:
            if nxt == path[0]:
                found.add(tuple(path))
            elif nxt not in path and nxt > path[0]:
                visit(nxt, [*path, nxt])

    for start in sorted(graph):
        visit(start, [start])
    return sorted(found)


def cross_module_private_imports():
    return [
        f"{name}:{line} imports {item} from {target}"
        for name in MODULES
        for target, item, line in imports(name)
        if item is not None and is_private(item) and target != name
    ]


def test_no_private_name_is_imported_from_another_module():
    assert cross_module_private_imports() == []


def test_no_module_takes_part_in_an_import_cycle_even_through_a_function_level_import():
    assert cycles() == []


@pytest.mark.parametrize(
    ("sources", "expected"),
    [
        # a cycle hidden in a function: b imports a inside a function
        ({"a": "from .b import f\n", "b": "def g():\n    from .a import h\n"}, 1),
        ({"a": "from .b import f\n", "b": "def g():\n    return 1\n"}, 0),
    ],
)
def test_the_cycle_check_sees_imports_inside_functions(tmp_path, monkeypatch, sources, expected):
    package = tmp_path / "posenc_lib"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, text in sources.items():
        (package / f"{name}.py").write_text(text)
    modules = {module_name(p, tmp_path): p for p in sorted(package.rglob("*.py"))}
    monkeypatch.setattr("test_imports.MODULES", modules)
    assert len(cycles()) == expected


def test_the_private_import_check_sees_a_private_name_in_a_function(tmp_path, monkeypatch):
    package = tmp_path / "posenc_lib"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("def _helper():\n    return 1\n")
    (package / "b.py").write_text("def f():\n    from .a import _helper\n    return _helper()\n")
    modules = {module_name(p, tmp_path): p for p in sorted(package.rglob("*.py"))}
    monkeypatch.setattr("test_imports.MODULES", modules)
    assert cross_module_private_imports() == ["posenc_lib.b:2 imports _helper from posenc_lib.a"]
