"""A training's progress bar in a notebook (issue 38 item 4): visible while the cell runs, gone after.

`posenc_lib.display.progress_in_place` shows tqdm's bar as one output line updated in place and
blanks it when the bar closes, so the saved notebook holds an empty output that nbval sees the
same on every run; the website leaves that blank output out.
"""

import pytest
import sitetools
from nbformat.v4 import new_code_cell, new_notebook, new_output

CELL = """import tqdm.auto
from posenc_lib.display import progress_in_place
import IPython.display

updates = []
_update = IPython.display.DisplayHandle.update
IPython.display.DisplayHandle.update = lambda self, obj, **kw: (updates.append(obj), _update(self, obj, **kw))[1]
with progress_in_place():
    for _ in tqdm.auto.tqdm(range(3), desc="training", mininterval=0, leave=False):  # as train()
        pass
IPython.display.DisplayHandle.update = _update
print(
    updates[0]["text/plain"].startswith("training:   0%|"),
    any(u["text/plain"].startswith("training:  67%|") for u in updates),
    repr(updates[-1]["text/plain"]),
)"""


@pytest.mark.slow
def test_the_bar_updates_in_place_and_leaves_a_blank_output():
    from nbclient import NotebookClient

    nb = new_notebook(cells=[new_code_cell(CELL)])
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    NotebookClient(nb, kernel_name="python3", timeout=120).execute()
    outputs = nb.cells[0].outputs
    assert [o["output_type"] for o in outputs] == ["display_data", "stream"]
    assert outputs[0]["data"] == {"text/plain": ""}  # the last update: blank
    assert outputs[1]["text"] == "True True ''\n"  # 0% first, then 2 of 3, then blank


def test_the_site_leaves_a_blank_output_out():
    blank = new_output("display_data", data={"text/plain": ""})
    printed = new_output("stream", name="stdout", text="done\n")
    nb = new_notebook(cells=[new_code_cell("train()", outputs=[blank, printed])])
    site, _ = sitetools.site_notebook(nb, "01_tiny.ipynb", "https://github.com/someone/course")
    assert site.cells[0].outputs == [printed]
    assert nb.cells[0].outputs == [blank, printed]  # the committed notebook is left alone
