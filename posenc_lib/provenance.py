"""Provenance of the committed data: what made a sweep's files, and whether they are still current.

Every file a sweep writes starts with its provenance (`provenance`): the settings, the versions
of the libraries, the bytes of its inputs and a hash of the code that produces the numbers
(`code_hash`). `stale_provenance` compares a directory's files with the code as it is now; the
course's tests run it on the committed data, so a change that can change a number and was not
followed by a new run fails.

The code hash is the hash of a canonical form of every definition the sweep's code reaches
(`canonical_definition`): its syntax tree without docstrings, with local names numbered in order
of first use and references to the library's definitions written by the definition's name. So a
refactor keeps the data current: renaming a local variable, reformatting, a comment, a docstring,
or moving a function to another module of the library (its callers importing it from there) does
not change the hash; changing a constant, an operator, a call, a keyword, an attribute or the
control flow does.

`adopt` takes a new run's files in place of the committed ones only when their records are the
committed records byte for byte (and the witness models' parameters equal), so the data gain the
new provenance without a number changing; `posenc_lib.committed` runs both from the command line.
"""

import ast
import hashlib
import json
import platform
import shutil
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]  # the directory holding the posenc_lib sources
PACKAGE = "posenc_lib"
#: Fields of the syntax tree left out of the canonical form: type comments, string prefixes
#: ("u") and PEP 695 type parameters exist on some Python versions only and change no number.
_SKIPPED_FIELDS = {"type_comment", "type_params", "kind", "ctx"}
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
#: Not followed: writing the provenance beside the numbers cannot change them.
_NOT_HASHED = {f"{PACKAGE}.provenance"}
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


# -- the canonical form of a definition ------------------------------------------------------


def _is_docstring(statement):
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _imported_names(statement):
    """Return the names an import statement binds."""
    return [a.asname or a.name.split(".")[0] for a in statement.names]


def _bound_here(scope):
    """Return the names a function, lambda or comprehension binds itself: its locals.

    Names bound by an import are left out: they name the library's (or another package's)
    definitions and are written as such.
    """
    bound, declared = [], set()
    if isinstance(scope, _FUNCTIONS):
        arguments = scope.args
        every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
        bound += [a.arg for a in every]
        body = [scope.body] if isinstance(scope, ast.Lambda) else scope.body
    else:  # a comprehension: its targets
        bound += [
            n.id for g in scope.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)
        ]
        body = []
    todo = list(body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Global | ast.Nonlocal):
            declared.update(node.names)
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            bound.append(node.id)
        elif (
            isinstance(node, ast.ExceptHandler)
            and node.name
            or isinstance(node, ast.MatchAs | ast.MatchStar)
            and node.name
        ):
            bound.append(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            bound.append(node.rest)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.append(node.name)
            todo += node.decorator_list
            if not isinstance(node, ast.ClassDef):
                todo += node.args.defaults + [d for d in node.args.kw_defaults if d is not None]
            else:
                todo += node.bases + node.keywords
            continue  # its body is another scope
        if isinstance(node, ast.Lambda):
            todo += node.args.defaults + [d for d in node.args.kw_defaults if d is not None]
            continue
        if isinstance(node, _COMPREHENSIONS):
            todo.append(node.generators[0].iter)  # evaluated here; the rest is its own scope
            continue
        todo += list(ast.iter_child_nodes(node))
    return {name for name in bound if name not in declared}


class _Module:
    """One module of the library: its top-level definitions and what its names import."""

    def __init__(self, name, root):
        self.name = name
        path = Path(root).joinpath(*name.split("."))
        path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
        self.tree = ast.parse(path.read_text())
        self.definitions = {}  # name -> top-level node defining it
        for node in self.tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                self.definitions[node.name] = node
            elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for n in ast.walk(target):
                        if isinstance(n, ast.Name):
                            self.definitions[n.id] = node
        # name -> (module, definition name) or (module, None) for a module; anywhere in the
        # file, imports inside functions included. Absolute imports of other packages: None.
        self.imports = {}
        package = name.rsplit(".", 1)[0]
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ImportFrom) and node.level >= 1:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                source = f"{base}.{node.module}" if node.module else base
                for alias in node.names:
                    local = alias.asname or alias.name
                    self.imports[local] = (
                        (source, alias.name) if node.module else (f"{source}.{alias.name}", None)
                    )
            elif isinstance(node, ast.Import | ast.ImportFrom):
                for local in _imported_names(node):
                    self.imports.setdefault(local, None)

    def library_target(self, name):
        """Return (module, definition) a global name refers to in the library, or None."""
        if name in self.definitions:
            return (self.name, name)
        return self.imports.get(name)


