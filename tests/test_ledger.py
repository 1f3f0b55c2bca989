"""Every chapter keeps a verdict ledger, and its recap and chapter 08 quote it.

A verdict is what a chapter concludes from what it measured or derived ("only T5 keeps the exact
offset past the training length", "the scores depend on m - n only"). Each chapter lists its
verdicts in one table, its section "Verdict ledger", with

- **ID**: ``NN.k`` (the chapter, then 1, 2, ... in order), followed by ``(headline)`` for the
  verdicts a learner takes away;
- **Verdict**: the sentence, with its numbers;
- **Conditions**: ``key: value`` pairs separated by semicolons. A derived verdict says
  ``exact: ...`` (what it holds for); a measured one names at least ``layers``, ``budget`` and
  ``seeds``, and where they matter ``configuration``, ``initial scale``, ``bins``, ``lengths``,
  ``data``, ``mode``;
- **Shown in**: the numbered sections (``§3``) whose cells print the evidence;
- **One condition varied**: what changed and what happened (required for every headline verdict
  of a measured kind: the verdict survives the change, or the row says where it stops).

The cheat sheet's cards (chapter 08's ``cards`` list) carry their citation in a comment on the
card's tuple, ``# (ledger 06.2)``, so the figure does not show it.

The ledger's numbers are prose numbers: `test_printed_numbers` holds them to the chapter's
outputs. The recap's bullets and paragraphs, chapter 08's advice table, "How to choose" and the
cheat sheet's verdicts, and the quiz's explanations cite rows as ``(ledger NN.k)`` or
``(ledger NN.k, MM.j)``; every decimal number or percentage they quote must appear in a row they
cite, so a summary cannot state a number the ledger does not hold.
"""

import re
from pathlib import Path

import pytest

from posenc_lib.exercises import ch08

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
CHAPTERS = sorted(path.stem for path in NOTEBOOKS.glob("0[0-8]_*.md"))
COLUMNS = ["ID", "Verdict", "Conditions", "Shown in", "One condition varied"]
CONDITION_KEYS = {
    "exact",
    "layers",
    "heads",
    "configuration",
    "initial scale",
    "budget",
    "bins",
    "seeds",
    "lengths",
    "data",
    "mode",
    "task",
    "tasks",
}
MEASURED = ("layers", "budget", "seeds")
#: Chapters whose verdicts come from trained models: each has at least one headline verdict.
STUDIES = ("03", "06", "07")
CITATION = re.compile(r"\(ledger (\d\d\.\d+(?:, \d\d\.\d+)*)\)")
NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*\.\d+%?|(?<![\w.])\d+(?:\.\d+)?%")


def _sections(text):
    """{heading text: body} of the level-2 sections of a chapter's MyST source."""
    parts = re.split(r"^## (.+)$", text, flags=re.M)
    return {parts[i].strip(): parts[i + 1] for i in range(1, len(parts), 2)}


def _prose(body):
    """The body without its code cells and directive blocks."""
    return re.sub(r"```.*?```", "", body, flags=re.S)


