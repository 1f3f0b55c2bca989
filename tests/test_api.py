"""The public API as designed: every name `posenc_lib` exports imports, is documented, and shows an
example (numpydoc "Examples", run as a doctest); every public callable of every module has the
numpydoc sections Parameters (when it takes any), Returns (functions) and Examples."""

import dataclasses
import importlib
import inspect
import pkgutil

import pytest

import posenc_lib

MODULES_WITH_ALL = ["posenc_lib", "posenc_lib.widgets", "posenc_lib.exercises"]


@pytest.mark.parametrize("name", posenc_lib.__all__)
def test_every_exported_name_has_a_docstring_with_an_example(name):
    obj = getattr(posenc_lib, name)
    doc = obj.__doc__ or ""
    assert doc.strip(), f"posenc_lib.{name} has no docstring"
    assert "Examples" in doc and ">>>" in doc, f"posenc_lib.{name} shows no example"


@pytest.mark.parametrize("module", MODULES_WITH_ALL)
def test_every_name_in_all_imports(module):
    mod = importlib.import_module(module)
    for name in mod.__all__:
        assert getattr(mod, name) is not None, f"{module}.{name}"


def test_the_classes_a_chapter_teaches_import_from_the_package():
    from posenc_lib import LearnedPositions, T5RelativeBias

    assert LearnedPositions(4, 2, rng=0)(3).shape == (3, 2)
    assert T5RelativeBias(2, bidirectional=False).table.shape[0] == 2


# _checks is internal: its helpers are documented for maintainers, not learners.
UNSECTIONED_MODULES = {
    "posenc_lib._checks",
}


def public_callables():
    for info in pkgutil.walk_packages(posenc_lib.__path__, "posenc_lib."):
        if info.name in UNSECTIONED_MODULES:
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            if inspect.isfunction(obj) or inspect.isclass(obj):
                yield f"{module.__name__}.{name}", obj


CALLABLES = dict(public_callables())


def missing_sections(obj):
    doc = inspect.getdoc(obj) or ""
    missing = []
    parameters = [p for p in inspect.signature(obj).parameters if p != "self"]
    if parameters and "Parameters\n----------" not in doc:
        missing.append("Parameters")
    returns = "Returns\n-------" in doc or "Yields\n------" in doc
    if inspect.isfunction(obj) and not returns:
        missing.append("Returns")
    if "Examples\n--------" not in doc or ">>>" not in doc:
        missing.append("Examples")
    return missing


@pytest.mark.parametrize("name", sorted(CALLABLES))
def test_every_public_callable_has_numpydoc_parameters_returns_and_an_example(name):
    assert not missing_sections(CALLABLES[name]), (
        f"{name} lacks {missing_sections(CALLABLES[name])}"
    )


@pytest.mark.parametrize("name", sorted(CALLABLES))
def test_every_documented_parameter_exists_and_every_parameter_is_documented(name):
    obj = CALLABLES[name]
    doc = inspect.getdoc(obj) or ""
    if "Parameters\n----------" not in doc:
        return
    section = doc.split("Parameters\n----------\n", 1)[1]
    for header in ("Returns\n", "Yields\n", "Raises\n", "Examples\n", "Notes\n"):
        section = section.split(header, 1)[0]
    documented = set()
    for line in section.splitlines():
        if line and not line.startswith(" "):
            names = line.split(" : ")[0]
            documented.update(n.strip().lstrip("*") for n in names.split(","))
    parameters = {p for p in inspect.signature(obj).parameters if p != "self"}
    assert parameters <= documented, f"{name}: undocumented {sorted(parameters - documented)}"
    assert documented <= parameters, f"{name}: no such parameter {sorted(documented - parameters)}"


# -- conventions (CONTRIBUTING.md, "Conventions of the library") ---------------------------------


def test_base_is_keyword_only_except_where_it_is_the_subject():
    for name, obj in CALLABLES.items():
        if dataclasses.is_dataclass(obj):
            continue  # a record's fields (ModelConfig.base), written by keyword in practice
        parameters = inspect.signature(obj).parameters
        # ntk_base and dynamic_ntk_base compute a new base from the old: it is their subject
        subject = ("posenc_lib.rope.ntk_base", "posenc_lib.rope.dynamic_ntk_base")
        if "base" in parameters and name not in subject:
            assert parameters["base"].kind is inspect.Parameter.KEYWORD_ONLY, name


def test_random_draws_come_from_a_seed_or_an_rng():
    for name, obj in CALLABLES.items():
        parameters = set(inspect.signature(obj).parameters)
        assert not parameters & {"random_state", "generator", "random_seed", "key"}, name


def test_widths_are_d_model_for_position_tables_and_d_for_rotated_vectors():
    for name, obj in CALLABLES.items():
        parameters = set(inspect.signature(obj).parameters)
        assert not parameters & {"dim", "width", "d_head", "hidden"}, name
        module = name.rsplit(".", 1)[0]
        if module in ("posenc_lib.sinusoidal", "posenc_lib.learned", "posenc_lib.word_order"):
            assert "d" not in parameters, name
        if module == "posenc_lib.rope":
            assert "d_model" not in parameters, name