class _Canonical:
    """Writes one definition's canonical form and collects the library definitions it names."""

    def __init__(self, module):
        self.module = module
        self.numbers = {}  # (scope, name) -> the local's number, in order of first use
        self.reached = []  # (module, name) of the library definitions referred to

    def local(self, scope, name):
        key = (id(scope), name)
        if key not in self.numbers:
            self.numbers[key] = len(self.numbers)
        return f"_{self.numbers[key]}"

    def name(self, node, scopes):
        """Write a name: a local's number, or the name of the definition it refers to."""
        for scope, bound in reversed(scopes):
            if node.id in bound:
                return self.local(scope, node.id)
        target = self.module.library_target(node.id)
        if target is None:
            return node.id  # a builtin or another package's name (np, math, ...)
        self.reached.append(target)
        module, definition = target
        return definition if definition is not None else f"<module {module.split('.')[-1]}>"

    def write(self, node, scopes=()):
        """Return the canonical text of ``node`` inside the local scopes ``scopes``."""
        if isinstance(node, list):
            statements = [n for n in node if not _is_docstring(n)]
            return "[" + ",".join(self.write(n, scopes) for n in statements) + "]"
        if not isinstance(node, ast.AST):
            return repr(node)
        if isinstance(node, ast.Name):
            return f"Name({self.name(node, scopes)})"
        if isinstance(node, ast.Constant):
            return f"Constant({type(node.value).__name__}:{node.value!r})"
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and not any(node.value.id in bound for _, bound in scopes)
        ):
            target = self.module.library_target(node.value.id)
            if target is not None and target[1] is None:  # module.definition of the library
                self.reached.append((target[0], node.attr))
                return f"Name({node.attr})"
        if isinstance(node, ast.ImportFrom) and node.level >= 1:
            targets = [self.module.imports[a.asname or a.name] for a in node.names]
            return "Import(" + ",".join(t[1] or t[0].split(".")[-1] for t in targets) + ")"
        if isinstance(node, ast.JoinedStr):
            return "JoinedStr(" + self.write(_merged_parts(node.values), scopes) + ")"
        inner = scopes
        if isinstance(node, _FUNCTIONS + _COMPREHENSIONS):
            inner = (*scopes, (node, _bound_here(node)))
        fields = []
        for field, value in ast.iter_fields(node):
            if field in _SKIPPED_FIELDS:
                continue
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                if field == "name":  # a nested definition's name is a local of its parent
                    value = self._own_name(node, scopes)
                elif field in ("decorator_list", "bases", "keywords"):
                    fields.append(f"{field}={self.write(value, scopes)}")
                    continue
            if isinstance(node, ast.arg) and field == "arg":
                value = self.local(self._binding_scope(node.arg, scopes), node.arg)
            elif (
                isinstance(node, ast.ExceptHandler)
                and field == "name"
                and value
                or isinstance(node, ast.MatchAs | ast.MatchStar)
                and field == "name"
                and value
                or isinstance(node, ast.MatchMapping)
                and field == "rest"
                and value
            ):
                value = self.local(self._binding_scope(value, scopes), value)
            elif isinstance(node, ast.Global | ast.Nonlocal):
                value = sorted(value)
            fields.append(f"{field}={self.write(value, inner)}")
        return f"{type(node).__name__}(" + ",".join(fields) + ")"

    def _own_name(self, node, scopes):
        if not scopes:  # a top-level definition keeps its name: callers use it
            return node.name
        return self.local(self._binding_scope(node.name, scopes), node.name)

    @staticmethod
    def _binding_scope(name, scopes):
        for scope, bound in reversed(scopes):
            if name in bound:
                return scope
        return None


