"""Every list of the chapters says what the chapters say of themselves.

Each chapter states its title (its ``# NN · title`` heading) and its time ("about N minutes") in its
first markdown cell. Three places list the chapters: chapter 00's map (the table under "The
chapters"), the README's chapter table with its total time, and the website's chapter map (built by
tools/sitetools.py from the notebooks). Each is held here to the chapters' text sources,
notebooks/NN_name.md, read on their own (not through sitetools), so a retitled or re-timed chapter
fails until every list follows.
"""

import re
import sys
from pathlib import Path

import jupytext
import pytest
import sitetools

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
SOURCES = sorted(p for p in NOTEBOOKS.glob("[0-9][0-9]_*.md"))
NUMBER_WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
]


def header(path):
    """Title and minutes as a chapter states them in its first markdown cell."""
    cell = next(c for c in jupytext.read(path).cells if c.cell_type == "markdown")
    title = re.search(r"^# (?:\d\d · )?(.+?)\s*$", cell.source, re.M)
    minutes = re.search(r"\babout (\d+) minutes\b", cell.source)
    deeper = re.search(r"\((\d+) with every going-deeper block\)", cell.source)
    assert title and minutes, f"{path.name}: its first markdown cell states no title or no time"
    return {
        "number": path.name[:2],
        "stem": path.stem,
        "title": title[1],
        "minutes": int(minutes[1]),
        "deeper": int(deeper[1]) if deeper else None,
    }


HEADERS = [header(p) for p in SOURCES]


def table_rows(text, heading):
    """The rows of the first markdown table after ``heading``, as lists of cells."""
    section = text.split(heading, 1)[1]
    rows = []
    for line in section.splitlines():
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif rows:
            break
    return [row for row in rows[2:]]  # without the header and the |---| line


def test_every_chapter_states_a_title_and_minutes_in_its_first_markdown_cell():
    assert [h["number"] for h in HEADERS] == [f"{n:02d}" for n in range(len(HEADERS))]
    assert len(HEADERS) >= 9 and all(h["minutes"] > 0 for h in HEADERS)


def test_chapter_00s_map_gives_each_chapter_its_own_title_link_and_minutes():
    rows = table_rows((NOTEBOOKS / "00_start_here.md").read_text(), "## 1. The chapters")
    assert [row[0] for row in rows] == [h["number"] for h in HEADERS]
    for row, chapter in zip(rows, HEADERS, strict=True):
        if chapter["number"] == "00":  # the map is in this notebook: a name, not a link
            assert row[1] == f"{chapter['title']} (this notebook)", row
        else:
            assert row[1] == f"[{chapter['title']}]({chapter['stem']}.ipynb)", row
        assert row[2] == f"{chapter['minutes']} min", (row, chapter)
        assert row[3] == f"{chapter['deeper']} min", (row, chapter)


def _h_min(minutes):
    return f"{minutes // 60} h {minutes % 60} min" if minutes % 60 else f"{minutes // 60} h"


def test_chapter_00s_routes_add_up_the_chapters_times():
    text = " ".join((NOTEBOOKS / "00_start_here.md").read_text().split())
    core = sum(h["minutes"] for h in HEADERS)
    deeper = sum(h["deeper"] for h in HEADERS)
    assert (
        f"**The whole course:** about {_h_min(core)} on the core paths ({_h_min(deeper)} with "
        "every going-deeper block)" in text
    )
    route = re.search(
        r"\*\*The essentials\*\* \(([\d, and]+)\):.*? in about ([^;]+?) on the core", text
    )
    assert route, (
        "chapter 00: no '**The essentials** (NN, ...): ... in about H h M min on the core'"
    )
    chosen = set(re.findall(r"\d\d", route[1]))
    assert route[2] == _h_min(sum(h["minutes"] for h in HEADERS if h["number"] in chosen))


def test_the_readme_table_and_total_time_agree_with_the_chapters():
    readme = (ROOT / "README.md").read_text()
    rows = table_rows(readme, "## Chapters")
    assert [row[0] for row in rows] == [h["number"] for h in HEADERS]
    for row, chapter in zip(rows, HEADERS, strict=True):
        assert row[1] == f"[{chapter['title']}](notebooks/{chapter['stem']}.ipynb)", row
    total = re.search(
        r"The (\w+) chapters take about (\d+) (?:h (\d+) min|hours) on their core paths\s+\(the sum of\s+the estimates in their "
        r"headers: ([\d, and]+) minutes\)",
        readme,
    )
    assert total, (
        "README: no 'The N chapters take about H h M min on their core paths (...)' sentence"
    )
    minutes = [h["minutes"] for h in HEADERS]
    assert total[1] == NUMBER_WORDS[len(HEADERS)]
    assert int(total[2]) * 60 + int(total[3] or 0) == sum(minutes)
    assert [int(m) for m in re.findall(r"\d+", total[4])] == minutes


def test_the_sites_chapter_list_agrees_with_the_chapters():
    """The website's chapter map and navigation read the committed notebooks (sitetools)."""
    infos = [sitetools.chapter_info(p) for p in sitetools.chapter_paths()]
    assert [(i["number"], i["title"], i["minutes"]) for i in infos] == [
        (h["number"], h["title"], h["minutes"]) for h in HEADERS
    ]
    text = sitetools.chapter_map_markdown(infos)
    for chapter in HEADERS:
        link = f"[{chapter['number']} · {chapter['title']}]({chapter['stem']}.ipynb)"
        assert f"**{link}** · {chapter['minutes']} min" in text
    total = sum(h["minutes"] for h in HEADERS)
    assert f"{len(HEADERS)} chapters, about {total // 60} h {total % 60:02d} min" in text


def _stale_time(source):
    """The first row's time in chapter 00's map, and the same time 5 minutes off."""
    time = re.search(r"\| (\d+) min \|", source.split("## 1. The chapters", 1)[1])
    return time[0], f"| {int(time[1]) + 5} min |"


@pytest.mark.parametrize(
    "edit",
    [
        "time",  # a stale time
        ("[RoPE: rotating queries and keys]", "[RoPE]"),  # a shortened title
    ],
)
def test_a_stale_row_in_chapter_00s_map_is_caught(edit, tmp_path, monkeypatch):
    source = (NOTEBOOKS / "00_start_here.md").read_text()
    edit = _stale_time(source) if edit == "time" else edit
    assert edit[0] in source
    stale = tmp_path / "notebooks"
    stale.mkdir()
    (stale / "00_start_here.md").write_text(source.replace(edit[0], edit[1], 1))
    monkeypatch.setattr(sys.modules[__name__], "NOTEBOOKS", stale)
    with pytest.raises(AssertionError):
        test_chapter_00s_map_gives_each_chapter_its_own_title_link_and_minutes()