def _numbers(text):
    """The decimal numbers and percentages of a text, as written but without commas and signs."""
    text = re.sub(r"`[^`]*`", "", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return {m.replace(",", "").lstrip("-") for m in NUMBER.findall(text)}


def _same(a, b):
    """Two written numbers agree when equal as decimals (trailing zeros aside)."""
    try:
        return float(a.rstrip("%")) == float(b.rstrip("%")) and a.endswith("%") == b.endswith("%")
    except ValueError:
        return a == b


def ledger(chapter):
    """Return the chapter's ledger rows: a list of dicts keyed by `COLUMNS`."""
    text = (NOTEBOOKS / f"{chapter}.md").read_text()
    sections = _sections(text)
    assert "Verdict ledger" in sections, f"{chapter}: no section '## Verdict ledger'"
    lines = [
        line.strip()
        for line in _prose(sections["Verdict ledger"]).splitlines()
        if line.strip().startswith("|")
    ]
    assert len(lines) >= 3, f"{chapter}: the ledger has no table with at least one row"
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    assert header == COLUMNS, f"{chapter}: ledger columns {header}, expected {COLUMNS}"
    rows = []
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert len(cells) == len(COLUMNS), f"{chapter}: a ledger row has {len(cells)} cells: {line}"
        rows.append(dict(zip(COLUMNS, cells, strict=True)))
    return rows


def _all_rows():
    return {row["ID"].split()[0]: row for chapter in CHAPTERS for row in ledger(chapter)}


def _conditions(row):
    pairs = {}
    for part in row["Conditions"].split(";"):
        key, sep, value = part.partition(":")
        assert sep and value.strip(), f"{row['ID']}: condition {part!r} is not 'key: value'"
        pairs[key.strip()] = value.strip()
    return pairs


def _check_quotes(where, text, rows, given=()):
    """Fail unless ``text`` cites existing rows and quotes only numbers those rows hold.

    ``given``: numbers the text may quote besides (a quiz question's own data).
    """
    cited = [i for group in CITATION.findall(text) for i in group.split(", ")]
    assert cited, f"{where}: states a verdict without citing the ledger: {text[:160]!r}"
    unknown = [i for i in cited if i not in rows]
    assert not unknown, f"{where}: cites ledger rows that do not exist: {unknown}"
    held = set(given).union(*(_numbers(" ".join(rows[i].values())) for i in cited))
    missing = sorted(
        n for n in _numbers(CITATION.sub("", text)) if not any(_same(n, h) for h in held)
    )
    assert not missing, f"{where}: quotes {missing}, which no cited ledger row ({cited}) holds"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_chapter_keeps_a_ledger_numbered_in_order(chapter):
    rows = ledger(chapter)
    ids = [row["ID"] for row in rows]
    for k, written in enumerate(ids, start=1):
        assert re.fullmatch(rf"{chapter[:2]}\.{k}( \(headline\))?", written), (
            f"{chapter}: ledger row {k} has ID {written!r}, expected '{chapter[:2]}.{k}' "
            "(optionally followed by ' (headline)')"
        )
    assert all(row["Verdict"] for row in rows)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_verdict_names_its_conditions(chapter):
    for row in ledger(chapter):
        conditions = _conditions(row)
        unknown = set(conditions) - CONDITION_KEYS
        assert not unknown, f"{row['ID']}: unknown condition keys {unknown}; use {CONDITION_KEYS}"
        if "exact" not in conditions:
            missing = [k for k in MEASURED if k not in conditions]
            assert not missing, f"{row['ID']}: a measured verdict must name {missing}"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_verdict_points_to_the_sections_that_show_it(chapter):
    text = (NOTEBOOKS / f"{chapter}.md").read_text()
    numbered = set(re.findall(r"^## (\d+)\. ", text, flags=re.M))
    for row in ledger(chapter):
        shown = re.findall(r"§(\d+)", row["Shown in"])
        assert shown, f"{row['ID']}: 'Shown in' names no section (§N): {row['Shown in']!r}"
        missing = [s for s in shown if s not in numbered]
        assert not missing, f"{row['ID']}: no section numbered {missing} in {chapter}"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_measured_headline_varies_a_condition(chapter):
    rows = ledger(chapter)
    if chapter[:2] in STUDIES:
        assert any(r["ID"].endswith("(headline)") for r in rows), f"{chapter}: no headline verdict"
    for row in rows:
        if row["ID"].endswith("(headline)") and "exact" not in _conditions(row):
            varied = row["One condition varied"]
            assert varied not in ("", "-", "—") and re.search(r"\d", varied), (
                f"{row['ID']}: a headline verdict varies one condition and prints the result"
            )


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_the_recap_quotes_the_ledger(chapter):
    rows = _all_rows()
    sections = _sections((NOTEBOOKS / f"{chapter}.md").read_text())
    recap = _prose(sections.get("Recap", ""))
    assert recap.strip(), f"{chapter}: no recap"
    blocks = re.split(r"\n\s*\n|\n(?=- )", recap)
    for block in blocks:
        block = " ".join(block.split())
        if not block or block.startswith(("**Further reading", "**Previous", "**Next")):
            continue
        _check_quotes(f"{chapter} recap", block, rows)


def test_chapter_08_advice_and_cheat_sheet_quote_the_ledger():
    rows = _all_rows()
    chapter = next(c for c in CHAPTERS if c.startswith("08"))
    text = (NOTEBOOKS / f"{chapter}.md").read_text()
    sections = _sections(text)
    advice = next(body for title, body in sections.items() if "The articles' advice" in title)
    table = [line for line in advice.splitlines() if line.startswith("| ") and "---" not in line]
    for line in table[1:]:
        _check_quotes("08 advice table", line.split("|")[2], rows)
    choose = re.search(r"\*\*How to choose.*?(?=\n\s*\n)", advice, flags=re.S)
    assert choose, "08: no 'How to choose' paragraph"
    _check_quotes("08 How to choose", " ".join(choose.group(0).split()), rows)
    sheet = next(body for title, body in sections.items() if "cheat sheet" in title)
    cards = re.search(r"^cards = \[(.*?)^\]", sheet, flags=re.S | re.M)
    assert cards, "08: the cheat sheet has no `cards` list"
    # one card per tuple: (formula, verdict), the verdict's citation in a comment on the tuple
    for card in re.split(r"^    \(", cards.group(1), flags=re.M)[1:]:
        strings = re.findall(r'"((?:[^"\\]|\\.)*)"', card)
        comment = " ".join(re.findall(r"#(.*)$", card, flags=re.M))
        verdict = " ".join(s.replace("\\n", " ") for s in strings[1:])
        _check_quotes("08 cheat sheet", f"{verdict} {comment}", rows)


@pytest.mark.parametrize("question", ch08.QUESTIONS, ids=lambda q: q.name)
def test_quiz_explanations_quote_the_ledger(question):
    """A quiz answer that quotes a measured number or cites a row quotes only what the ledger holds.

    Numbers the question's prompt gives (its own data, e.g. 0.05 bits per character) are givens.
    """
    rows = _all_rows()
    joined = " ".join([*question.hints, *question.options.values()])
    given = _numbers(question.prompt)  # numbers the question itself sets are givens, not verdicts
    if any(n not in given for n in _numbers(joined)) or CITATION.search(joined):
        _check_quotes(f"quiz {question.name}", joined, rows, given=given)