def _merged_parts(values):
    """Return an f-string's parts, adjacent literal text joined and empty text dropped.

    Python versions split the literal text of an f-string differently; the joined text is the
    same on every one.
    """
    merged = []
    for value in values:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            if merged and isinstance(merged[-1], ast.Constant):
                merged[-1] = ast.Constant(merged[-1].value + value.value)
            elif value.value:
                merged.append(ast.Constant(value.value))
        else:
            merged.append(value)
    return [m for m in merged if not (isinstance(m, ast.Constant) and m.value == "")]


def canonical_definition(source, name=None):
    r"""Return the canonical form of a definition: what the code hash sees of it.

    The syntax tree, without docstrings, with every local name (arguments, assigned names,
    loop and comprehension variables, nested functions) replaced by its number in order of first
    use. Names of the module's globals, builtins, attributes, keywords and called functions are
    kept. Comments and layout are not in a syntax tree.

    Parameters
    ----------
    source : str
        The source of a module (without relative imports of the library).
    name : str, optional
        The top-level definition to write (default: the first statement's).

    Returns
    -------
    str

    Examples
    --------
    >>> a = canonical_definition('def f(x):\n    "Add one."\n    y = x + 1  # one\n    return y\n')
    >>> b = canonical_definition("def f(value):\n    result = value + 1\n    return result\n")
    >>> a == b, a == canonical_definition("def f(x):\n    return x + 2\n")
    (True, False)
    >>> canonical_definition("def f(x):\n    return abs(x)\n")
    "FunctionDef(name='f',args=arguments(posonlyargs=[],args=[arg(arg='_0',annotation=None)],vararg=None,kwonlyargs=[],kw_defaults=[],kwarg=None,defaults=[]),body=[Return(value=Call(func=Name(abs),args=[Name(_0)],keywords=[]))],decorator_list=[],returns=None)"
    """
    tree = ast.parse(source)
    module = _Module.__new__(_Module)
    module.name, module.tree, module.imports = "__main__", tree, {}
    module.definitions = {}
    node = tree.body[0]
    if name is not None:
        node = next(n for n in tree.body if getattr(n, "name", None) == name or _assigns(n, name))
    return _Canonical(module).write(node)


def _assigns(node, name):
    if not isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
        return False
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t))


def reached_definitions(roots, *, root=None):
    """Return the canonical form of every library definition ``roots`` reach, by name.

    Starting from ``roots`` ("module:name"), every top-level function, class and constant of the
    library that a reached definition names is followed: through imports of the library, and
    ``module.name`` for an imported module of it. The provenance module is not followed (writing
    the provenance beside the numbers cannot change them).

    Parameters
    ----------
    roots : sequence of str
        E.g. ``["posenc_lib.model:region_value"]``.
    root : str or Path, optional
        The directory holding the ``posenc_lib`` sources (default: this installation's).

    Returns
    -------
    dict
        Name -> `canonical_definition` text, in name order (names that one statement defines
        together are joined by commas).

    Examples
    --------
    >>> sorted(reached_definitions(["posenc_lib.model:region_value"]))
    ['VALUE_LIMIT', 'check_array', 'check_int', 'described', 'region_value', 'short']
    """
    root = ROOT if root is None else Path(root)
    modules, hashed, seen = {}, {}, set()
    todo = [tuple(r.split(":")) for r in roots]
    while todo:
        module_name, name = todo.pop()
        if (module_name, name) in seen or module_name in _NOT_HASHED:
            continue
        seen.add((module_name, name))
        if module_name not in modules:
            modules[module_name] = _Module(module_name, root)
        module = modules[module_name]
        node = module.definitions.get(name)
        if node is None:
            target = module.imports.get(name)
            if target is not None and target[1] is not None:
                todo.append(target)  # a definition imported from another module of the library
            continue
        if id(node) in hashed:
            continue
        writer = _Canonical(module)
        text = writer.write(node)
        names = ",".join(sorted(n for n, d in module.definitions.items() if d is node))
        hashed[id(node)] = (names, module_name, text)
        todo += [t for t in writer.reached if t[1] is not None]
    count = Counter(names for names, _, _ in hashed.values())
    found = {}
    for names, module_name, text in hashed.values():
        if count[names] > 1:  # two definitions of one name: say whose
            names = f"{names} ({module_name})"
        found[names] = text
    return dict(sorted(found.items()))


