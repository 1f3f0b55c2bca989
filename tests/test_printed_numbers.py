"""Every number a chapter's prose quotes is printed by a cell of that chapter.

The house rule (CONTRIBUTING.md, "Claims are demonstrated"): a sentence that quotes a measured number
quotes one the notebook prints, so the sentence cannot drift from the code. This test reads each
committed notebook, takes the decimal numbers and percentages from its markdown cells, and fails when
one of them appears in no text output of the same notebook.

What counts as a prose number: a decimal number (``0.083``, ``1,986.9``, ``-4.4``) or a percentage
(``93%``), in the markdown cells, math included, with code spans and link targets removed. Plain
integers are not checked: in prose they are mostly counts, lengths, indices, years and section
numbers.

What counts as printed: the text a cell prints (stream output) or returns (``text/plain`` of an
execute result); not displayed source code, not figures. A prose number matches a printed one when

- the two are equal as decimals, whatever the trailing zeros (``0.3110`` and numpy's ``0.311``), or
- the printed number has more decimals and rounds to the prose number, half up (``0.0830`` and
  ``0.083``, ``2.7726`` and ``2.77``);

signs are ignored (prose writes ranges such as ``0.01-0.02`` and minus signs as ``$-0.03$``), and a
percentage also matches a printed fraction (``93%`` and ``0.93``).

Numbers that are not measurements of the notebook (years, constants of a formula, citations of
published numbers, section numbers, illustrative values from a source article) are exempt, chapter by
chapter, each with its reason, in ``EXEMPT``. An exemption that no longer occurs in the prose fails
too, so the list stays honest.
"""

import json
import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
CHAPTERS = sorted(path.stem for path in NOTEBOOKS.glob("0[0-8]_*.ipynb"))

# chapter -> {prose number as written: why it need not be printed}
EXEMPT = {
    "00": {},
    "01": {
        "3.5": "a section number of 'Attention Is All You Need' (further reading)",
        "0.7": "the standard deviation the random layer's weights are drawn with, a setting (ledger)",
        "0.69": "Kazemnejad et al. (2023), published mean reciprocal rank, cited",
        "0.55": "Kazemnejad et al. (2023), published mean reciprocal rank, cited",
        "0.50": "Kazemnejad et al. (2023), published mean reciprocal rank, cited",
        "0.33": "Kazemnejad et al. (2023), published mean reciprocal rank, cited",
        "0.22": "Kazemnejad et al. (2023), published mean reciprocal rank, cited",
    },
    "02": {
        "0.02": "the illustrative encodings in the diagram of the article '09. Positional Encoding'",
        "0.01": "the illustrative encodings of that diagram; GPT-2/BERT's published init std 0.01-0.02",
        "0.05": "the illustrative encodings in the diagram of the article '09. Positional Encoding'",
        "0.03": "the illustrative encodings in the diagram of the article '09. Positional Encoding'",
        "0.1": "the illustrative embedding in the diagram of the article '09. Positional Encoding'",
        "0.4": "the illustrative embedding in the diagram of the article '09. Positional Encoding'",
        "0.2": "the illustrative embedding in the diagram of the article '09. Positional Encoding'",
        "0.5": "the illustrative embedding in the diagram of the article '09. Positional Encoding'",
        "3.4": "a section number of 'Attention Is All You Need'",
        "3.5": "a section number of 'Attention Is All You Need'",
    },
    "03": {
        "0.01": "GPT-2's published initial std of its position table (OpenAI's model.py), cited",
        "4.92": "Vaswani et al. (2017), Table 3 row E, published perplexity, cited",
        "25.7": "Vaswani et al. (2017), Table 3 row E, published BLEU, cited",
        "25.8": "Vaswani et al. (2017), Table 3, published BLEU, cited",
        "90%": "BERT's published pre-training schedule (Devlin et al., 2019), cited",
        "10%": "BERT's published pre-training schedule (Devlin et al., 2019), cited",
    },
    "04": {
        "20.07": "Press et al. (2022), published rotary perplexity at 512 tokens, cited",
        "79.25": "Press et al. (2022), published rotary perplexity at 15,512 tokens, cited",
        "0.1": "a constant of YaRN's temperature formula, sqrt(1/t) = 0.1 ln s + 1",
        "3.4.3": "a section number of the RoFormer paper",
        "3.3": "a model's version number (Llama 3.3)",
        "3.4.2": "a section number of Dubey et al. (2024)",
    },
    "05": {
        "2.1": "a section number of Raffel et al. (2020)",
        "20.05": "Press et al. (2022), published perplexity (the table cites the paper)",
        "43.54": "Press et al. (2022), published perplexity (the table cites the paper)",
        "132.41": "Press et al. (2022), published perplexity (the table cites the paper)",
        "406.01": "Press et al. (2022), published perplexity (the table cites the paper)",
        "20.07": "Press et al. (2022), published perplexity (the table cites the paper)",
        "21.37": "Press et al. (2022), published perplexity (the table cites the paper)",
        "31.58": "Press et al. (2022), published perplexity (the table cites the paper)",
        "79.25": "Press et al. (2022), published perplexity (the table cites the paper)",
        "19.65": "Press et al. (2022), published perplexity (the table cites the paper)",
        "18.79": "Press et al. (2022), published perplexity (the table cites the paper)",
        "20.41": "Press et al. (2022), published perplexity (the table cites the paper)",
        "19.73": "Press et al. (2022), published perplexity (the table cites the paper)",
        "18.73": "Press et al. (2022), published perplexity (the table cites the paper)",
        "18.41": "Press et al. (2022), published perplexity (the table cites the paper)",
        "18.31": "Press et al. (2022), published perplexity (the table cites the paper)",
    },
    "06": {},
    "07": {},
    "08": {
        "3.1": "a model's version number (Llama 3.1, in the table of today's models)",
    },
}

NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+(?:\.\d+)*|\d+)(%?)(?![\w])")


def prose_numbers(text):
    """The decimal numbers and percentages of a markdown text, as written (commas removed)."""
    text = re.sub(r"`[^`]*`", " ", text)  # code spans
    text = re.sub(r"\]\([^)]*\)", "]", text)  # link targets
    text = re.sub(r"\(ledger \d\d\.\d+(?:, \d\d\.\d+)*\)", " ", text)  # citations of ledger rows
    text = re.sub(r"^\|\s*\d\d\.\d+(?: \(headline\))?\s*\|", "|", text, flags=re.M)  # ledger IDs
    text = re.sub(r"https?://\S+", " ", text)
    found = []
    for digits, percent in NUMBER.findall(text):
        plain = digits.replace(",", "")
        if percent or "." in plain:
            found.append(plain + percent)
    return found


def printed_numbers(text):
    """Every number in a printed text, as a Decimal (signs dropped, commas removed)."""
    return {
        Decimal(digits.replace(",", ""))
        for digits in re.findall(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?", text)
    }


def is_printed(number, printed):
    """True when the prose number, as written, is among the printed ones or their roundings."""
    if number.endswith("%"):
        value = Decimal(number[:-1])
        return value in printed or value / 100 in printed or is_printed(number[:-1], printed)
    if number.count(".") > 1:  # a section number such as 3.4.3
        return False
    value = Decimal(number)
    exponent = value.as_tuple().exponent
    for candidate in printed:
        if candidate == value:
            return True
        more_digits = candidate.as_tuple().exponent < exponent
        if more_digits and candidate.quantize(Decimal(1).scaleb(exponent), ROUND_HALF_UP) == value:
            return True
    return False


def notebook_text(chapter):
    """(markdown of every markdown cell, text of every printed output) of a committed notebook."""
    cells = json.loads((NOTEBOOKS / f"{chapter}.ipynb").read_text())["cells"]
    markdown = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    outputs = []
    for cell in cells:
        for output in cell.get("outputs", []):
            if output["output_type"] == "stream":
                outputs.append("".join(output["text"]))
            elif output["output_type"] == "execute_result":
                outputs.append("".join(output["data"].get("text/plain", "")))
    return markdown, "\n".join(outputs)


def unprinted(chapter):
    """The prose numbers of a chapter that no output prints and no exemption covers."""
    markdown, outputs = notebook_text(chapter)
    printed = printed_numbers(outputs)
    exempt = EXEMPT[chapter[:2]]
    return sorted(
        {
            number
            for text in markdown
            for number in prose_numbers(text)
            if number not in exempt and not is_printed(number, printed)
        }
    )


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_decimal_number_in_the_prose_is_printed_by_the_notebook(chapter):
    missing = unprinted(chapter)
    assert not missing, (
        f"{chapter}: the prose quotes {missing}, which no cell prints; print them, or exempt them "
        "in EXEMPT with the reason"
    )


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_exemption_still_occurs_in_the_prose_and_has_a_reason(chapter):
    markdown, _ = notebook_text(chapter)
    quoted = {number for text in markdown for number in prose_numbers(text)}
    for number, reason in EXEMPT[chapter[:2]].items():
        assert number in quoted, (
            f"{chapter}: the exemption {number!r} no longer occurs in the prose"
        )
        assert len(reason) > 15, f"{chapter}: the exemption {number!r} needs a reason"


def test_the_extraction_reads_rounding_forms_separators_signs_and_percentages():
    printed = printed_numbers("weights 0.0830, 0.070 [0.311 0.95 ]  1,986.9 -4.40  share 93%  0.61")
    assert prose_numbers(
        "| 02.3 (headline) | 0.25 apart (ledger 02.3, 01.1) |\n| 02.4 | 1.5 |"
    ) == [
        "0.25",
        "1.5",
    ]
    assert prose_numbers(
        "0.083 and $-4.4$, 1,986.9 positions, 93% and 61%, section 3 of `x = 0.5`"
    ) == [
        "0.083",
        "4.4",
        "1986.9",
        "93%",
        "61%",
    ]
    for number in ("0.083", "0.07", "0.3110", "1986.9", "4.4", "93%", "61%", "0.95"):
        assert is_printed(number, printed), number
    for number in ("0.084", "0.32", "1986.8", "4.5", "92%", "3.4.3"):
        assert not is_printed(number, printed), number
