"""A newcomer's path through each chapter: honest times, depth folded away, tasks where learned.

It holds every chapter (``CHAPTERS``): all nine were rebuilt for it.

The contract of issue 40, chapter by chapter:

- **Two honest times.** The header says ``**Time:** about N minutes on the core path (M with every
  going-deeper block).`` Both are within a quarter of `tools/reading_time.py`'s estimate of a
  newcomer's walk (its rates, calibrated on a cell-by-cell walk, are in its docstring).
- **Depth folded.** A going-deeper block is a markdown cell that opens with ``<details>`` and a
  ``<summary>`` starting "Going deeper", and closes with ``</details>``; code that belongs to it is
  tagged ``going-deeper`` (and starts folded: its code, and its output unless that is an explorer,
  so a block's printout or figure does not stand on the core path). A cell whose printout the core
  prose reads is ``hide-input`` instead: its code folded, its printout shown. So no core sentence
  quotes a number that only a folded output prints (the recap and the verdict ledger, which sum up
  the going-deeper blocks too, aside).
- **Every task printed where it is asked.** Every exercise of the chapter has its prompt printed
  by a cell of the notebook (``q.ask()``), before the cell that checks it.
- **Every goal exercised.** The header's learning goals are numbered by their order; every goal has
  an exercise whose ``goal`` names it, and (from chapter 02 on) at least one exercise ``reuses``
  an earlier chapter.
- **Hints in tiers.** An exercise of code has at least two hints; the first never holds a line of
  the solution.
- **Closure.** Each chapter has a ``## You can now`` section: a list tied to its goals, then a
  pointer to what comes next; and it links the glossary.
"""

import re
import sys
from pathlib import Path

import nbformat
import pytest

from posenc_lib.exercises import ch00, ch01, ch02, ch03, ch04, ch05, ch06, ch07, ch08

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
ALL_CHAPTERS = sorted(path.stem for path in NOTEBOOKS.glob("0[0-8]_*.md"))
#: The chapters this contract holds: every one.
CHAPTERS = ALL_CHAPTERS
MODULES = dict(
    zip(
        [c[:2] for c in ALL_CHAPTERS],
        (ch00, ch01, ch02, ch03, ch04, ch05, ch06, ch07, ch08),
        strict=True,
    )
)
sys.path.insert(0, str(ROOT / "tools"))
import nbtools  # noqa: E402
import reading_time  # noqa: E402


def _text(chapter):
    return (NOTEBOOKS / f"{chapter}.md").read_text()


def _goals(chapter):
    """The header's learning goals, in order."""
    block = re.search(r"\*\*Learning goals\*\*\n((?:- .*\n(?:  .*\n)*)+)", _text(chapter))
    assert block, f"{chapter}: no '**Learning goals**' list in the header"
    return re.findall(r"^- ", block.group(1), flags=re.M)


def _outputs(chapter):
    nb = nbformat.read(NOTEBOOKS / f"{chapter}.ipynb", as_version=4)
    texts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            texts.append(out.get("text", "") or out.get("data", {}).get("text/plain", ""))
    return " ".join(" ".join(texts).split())


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_the_header_states_both_times_within_a_quarter_of_a_newcomers_walk(chapter):
    core, full = reading_time.stated(NOTEBOOKS / f"{chapter}.md")
    walk = reading_time.walk(NOTEBOOKS / f"{chapter}.md")
    assert core is not None and full is not None, (
        f"{chapter}: the header must say '**Time:** about N minutes on the core path "
        "(M with every going-deeper block).'"
    )
    assert abs(core - walk["core"]) <= 0.25 * walk["core"], (chapter, core, walk)
    assert abs(full - walk["all"]) <= 0.25 * walk["all"], (chapter, full, walk)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_going_deeper_blocks_are_closed_folds(chapter):
    text = re.sub(r"```.*?```", "", _text(chapter), flags=re.S)
    opened = re.findall(r"^<details>\s*\n<summary>(.*?)</summary>", text, flags=re.M)
    assert len(opened) == text.count("<details>") == text.count("</details>"), chapter
    assert all(s.replace("<b>", "").startswith("Going deeper") for s in opened), opened


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_a_going_deeper_output_starts_folded_and_an_explorer_stays_open(chapter):
    nb = nbformat.read(NOTEBOOKS / f"{chapter}.ipynb", as_version=4)
    for n, cell in enumerate(nb.cells):
        tags = cell.get("metadata", {}).get("tags", [])
        if cell.cell_type != "code" or "going-deeper" not in tags:
            continue
        state = cell.metadata.get("jupyter", {})
        assert state.get("source_hidden") is True, (chapter, n)
        assert state.get("outputs_hidden", False) is nbtools.foldable_output(cell), (chapter, n)
        if nbtools.WIDGET in str(cell.get("outputs")):
            assert "outputs_hidden" not in state, (chapter, n)


QUOTED = re.compile(r"(?<![\w.])\d[\d,]*\.\d{2,}|(?<![\w.])\d[\d,]*(?:\.\d+)?%")
SUMMING_UP = re.compile(r"^## (Recap|Verdict ledger)", re.M)