def code_hash(roots, *, root=None):
    """Return a hash of the code that produces a sweep's data: ``roots`` and all they reach.

    The sha256 of the canonical form of each definition `reached_definitions` finds
    (`canonical_definition`: no docstrings, comments or layout; locals numbered), in the order of
    their names. The module a definition lives in is not part of it, so moving a definition to
    another module of the library (and importing it from there) keeps the hash. Tables, plots
    and the command line are not reached from the code that trains and scores, so changing them
    does not change it; changing anything that can change a number does.

    Parameters
    ----------
    roots : sequence of str
        E.g. ``["posenc_lib.experiments:train_and_measure"]``.
    root : str or Path, optional
        The directory holding the ``posenc_lib`` sources (default: this installation's).

    Returns
    -------
    dict
        {"sha256": hex digest, "definitions": number of definitions hashed}.

    Examples
    --------
    >>> h = code_hash(["posenc_lib.model:region_value"])
    >>> len(h["sha256"]), h["definitions"] >= 2
    (64, True)
    """
    reached = reached_definitions(roots, root=root)
    digest = hashlib.sha256()
    for names, text in reached.items():
        digest.update(f"{names}\n{text}\n".encode())
    return {"sha256": digest.hexdigest(), "definitions": len(reached)}


# -- what made a sweep's files ---------------------------------------------------------------


def file_hash(path):
    """Return the sha256 of a file's bytes (an input of a sweep).

    Parameters
    ----------
    path : str or Path
        The file.

    Returns
    -------
    str
        64 hexadecimal digits.

    Examples
    --------
    >>> len(file_hash(ROOT / "posenc_lib" / "data" / "pydoc_topics.json.gz"))
    64
    """
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def versions():
    """Return the versions that make a sweep's numbers: posenc_lib, Python, numpy, autograd.

    Returns
    -------
    dict
        Name -> version.

    Examples
    --------
    >>> sorted(versions())
    ['autograd', 'numpy', 'posenc_lib', 'python']
    """
    from importlib import metadata

    from . import __version__

    return {
        "posenc_lib": __version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "autograd": metadata.version("autograd"),
    }


def provenance(sweep, options, *, root=None):
    """Return what made a sweep's files: settings, versions, hashes of its code and inputs.

    Parameters
    ----------
    sweep : Sweep
        The chapter's sweep (`posenc_lib.sweep.Sweep`).
    options : dict
        The options of ``sweep.jobs`` the files were made with.
    root : str or Path, optional
        Where the ``posenc_lib`` sources are (default: this installation's), for `code_hash`.

    Returns
    -------
    dict
        "sweep", "command", "settings" ({"options", "constants"}), "versions", "code" (see
        `code_hash`) and "inputs" ({file name: sha256}).

    Examples
    --------
    >>> from posenc_lib import realtext
    >>> stamp = provenance(realtext.REALTEXT, realtext.FULL)
    >>> stamp["command"], list(stamp["inputs"])
    ('python -m posenc_lib.realtext --out posenc_lib/data/realtext', ['pydoc_topics.json.gz'])
    """
    return {
        "sweep": sweep.name,
        "command": f"python -m {sweep.module} --out posenc_lib/data/{sweep.name}",
        "settings": json.loads(
            json.dumps({"options": options, "constants": sweep.settings}, default=list)
        ),
        "versions": versions(),
        "code": code_hash(sweep.code_roots, root=root),
        "inputs": {Path(p).name: file_hash(p) for p in sweep.inputs},
    }


