"""Freeze the real-text corpus of chapter 07: CPython's `pydoc_data.topics`, as data.

Every CPython ships the text of its interactive help (``help("if")``) in the module
``pydoc_data.topics``: 79 topics, about 0.46 MB of English prose about Python. Its content
changes from one Python version to the next, so the course does not read it from whatever Python
runs the notebooks: this script copies it once into the package, and every stack trains on that
copy.

    python tools/build_corpus.py            # writes posenc_lib/data/pydoc_topics.json.gz
                                            # and posenc_lib/data/pydoc_topics_LICENSE.txt

The JSON holds ``source``, ``python_version`` (the Python it came from), ``license`` and
``topics`` (name -> text, unchanged). It is gzip-compressed with a zero timestamp and sorted keys,
so the same Python writes the same bytes. The notice file carries the Python Software Foundation
license under which the documentation is distributed, copied from that Python's LICENSE.txt.
"""

import argparse
import gzip
import json
import platform
import re
import sysconfig
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "posenc_lib" / "data"
CORPUS = DATA / "pydoc_topics.json.gz"
NOTICE = DATA / "pydoc_topics_LICENSE.txt"
LICENSE_NAME = "Python Software Foundation License Version 2"


def psf_license_text(license_file):
    """Cut the PSF license sections out of a CPython LICENSE.txt.

    The terms (part B, PSF License Version 2) and the Zero-Clause BSD license for code in the
    documentation.
    """
    text = Path(license_file).read_text()
    start = text.index("B. TERMS AND CONDITIONS FOR ACCESSING OR OTHERWISE USING PYTHON")
    end = text.index("BEOPEN.COM LICENSE AGREEMENT FOR PYTHON 2.0")
    bsd = text.index("ZERO-CLAUSE BSD LICENSE FOR CODE IN THE PYTHON DOCUMENTATION")
    return text[start:end].rstrip() + "\n\n\n" + text[bsd:].rstrip() + "\n"


def copyright_years(license_text):
    """'2001-2023' from the PSF notice of copyright in a LICENSE.txt."""
    years = re.search(r"Copyright \(c\) ([\d,\s]+) Python Software Foundation", license_text)
    numbers = re.findall(r"\d{4}", years.group(1))
    return f"{numbers[0]}-{numbers[-1]}"


def notice(version, license_text):
    paragraphs = [
        f"posenc_lib/data/pydoc_topics.json.gz holds the text of the module pydoc_data.topics of "
        f"CPython {version}: the topics of Python's interactive help, which are generated from the "
        f"Python documentation. Copyright (c) {copyright_years(license_text)} Python Software "
        f"Foundation; All Rights Reserved. It is distributed under the {LICENSE_NAME}, "
        "reproduced below.",
        "Summary of changes (clause 3 of the license): none to the text. The topics were copied "
        "unchanged into a JSON object (topic name -> text) and gzip-compressed; the course joins "
        "them into one character stream and splits it into training and validation text.",
        "The rest of this file is copied from the LICENSE.txt of that Python.",
    ]
    return "\n\n".join(textwrap.fill(p, 88) for p in paragraphs) + "\n\n" + license_text


def build(corpus=CORPUS, notice_file=NOTICE, license_file=None):
    """Write the frozen corpus and its license notice; return (python version, n topics, n chars)."""
    from pydoc_data import topics

    version = platform.python_version()
    license_file = license_file or Path(sysconfig.get_paths()["stdlib"]) / "LICENSE.txt"
    if not Path(license_file).exists():
        raise SystemExit(
            f"build_corpus: no {license_file}; run this with a Python that ships its LICENSE.txt "
            f"(python.org or pyenv builds do)"
        )
    payload = {
        "source": "pydoc_data.topics",
        "python_version": version,
        "license": f"{LICENSE_NAME}; see {notice_file.name}",
        "topics": dict(sorted(topics.topics.items())),
    }
    raw = json.dumps(payload, ensure_ascii=False, sort_keys=True, indent=0).encode("utf-8")
    Path(corpus).parent.mkdir(parents=True, exist_ok=True)
    Path(corpus).write_bytes(gzip.compress(raw, compresslevel=9, mtime=0))
    Path(notice_file).write_text(notice(version, psf_license_text(license_file)))
    return version, len(payload["topics"]), sum(len(t) for t in payload["topics"].values())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.parse_args(argv)
    version, n_topics, n_chars = build()
    size = CORPUS.stat().st_size
    print(
        f"wrote {CORPUS.relative_to(ROOT)} ({n_topics} topics, {n_chars:,} characters from "
        f"Python {version}; {size:,} bytes) and {NOTICE.relative_to(ROOT)}"
    )


if __name__ == "__main__":
    main()