def _numbers(text):
    return {n.replace(",", "") for n in QUOTED.findall(text)}


def _printed(cell):
    """The text a code cell's outputs show: printed lines, plain text, HTML."""
    parts = []
    for out in cell.get("outputs", []):
        data = out.get("data", {})
        parts += [out.get("text", ""), data.get("text/plain", ""), data.get("text/html", "")]
    return "\n".join(parts)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_no_core_sentence_quotes_a_number_only_a_folded_output_prints(chapter):
    nb = nbformat.read(NOTEBOOKS / f"{chapter}.ipynb", as_version=4)
    shown, folded, core, depth, summing_up = set(), {}, [], 0, False
    for n, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            numbers = _numbers(_printed(cell))
            if cell.metadata.get("jupyter", {}).get("outputs_hidden"):
                for number in numbers:
                    folded.setdefault(number, n)
            else:
                shown |= numbers
            continue
        if cell.cell_type != "markdown":
            continue
        summing_up = summing_up or bool(SUMMING_UP.search(cell.source))
        for part in re.split(r"(</?details>)", cell.source):
            depth += {"<details>": 1, "</details>": -1}.get(part, 0)
            if depth == 0 and not part.startswith("<") and not summing_up:
                prose = re.sub(r"\$[^$]*\$", "", part)  # formulas hold constants, not results
                core += [(n, number) for number in _numbers(prose)]
    hidden = [
        f"cell {n} quotes {number}, printed only by folded cell {folded[number]}"
        for n, number in core
        if number not in shown and number in folded
    ]
    assert not hidden, hidden


@pytest.mark.slow
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_the_core_path_runs_without_its_going_deeper_cells(chapter):
    """A learner may run the core cells only: no core cell needs a name that only a going-deeper
    cell defines (chapter 07's comparisons once needed a fold's helpers)."""
    from nbclient import NotebookClient

    nb = nbformat.read(NOTEBOOKS / f"{chapter}.ipynb", as_version=4)
    nb.cells = [
        c
        for c in nb.cells
        if not (c.cell_type == "code" and "going-deeper" in c.metadata.get("tags", []))
    ]
    client = NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
    )
    client.execute()  # raises CellExecutionError, naming the cell, if a core cell fails


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_exercise_prompt_is_printed_in_the_notebook(chapter):
    printed = _outputs(chapter)
    for q in MODULES[chapter[:2]].EXERCISES:
        start = " ".join(q.prompt.split())[:60]
        assert start in printed, f"{chapter}: the prompt of {q.name} is printed by no cell"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_exercises_are_asked_in_the_order_of_their_numbers(chapter):
    """q1 is the first exercise the chapter asks, q2 the second, and so on: a learner who meets
    q5 before q1 wonders what was skipped."""
    asked = list(dict.fromkeys(re.findall(r"\bex\.q(\d+)", _text(chapter))))
    assert asked == [str(k) for k in range(1, len(asked) + 1)], (chapter, asked)
    module = MODULES[chapter[:2]]
    for k in asked:  # each asked number is one of the module's exercises (q4a: part a of q4)
        assert hasattr(module, f"q{k}") or hasattr(module, f"q{k}a"), (chapter, k)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_learning_goal_has_an_exercise(chapter):
    if chapter.startswith(("00", "08")):  # the start and the course quiz: no goals of their own
        return
    goals = _goals(chapter)
    covered = {q.goal for q in MODULES[chapter[:2]].EXERCISES}
    missing = [k for k in range(1, len(goals) + 1) if k not in covered]
    assert not missing, f"{chapter}: learning goals {missing} have no exercise (set goal=k)"
    if chapter[:2] >= "02":
        assert any(q.reuses for q in MODULES[chapter[:2]].EXERCISES), (
            f"{chapter}: no exercise reuses an earlier chapter"
        )


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_hints_come_in_tiers_and_the_first_gives_no_line_of_the_solution(chapter):
    for q in MODULES[chapter[:2]].EXERCISES:
        if not hasattr(q, "reference"):  # choices and values: one hint may do
            continue
        assert len(q.hints) >= 2, f"{q.name}: a code exercise has a nudge and then a recipe"
        lines = [ln.strip() for ln in q.solution_code.splitlines() if len(ln.strip()) > 12]
        leaked = [ln for ln in lines if ln in q.hints[0]]
        assert not leaked, f"{q.name}: the first hint holds the solution's {leaked}"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_the_chapter_closes_with_what_you_can_now_do_and_links_the_glossary(chapter):
    text = _text(chapter)
    section = re.search(r"^## You can now\n(.*?)(?=^## |\Z)", text, flags=re.M | re.S)
    assert section, f"{chapter}: no '## You can now' section"
    assert len(re.findall(r"^- ", section.group(1), flags=re.M)) >= 3, chapter
    assert re.search(r"\*\*Next", section.group(1)) or chapter.startswith("08"), chapter
    assert "#glossary" in text, f"{chapter}: no link to the glossary"