def load_provenance(path):
    """Return the provenance of a file of records (None for a plain JSON list).

    Parameters
    ----------
    path : str or Path
        A file `posenc_lib.records.write_records` wrote.

    Returns
    -------
    dict or None

    Examples
    --------
    >>> stamp = load_provenance(ROOT / "posenc_lib" / "data" / "study" / "results.json")
    >>> sorted(stamp), stamp["settings"]["options"]["steps"]
    (['code', 'command', 'inputs', 'settings', 'sweep', 'versions'], 400)
    """
    data = json.loads(Path(path).read_text())
    return None if isinstance(data, list) else data["provenance"]


def stale_provenance(sweep, directory=None, *, root=None):
    """List what no longer matches between a sweep's files and the code (empty: up to date).

    Parameters
    ----------
    sweep : Sweep
        The chapter's sweep.
    directory : str or Path, optional
        Default: the committed data (``sweep.directory``).
    root : str or Path, optional
        Where the ``posenc_lib`` sources are (default: this installation's): the code compared.

    Returns
    -------
    list of str
        One line per file and mismatch (code hash, settings, inputs).

    Examples
    --------
    >>> import tempfile
    >>> from posenc_lib import experiments
    >>> from posenc_lib.records import load_records, records_text
    >>> stale_provenance(experiments.STUDY)  # the committed study is current
    []
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     for name in experiments.STUDY.files:  # a copy whose files lost their provenance
    ...         rows = load_records(experiments.STUDY.directory / f"{name}.json")
    ...         _ = (Path(tmp) / f"{name}.json").write_text(records_text(rows))
    ...     stale_provenance(experiments.STUDY, tmp)
    ['results.json: no provenance', 'curves.json: no provenance', 'extension.json: no provenance',
     'training.json: no provenance']
    """
    directory = sweep.directory if directory is None else Path(directory)
    now = provenance(sweep, sweep.options, root=root)
    problems = []
    for name in sweep.files:
        if not (directory / f"{name}.json").is_file():
            problems.append(f"{name}.json: missing (the sweep writes it; run the sweep again)")
            continue
        stamp = load_provenance(directory / f"{name}.json")
        if stamp is None:
            problems.append(f"{name}.json: no provenance")
            continue
        for key in ("code", "settings", "inputs"):
            if stamp[key] != now[key]:
                problems.append(f"{name}.json: {key} {stamp[key]} != now {now[key]}")
    return problems


def _records_part(path):
    """Return the bytes of a file of records after its provenance line, as written."""
    text = Path(path).read_bytes()
    return text.split(b"\n", 1)[1] if text.startswith(b'{"provenance"') else text


def differences(sweep, new, old=None):
    """List where a new run's files differ from the committed ones (empty: the same numbers).

    Every file's records are compared byte for byte (the provenance line apart), and every
    witness model's parameters array for array.

    Parameters
    ----------
    sweep : Sweep
        The chapter's sweep.
    new : str or Path
        The directory of the new run.
    old : str or Path, optional
        Default: the committed data (``sweep.directory``).

    Returns
    -------
    list of str
        One line per file that differs or is missing.

    Examples
    --------
    >>> from posenc_lib import realtext
    >>> differences(realtext.REALTEXT, realtext.REALTEXT.directory)
    []
    """
    new = Path(new)
    old = sweep.directory if old is None else Path(old)
    found = []
    for name in sweep.files:
        if not (new / f"{name}.json").exists():
            found.append(f"{name}.json: missing from {new}")
        elif _records_part(new / f"{name}.json") != _records_part(old / f"{name}.json"):
            found.append(f"{name}.json: the records differ")
    for witness in sorted(p.name for p in old.glob("witness-*.npz")):
        if not (new / witness).exists():
            found.append(f"{witness}: missing from {new}")
            continue
        with np.load(old / witness) as a, np.load(new / witness) as b:
            if sorted(a) != sorted(b) or any(not np.array_equal(a[k], b[k]) for k in a):
                found.append(f"{witness}: the parameters differ")
    return found


