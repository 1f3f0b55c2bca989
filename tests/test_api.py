"""The public API as designed: every name `posenc_lib` exports imports, is documented, and shows an
example (numpydoc "Examples", run as a doctest)."""

import importlib

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
