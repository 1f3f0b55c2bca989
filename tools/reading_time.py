"""How long a newcomer takes over a chapter: the core path, and with every going-deeper block.

Usage (from the repository's top folder)::

    python tools/reading_time.py            # a table of every chapter
    python tools/reading_time.py --check    # exit 1 when a header's stated times disagree

A chapter's time is what a learner who knows Python and numpy, and has never studied attention,
spends reading, running and thinking: prose read carefully (with formulas), code read and run,
figures looked at, exercises attempted before any hint. The rates below were calibrated on a
newcomer's cell-by-cell walk of chapters 01, 02 and 04 (issue 40: 45-55, 75-100 and 50-60
minutes, with the counts this tool reports for those chapters as they were then), so a chapter's
estimate is that walk's pace applied to its current content.

Going deeper: a markdown cell that opens with ``<details>`` (the fold every renderer shows
closed: JupyterLab, Colab and the website) and a code cell tagged ``going-deeper`` are off the
core path; the second time counts them too. A code cell tagged ``hide-input`` (drawing code folded
away, its figure shown) counts as its figure only.
"""

import argparse
import re
import sys
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"

#: Minutes per unit of a newcomer's walk (calibrated as the module says).
WORDS_PER_MINUTE = 110  # technical prose with formulas, read to understand
CODE_LINE = 4 / 60  # a line of code read, run and its output read
FIGURE = 1.0  # a figure looked at until its point is seen
EXERCISE = 5.0  # an exercise attempted before any hint, checked, fixed once
EXPLORER = 2.0  # an explorer tried (a few presses, a prediction checked)
QUIZ_QUESTION = 1.2  # one question of chapter 8's quiz (a newcomer's walk: 25 in about 30 minutes)

_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```", re.S | re.M)


def _cells(text):
    """Yield (kind, source, tags) for the cells of a MyST notebook, in order."""
    pos = 0
    header = re.match(r"^---\n.*?\n---\n", text, re.S)
    if header:
        pos = header.end()
    for m in _CELL.finditer(text, pos):
        yield from _markdown(text[pos : m.start()])
        body = m.group(1)
        tags = []
        meta = re.match(r"^---\n(.*?)\n---\n", body, re.S)
        if meta:
            tags = re.findall(r"[\w-]+", " ".join(re.findall(r"tags:\s*\[(.*?)\]", meta.group(1))))
            body = body[meta.end() :]
        tags += re.findall(r"^:tags: \[(.*?)\]", body, re.M)
        body = re.sub(r"^:[\w-]+:.*\n", "", body, flags=re.M)
        yield "code", body, " ".join(tags)
        pos = m.end()
    yield from _markdown(text[pos:])


def _markdown(chunk):
    for part in re.split(r"^\+\+\+.*$", chunk, flags=re.M):
        if part.strip():
            yield "markdown", part, ""


def walk(path):
    """Return {"core": minutes, "all": minutes, counts...} for one chapter's MyST source."""
    counts = {
        "words": [0, 0],
        "code": [0, 0],
        "figures": [0, 0],
        "exercises": [0, 0],
        "quiz": [0, 0],
    }
    explorers = [0, 0]
    deeper = False
    for kind, source, tags in _cells(Path(path).read_text()):
        if kind == "markdown":
            deeper = source.lstrip().startswith("<details")
            prose = re.sub(r"\$\$.*?\$\$", " formula ", source, flags=re.S)
            prose = re.sub(r"<[^>]+>|\]\([^)]*\)", " ", prose)
            counts["words"][deeper] += len(re.findall(r"[A-Za-z0-9][\w'.,-]*", prose))
            continue
        off = deeper or "going-deeper" in tags
        lines = [ln for ln in source.splitlines() if ln.strip() and not ln.strip().startswith("#")]
        if "hide-input" not in tags:  # a figure's drawing code, folded: the figure is what is read
            counts["code"][off] += len(lines)
        counts["figures"][off] += len(re.findall(r"plt\.show\(\)|figure:", source))
        quiz = len(re.findall(r'^answer_\w+ = "\?"', source, flags=re.M))
        quiz = quiz if quiz >= 5 else 0  # the quiz's answer cell: one line per question
        counts["quiz"][off] += quiz
        if not quiz:
            counts["exercises"][off] += len(re.findall(r"\bq\d+\.check\(|\.check\(answer", source))
        explorers[off] += len(re.findall(r"Explorer\(|Slider\(|Inspector\(", source))
    core = (
        counts["words"][0] / WORDS_PER_MINUTE
        + counts["code"][0] * CODE_LINE
        + counts["figures"][0] * FIGURE
        + counts["exercises"][0] * EXERCISE
        + counts["quiz"][0] * QUIZ_QUESTION
        + explorers[0] * EXPLORER
    )
    extra = (
        counts["words"][1] / WORDS_PER_MINUTE
        + counts["code"][1] * CODE_LINE
        + counts["figures"][1] * FIGURE
        + counts["exercises"][1] * EXERCISE
        + counts["quiz"][1] * QUIZ_QUESTION
        + explorers[1] * EXPLORER
    )
    return {
        "core": round(core),
        "all": round(core + extra),
        **{k: v[0] + v[1] for k, v in counts.items()},
        "explorers": sum(explorers),
    }


def stated(path):
    """Return (core, all) minutes as the chapter's header states them (all may be None)."""
    text = Path(path).read_text()
    m = re.search(
        r"\*\*Time:\*\* about (\d+) minutes(?:[^.\n]*?(\d+) with every going-deeper)?", text
    )
    if not m:
        return None, None
    return int(m[1]), int(m[2]) if m[2] else None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail on a header off by > 25%%")
    args = parser.parse_args(argv)
    bad = []
    print(
        f"{'chapter':<34}{'core':>6}{'all':>6}{'stated':>8}{'words':>7}{'code':>6}{'figs':>6}{'ex':>4}"
    )
    for path in sorted(NOTEBOOKS.glob("0[0-8]_*.md")):
        w = walk(path)
        core, full = stated(path)
        print(
            f"{path.stem:<34}{w['core']:>6}{w['all']:>6}{str(core):>8}{w['words']:>7}"
            f"{w['code']:>6}{w['figures']:>6}{w['exercises']:>4}"
        )
        if core is None or abs(core - w["core"]) > 0.25 * w["core"]:
            bad.append(path.stem)
    if args.check and bad:
        print("stated times off by more than a quarter:", ", ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
