"""Every paper, post and piece of code a chapter cites is one click away.

docs/references.md (the website's References page) lists each cited work once, as

    - **Cited as (year)**: [Title](address). Venue, arXiv id. What it is for. Chapters 01 and 08.

This test reads the prose of every chapter's text source (notebooks/NN_name.md: markdown cells only,
code cells and their metadata left out) and checks that

- every citation it finds there is listed: each "Surname et al.", each author list with the shape of
  a citation ("Press, Smith and Lewis, ICLR 2022"), each quoted title followed by a year or venue
  ("Set Transformer" (2019)), and the posts and code named by ``ALIASES``;
- each work is linked, to the address the page gives, where a chapter first cites it and wherever
  the chapter's further reading names it;
- every link a chapter's prose makes to another site is one of the page's addresses (or a launch
  link), so a mistyped arXiv id cannot hide;
- the page is honest: each entry's "Chapters ..." are exactly the chapters that cite it, arXiv
  links name the id they point at, and no work is listed twice or cited nowhere.
"""

import re
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "references.md"
SOURCES = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.md"))

# Forms a work is cited by that its entry's "Cited as" does not give (posts and code).
ALIASES = {
    "ALiBi's code": [r"official implementation"],
    "YaRN's code": [r"authors' (?:reference )?code"],
}
# Short titles chapters quote for a work whose full title does not start with them.
SHORT_TITLES = {"T5": "Raffel et al."}
# A form two works share, read as this one when no title or year beside it says which.
DEFAULTS = {"Press et al.": 2022, "Press, Smith and Lewis": 2022}
NEAR = 12  # characters between a mention and its linked title: 'Kazemnejad et al. (2023, ["The'
LAUNCH_HOSTS = ("https://colab.research.google.com/", "https://mybinder.org/")
ENTRY_RE = re.compile(
    r"^\*\*(?P<cite>[^*]+?) \((?P<year>\d{4})\)\*\*: \[(?P<title>[^\]]+)\]\((?P<url>https://[^)\s]+)\)"
    r"(?P<rest>.*)$"
)
LINK_RE = re.compile(r"\[((?:[^\[\]]|\[[^\]]*\])*)\]\(([^)\s]+)\)")


def flat(text):
    return re.sub(r"\s+", " ", text.replace("’", "'").replace("“", '"').replace("”", '"')).strip()


def entries(text=None):
    """The entries of the references page: cite, year, title, url, chapters, the forms cited by."""
    text = PAGE.read_text() if text is None else text
    found = []
    for block in re.split(r"\n(?=- \*\*)", text):
        block = flat(block.split("\n\n")[0]).removeprefix("- ")
        if not block.startswith("**"):
            continue
        match = ENTRY_RE.match(block)
        assert match, (
            f"references.md: an entry not in the form '**Cited as (year)**: [Title](url)': {block[:90]}"
        )
        chapters = re.search(r"Chapters? ([\d, and]+)\.$", match["rest"])
        assert chapters, f"references.md: {match['cite']} does not end with the chapters citing it"
        cite = match["cite"]
        names = re.fullmatch(r"(\S+), (\S+) and (\S+)", cite)
        forms = [cite, *ALIASES.get(cite, [])]
        if names:
            forms.append(f"{names[1]} et al.")
        found.append(
            {
                "cite": cite,
                "year": int(match["year"]),
                "title": match["title"],
                "url": match["url"],
                "rest": match["rest"],
                "chapters": re.findall(r"\d\d", chapters[1]),
                "forms": forms,
            }
        )
    return found


ENTRIES = entries()


def prose(path):
    """A chapter's markdown cells, whitespace flattened (links kept)."""
    cells = jupytext.read(path).cells
    return flat("\n\n".join(c.source for c in cells if c.cell_type == "markdown"))


def unlinked(text):
    return LINK_RE.sub(lambda m: m[1], text)


def form_re(form):
    if re.fullmatch(r"[\w-]+", form):  # one name: not the first author of "Name et al."
        return re.compile(rf"(?<![\w-]){re.escape(form)}(?![\w-])(?! et al\.)")
    if form in sum(ALIASES.values(), []):
        return re.compile(form)
    return re.compile(rf"(?<![\w-]){re.escape(form)}")


def short_title(entry):
    return entry["title"].split(":")[0].lower()