def adopt(sweep, new):
    """Take a new run's files as the committed data, if its numbers are the committed numbers.

    Refuses (and changes nothing) when `differences` finds any, or when the new run's
    provenance is itself stale (made by other code or settings than the library's now).

    Parameters
    ----------
    sweep : Sweep
        The chapter's sweep.
    new : str or Path
        The directory of a new run of the full sweep (``python -m <module> --out DIR``).

    Returns
    -------
    list of Path
        The files written into ``sweep.directory``.

    Raises
    ------
    ValueError
        If the new run's numbers or provenance differ.

    Examples
    --------
    >>> from posenc_lib import realtext
    >>> adopt(realtext.REALTEXT, "no-such-run")
    Traceback (most recent call last):
    ...
    ValueError: adopt: results.json: missing from no-such-run; curves.json: missing from no-such-run; training.json: missing from no-such-run; witness-pydoc-topics-sinusoidal-2L-4x16+mlp-seed0.npz: missing from no-such-run
    """
    new = Path(new)
    found = differences(sweep, new) or stale_provenance(sweep, new)
    if found:
        raise ValueError("adopt: " + "; ".join(found))
    written = []
    for name in sweep.files:
        written.append(
            Path(shutil.copyfile(new / f"{name}.json", sweep.directory / f"{name}.json"))
        )
    return written


def model_stamp(command, settings, code_roots):
    """Return what makes committed models now: the command, settings, versions and code hash.

    Parameters
    ----------
    command : str
        What makes them.
    settings : dict
        Their settings, by name (turned into JSON values: tuples become lists).
    code_roots : sequence of str
        The definitions whose reach is hashed (`code_hash`).

    Returns
    -------
    dict
        ``{"command", *settings, "versions", "code"}``, as `write_models` stores it.

    Examples
    --------
    >>> stamp = model_stamp("make it", {"runs": {"steps": (1, 2)}}, ["posenc_lib.stats:t_cdf"])
    >>> list(stamp), stamp["runs"]
    (['command', 'runs', 'versions', 'code'], {'steps': [1, 2]})
    """
    return {
        "command": command,
        **json.loads(json.dumps(settings)),
        "versions": versions(),
        "code": code_hash(code_roots),
    }


def write_models(directory, arrays, stamp):
    """Write trained models and how they were made: ``models.npz`` and ``provenance.json``.

    Parameters
    ----------
    directory : str or Path
        Created if missing.
    arrays : dict of str to ndarray
        The models' parameters and losses, by name.
    stamp : dict
        What made them (command, settings, versions, code hash), as JSON.

    Returns
    -------
    list of Path
        The two files written.

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> [p.name for p in write_models(folder, {"w": np.zeros(2)}, {"code": "abc"})]
    ['models.npz', 'provenance.json']
    >>> stale_models(folder, {"code": "abc"}, ("code",), "make it")
    []
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(directory / "models.npz", **arrays)
    (directory / "provenance.json").write_text(json.dumps(stamp, indent=1) + "\n")
    return [directory / "models.npz", directory / "provenance.json"]


def stale_models(directory, now, keys, command):
    """List what no longer matches between committed models' provenance and the code's stamp.

    Parameters
    ----------
    directory : str or Path
        Holds ``provenance.json`` (`write_models`).
    now : dict
        The stamp the code makes today.
    keys : sequence of str
        The entries that must agree (settings and code hash; versions may differ).
    command : str
        What regenerates the models, named in each problem.

    Returns
    -------
    list of str
        Empty when the models are current.

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> _ = write_models(folder, {"w": np.zeros(2)}, {"code": "abc"})
    >>> stale_models(folder, {"code": "xyz"}, ("code",), "python -m make_them")
    ["models.npz: code differs from the code's; regenerate with python -m make_them"]
    """
    recorded = json.loads((Path(directory) / "provenance.json").read_text())
    return [
        f"models.npz: {key} differs from the code's; regenerate with {command}"
        for key in keys
        if recorded[key] != now[key]
    ]