def resolve(text, start, end, candidates):
    """Which of ``candidates`` (entries sharing a form) the mention at ``start:end`` cites: the
    one whose title follows it in the same citation (up to the next ';', '·' or sentence), else
    the one of the year that follows it, else the form's default."""
    if len(candidates) == 1:
        return candidates[0]
    citation = re.split(r"; | · |\. (?=[A-Z*])", text[end : end + 250])[0].lower()
    titled = [(citation.find(short_title(e)), e) for e in candidates if short_title(e) in citation]
    if titled:
        return min(titled, key=lambda pair: pair[0])[1]
    year = re.search(r"\b(?:19|20)\d\d\b", citation[:40])
    dated = [e for e in candidates if year and e["year"] == int(year[0])]
    if len(dated) == 1:
        return dated[0]
    form = next(f for f in candidates[0]["forms"] if text.startswith(f, start))
    return next(e for e in candidates if e["year"] == DEFAULTS[form])


def mentions(text, refs=ENTRIES):
    """Each citation of a listed work in ``text``: (start, end, entry), in order."""
    by_form = {}
    for entry in refs:
        for form in entry["forms"]:
            by_form.setdefault(form, []).append(entry)
    found = {}
    for form, candidates in by_form.items():
        for match in form_re(form).finditer(text):
            entry = resolve(text, match.start(), match.end(), candidates)
            found.setdefault(match.start(), (match.start(), match.end(), entry))
    return sorted(found.values(), key=lambda m: m[0])


def unlisted_citations(text, refs=ENTRIES):
    """What ``text`` cites that the references page does not list."""
    plain = unlinked(text)
    problems = []
    first_authors = {e["cite"].split()[0].rstrip(",") for e in refs}
    for surname in re.findall(r"\b([A-Z][\w'-]*) et al\.", plain):
        if surname not in first_authors:
            problems.append(f"{surname} et al.")
    cites = {e["cite"] for e in refs}
    venue = r"(?=,?\s*(?:\(|\"|(?:ICLR|ACL|NeurIPS|EMNLP|NAACL|ICML|JMLR)\b|(?:19|20)\d\d\b))"
    for authors in re.findall(rf"\b([A-Z][a-z]+, [A-Z][a-z]+,? and [A-Z][a-z]+){venue}", plain):
        if authors not in cites:
            problems.append(authors)
    titles = [e["title"].lower() for e in refs] + [t.lower() for t in SHORT_TITLES]
    quoted = r"\"([^\"]{3,150}?)\",?\s*\(?[^()\"]{0,20}?\b(?:19|20)\d\d\b"
    for title in re.findall(quoted, plain):
        if not any(t.startswith(title.lower().rstrip("?. ")) for t in titles):
            problems.append(f'"{title}"')
    return problems


def further_reading(text):
    """The spans of ``text`` that are a further-reading paragraph or section."""
    spans = []
    for match in re.finditer(r"\*\*Further reading\.\*\*|## Further reading", text):
        ends = [
            e
            for e in (text.find("**Previous:**", match.end()), text.find("\n## ", match.end()))
            if e > 0
        ]
        spans.append((match.start(), min(ends) if ends else len(text)))
    return spans


def link_problems(text, refs=ENTRIES):
    """Citations of ``text`` not linked where they must be, and links to unlisted addresses."""
    links = [(m.start(), m.end(), m[2]) for m in LINK_RE.finditer(text)]
    problems, seen = [], set()
    reading = further_reading(text)
    for start, end, entry in mentions(text, refs):
        first = entry["url"] not in seen
        seen.add(entry["url"])
        if not first and not any(a <= start < b for a, b in reading):
            continue
        # linked: the mention is the link's text, or the link is the title right beside it
        near = [u for a, b, u in links if a <= end + NEAR and b >= start - 3]
        if entry["url"] not in near:
            where = "first citation" if first else "further reading"
            problems.append(
                f"{entry['cite']} ({entry['year']}), {where}: no link to {entry['url']}"
            )
    urls = {e["url"] for e in refs}
    for _, _, url in links:
        if url.startswith("http") and url not in urls and not url.startswith(LAUNCH_HOSTS):
            problems.append(f"a link to {url}, which references.md does not list")
    return problems


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.stem)
def test_every_citation_is_listed_and_linked(path):
    text = prose(path)
    assert unlisted_citations(text) == [], f"{path.name} cites works references.md does not list"
    assert link_problems(text) == [], path.name


def test_each_entry_names_exactly_the_chapters_that_cite_it():
    cited = {}
    for path in SOURCES:
        for _, _, entry in mentions(prose(path)):
            cited.setdefault(entry["url"], set()).add(path.name[:2])
    for entry in ENTRIES:
        assert set(entry["chapters"]) == cited.get(entry["url"], set()), entry["cite"]
        assert entry["chapters"] == sorted(entry["chapters"]), entry["cite"]


def test_the_page_lists_each_work_once_with_a_well_formed_address():
    assert len(ENTRIES) >= 20
    for key in ("url", "title"):
        values = [e[key] for e in ENTRIES]
        assert len(values) == len(set(values)), f"a {key} listed twice"
    for entry in ENTRIES:
        arxiv = re.fullmatch(r"https://arxiv\.org/abs/(\d{4}\.\d{4,5})", entry["url"])
        if "arxiv.org" in entry["url"]:
            assert arxiv, entry["url"]
            assert f"arXiv:{arxiv[1]}" in entry["rest"], (
                f"{entry['cite']}: the text names another id"
            )
        assert entry["url"].startswith("https://"), entry["url"]


def test_the_references_page_is_in_the_sites_navigation():
    index = (ROOT / "docs" / "index.md").read_text()
    toctree = index.split(":caption: Reference", 1)[1].split("```", 1)[0]
    assert "references" in toctree.split()


# -- the checks themselves catch what they are for ---------------------------------------------------

PAGE_TEXT = """- **Vaswani et al. (2017)**: [Attention Is All You Need](https://arxiv.org/abs/1706.03762).
  NeurIPS 2017, arXiv:1706.03762. Chapter 01.
- **Press, Smith and Lewis (2021)**: [Shortformer: Better Language Modeling](https://arxiv.org/abs/2012.15832).
  ACL 2021, arXiv:2012.15832. Chapter 01.
- **Press, Smith and Lewis (2022)**: [Train Short, Test Long](https://arxiv.org/abs/2108.12409).
  ICLR 2022, arXiv:2108.12409. Chapter 01.
"""
V, SHORT, ALIBI = (
    "https://arxiv.org/abs/1706.03762",
    "https://arxiv.org/abs/2012.15832",
    "https://arxiv.org/abs/2108.12409",
)


def test_a_citation_missing_from_the_page_is_caught():
    refs = entries(PAGE_TEXT)
    text = flat(
        f'As [Vaswani et al.]({V}) showed, and Su et al. too; Shaw, Uszkoreit and Vaswani ("Self-'
        'Attention with Relative Position Representations", 2018); "Set Transformer" (2019).'
    )
    assert unlisted_citations(text, refs) == [
        "Su et al.",
        "Shaw, Uszkoreit and Vaswani",
        '"Self-Attention with Relative Position Representations"',
        '"Set Transformer"',
    ]


def test_an_unlinked_first_citation_or_further_reading_and_a_stray_link_are_caught():
    refs = entries(PAGE_TEXT)
    text = flat(
        f"Vaswani et al. (2017) first; later [Vaswani et al.]({V}). Press et al. measured it. "
        f'**Further reading.** Press, Smith and Lewis, ["Shortformer"]({SHORT}) (ACL 2021); '
        'Press, Smith and Lewis, "Train Short, Test Long" (ICLR 2022); '
        "[a mistyped id](https://arxiv.org/abs/1706.03763). **Previous:** [00](00_x.ipynb)"
    )
    assert link_problems(text, refs) == [
        f"Vaswani et al. (2017), first citation: no link to {V}",
        f"Press, Smith and Lewis (2022), first citation: no link to {ALIBI}",
        f"Press, Smith and Lewis (2022), further reading: no link to {ALIBI}",
        "a link to https://arxiv.org/abs/1706.03763, which references.md does not list",
    ]


def test_a_shared_form_is_read_by_the_title_or_year_beside_it():
    refs = entries(PAGE_TEXT)
    text = flat(
        'Press, Smith and Lewis, "Shortformer" (ACL 2021); Press, Smith and Lewis (2022) did; '
        "Press et al. measured."
    )
    assert [(m[2]["year"]) for m in mentions(text, refs)] == [2021, 2022, 2022]
