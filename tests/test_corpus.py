"""Chapter 07's corpus: the frozen pydoc topics, their license notice, the character vocabulary,
the split by topic and the next-character task."""

import gzip
import importlib.util
import json
import math
import platform
import re
import sysconfig
from pathlib import Path

import numpy as np
import pytest

from posenc_lib import corpus as corpus_module
from posenc_lib.corpus import (
    CORPUS_FILE,
    SEPARATOR,
    SHARED,
    bits_per_char,
    cut_shared,
    load_corpus,
    read_topics,
    shared_mask,
    split_topics,
    text_task,
)

ROOT = Path(__file__).resolve().parents[1]
NOTICE = CORPUS_FILE.with_name("pydoc_topics_LICENSE.txt")


def load_build_script():
    spec = importlib.util.spec_from_file_location(
        "build_corpus", ROOT / "tools" / "build_corpus.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def corpus():
    return load_corpus()


# -- the frozen file --------------------------------------------------------------------------


def test_the_frozen_file_is_compressed_to_about_135_kb_and_names_its_source_and_python():
    assert 100_000 < CORPUS_FILE.stat().st_size < 170_000
    frozen = read_topics()
    assert frozen["source"] == "pydoc_data.topics"
    assert frozen["python_version"].count(".") == 2
    assert "Python Software Foundation License" in frozen["license"]
    assert len(frozen["topics"]) == 79
    assert 400_000 < sum(len(t) for t in frozen["topics"].values()) < 500_000


def test_the_license_notice_carries_the_psf_license_and_the_python_version():
    text = NOTICE.read_text()
    assert f"CPython {read_topics()['python_version']}" in text
    assert "PYTHON SOFTWARE FOUNDATION LICENSE VERSION 2" in text
    assert "ZERO-CLAUSE BSD LICENSE FOR CODE IN THE PYTHON DOCUMENTATION" in text
    assert "Summary of changes" in text


def test_the_package_data_ships_the_corpus_and_its_notice():
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"data/*.json.gz", "data/*.txt"' in pyproject
    assert CORPUS_FILE.parent == Path(corpus_module.__file__).parent / "data"


@pytest.mark.skipif(
    platform.python_version() != read_topics()["python_version"],
    reason="the frozen copy comes from another Python version (that is why it is frozen)",
)
def test_the_frozen_topics_equal_pydoc_data_topics_of_the_python_that_made_them():
    from pydoc_data import topics

    assert read_topics()["topics"] == topics.topics


@pytest.mark.skipif(
    platform.python_version() != read_topics()["python_version"]
    or not (Path(sysconfig.get_paths()["stdlib"]) / "LICENSE.txt").exists(),
    reason="the build script reproduces the bytes only on the Python they came from",
)
def test_the_build_script_reproduces_the_committed_files_byte_for_byte(tmp_path):
    build = load_build_script()
    build.build(tmp_path / "c.json.gz", tmp_path / "pydoc_topics_LICENSE.txt")
    assert (tmp_path / "c.json.gz").read_bytes() == CORPUS_FILE.read_bytes()
    assert (tmp_path / "pydoc_topics_LICENSE.txt").read_text() == NOTICE.read_text()


def test_read_topics_names_a_missing_or_broken_file(tmp_path):
    with pytest.raises(ValueError, match=r"read_topics: path must be a corpus file, got .*nope"):
        read_topics(tmp_path / "nope.json.gz")
    broken = tmp_path / "broken.json.gz"
    broken.write_bytes(b"not gzip")
    with pytest.raises(ValueError, match="read_topics: path must be a gzip-compressed JSON"):
        read_topics(broken)
    partial = tmp_path / "partial.json.gz"
    partial.write_bytes(gzip.compress(json.dumps({"topics": {}}).encode()))
    with pytest.raises(ValueError, match="lacks the keys"):
        read_topics(partial)


# -- vocabulary and split -----------------------------------------------------------------------


def test_the_vocabulary_is_every_character_of_the_corpus_in_code_point_order(corpus):
    topics = read_topics()["topics"]
    assert corpus.alphabet == "".join(sorted(set("".join(topics.values())) | {SEPARATOR}))
    assert corpus.vocab_size == 103


def test_every_tenth_topic_in_alphabetical_order_is_validation_and_no_topic_is_in_both(corpus):
    names = sorted(read_topics()["topics"])
    assert corpus.validation_topics == tuple(names[::10])
    assert set(corpus.train_topics).isdisjoint(corpus.validation_topics)
    # "if" is the same 600 characters as the validation topic "else": cut whole from training
    assert set(corpus.train_topics) | set(corpus.validation_topics) == set(names) - {"if"}


def stretches(text, length):
    return {text[i : i + length] for i in range(len(text) - length + 1)}


@pytest.mark.parametrize("length", [64, SHARED])
def test_no_stretch_of_validation_text_occurs_in_the_training_text(corpus, length):
    """The held-out text shares no passage with the training text: not one run of 64 (or 32)
    validation characters occurs anywhere in the training stream."""
    validation = stretches(corpus.decode(corpus.validation), length)
    train = corpus.decode(corpus.train)
    shared = [train[i : i + length] for i in range(len(train) - length + 1)]
    assert not validation.intersection(shared)


def test_the_uncut_topics_did_share_passages_so_the_cut_is_needed(corpus):
    """Before the cut, pydoc topics repeat each other: "if" is "else", and the training topics
    held thousands of characters of validation passages."""
    topics = read_topics()["topics"]
    assert topics["if"] == topics["else"]
    uncut = SEPARATOR.join(topics[n] for n in sorted(topics) if n not in corpus.validation_topics)
    assert stretches(corpus.decode(corpus.validation), 64) & stretches(uncut, 64)
    assert corpus.n_cut == 6441
    assert len(uncut) - len(corpus.train) > 6000


def test_validation_topics_are_whole_and_training_topics_lose_only_shared_passages(corpus):
    topics = read_topics()["topics"]
    validation = SEPARATOR.join(topics[n] for n in corpus.validation_topics)
    assert corpus.decode(corpus.validation) == validation
    train = corpus.decode(corpus.train)
    for name in ("pass", "compound", "id-classes"):
        kept, _ = cut_shared(topics[name], validation)
        assert kept in train
    assert cut_shared(topics["lambda"], validation) == (topics["lambda"], 0)
    for name, first, stop in corpus.validation_spans:
        assert validation[first:stop] == topics[name]


def test_shared_mask_marks_exactly_the_characters_of_shared_stretches():
    mask = shared_mask("abcdefgh", "xxcdefyy", min_len=3)
    assert mask.tolist() == [False, False, True, True, True, True, False, False]
    assert not shared_mask("abcdefgh", "xxcdyy", min_len=3).any()
    assert shared_mask("", "abc", min_len=2).shape == (0,)


def test_cut_shared_leaves_no_shared_stretch_even_across_its_separators():
    # cutting "cde" and "ghi" joins "ab", "f" and "jk" by "-": "b-f" occurs in the reference
    text, n_cut = cut_shared("abcdefghijk", "cde ghi b-f-", min_len=3, separator="-")
    assert not shared_mask(text, "cde ghi b-f-", min_len=3).any()
    assert n_cut >= 6
    assert cut_shared("abc", "abc", min_len=2) == ("", 3)


def test_each_stream_is_its_topics_joined_with_newlines_and_decodes_back(corpus):
    topics = read_topics()["topics"]
    names = corpus.validation_topics
    assert corpus.decode(corpus.validation) == SEPARATOR.join(topics[n] for n in names)
    validation = corpus.decode(corpus.validation)
    kept = [cut_shared(topics[n], validation)[0] for n in corpus.train_topics]
    assert corpus.decode(corpus.train) == SEPARATOR.join(kept)
    assert 0.05 < len(corpus.validation) / (len(corpus.train) + len(corpus.validation)) < 0.1


def test_the_split_is_the_same_on_every_load(corpus):
    corpus_module._load.cache_clear()
    again = load_corpus()
    assert again is not corpus
    assert np.array_equal(again.train, corpus.train)
    assert np.array_equal(again.validation, corpus.validation)


def test_the_streams_are_read_only(corpus):
    with pytest.raises(ValueError):
        corpus.train[0] = 1
    assert corpus.train.dtype == np.int64


def test_split_topics_holds_out_every_kth_name_starting_with_the_first():
    train, validation = split_topics([f"t{k:02d}" for k in range(25)], every=10)
    assert validation == ("t00", "t10", "t20")
    assert len(train) == 22


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda c: split_topics(["a", "b"], every=1), ValueError, "split_topics: every must be"),
        (lambda c: split_topics("abc"), TypeError, "split_topics: names must be a collection"),
        (lambda c: load_corpus(every=2.5), TypeError, "load_corpus: every must be an integer"),
        (lambda c: c.encode(42), TypeError, "CharCorpus.encode: text must be a str, got int"),
        (lambda c: c.encode("ab\tc"), ValueError, r"got '\\t' at index 2"),
        (lambda c: c.decode([0, 103]), ValueError, r"ids must be in 0\.\.102, got 103"),
        (lambda c: c.decode([0.5]), TypeError, "CharCorpus.decode: ids must be integers"),
        (lambda c: c.split("test"), ValueError, "CharCorpus.split: which must be one of"),
        (lambda c: text_task("text"), TypeError, "text_task: corpus must be a CharCorpus"),
        (lambda c: text_task(c, "dev"), ValueError, "text_task: split must be one of"),
        (lambda c: text_task(c).sample(0, 1, 10**6), ValueError, "length must be < 426506"),
        (lambda c: shared_mask(b"ab", "ab"), TypeError, "shared_mask: text and reference must"),
        (lambda c: shared_mask("ab", "ab", 0), ValueError, "shared_mask: min_len must be"),
        (lambda c: cut_shared("ab", "ab", 2, "--"), ValueError, "cut_shared: separator must"),
        (lambda c: bits_per_char("1.0"), TypeError, "bits_per_char: nats must be a real number"),
    ],
)
def test_bad_arguments_raise_naming_the_function_argument_and_value(corpus, call, error, message):
    with pytest.raises(error, match=message):
        call(corpus)


# -- the task ------------------------------------------------------------------------------------


def test_text_task_windows_are_consecutive_training_text_and_targets_the_next_character(corpus):
    tokens, targets = text_task(corpus).sample(3, 4, 32)
    text = corpus.decode(corpus.train)
    for row, target in zip(tokens, targets, strict=True):
        window = corpus.decode(row)
        assert window in text
        assert corpus.decode(target)[:-1] == window[1:]
        start = text.index(window)
        assert corpus.decode(target) == text[start + 1 : start + 33]


def test_text_task_draws_the_same_windows_from_the_same_seed_and_others_from_another(corpus):
    task = text_task(corpus)
    first, second, other = task.sample(7, 2, 16), task.sample(7, 2, 16), task.sample(8, 2, 16)
    assert np.array_equal(first[0], second[0])
    assert not np.array_equal(first[0], other[0])


def test_the_validation_task_samples_validation_text_only(corpus):
    tokens, _ = text_task(corpus, "validation").sample(0, 3, 40)
    text = corpus.decode(corpus.validation)
    assert all(corpus.decode(row) in text for row in tokens)


def test_bits_per_char_divides_nats_by_ln_2():
    assert bits_per_char(math.log(2)) == 1.0
    assert np.allclose(bits_per_char(np.array([0.0, math.log(4)])), [0.0, 2.0])


# -- what the mutation run found unchecked ------------------------------------------------------


def test_split_topics_takes_every_second_name_at_the_lowest_every_allowed():
    assert split_topics(["d", "a", "c", "b", "e"], every=2) == (("b", "d"), ("a", "c", "e"))


def test_encode_names_a_character_beyond_the_last_of_the_alphabet(corpus):
    # The last character of the alphabet is '…' (U+2026): searchsorted puts the emoji past it.
    assert max(corpus.alphabet) < "\U0001f600"
    with pytest.raises(ValueError, match=r"got '\U0001f600' at index 2$"):
        corpus.encode("ab\U0001f600")


def test_read_topics_names_the_broken_file(tmp_path):
    broken = tmp_path / "broken.json.gz"
    broken.write_bytes(b"not gzip")
    with pytest.raises(ValueError, match=r"JSON corpus file, got '.*broken\.json\.gz' \("):
        read_topics(broken)


def test_read_topics_names_the_file_that_lacks_keys(tmp_path):
    partial = tmp_path / "partial.json.gz"
    partial.write_bytes(gzip.compress(json.dumps({"topics": {}}).encode()))
    with pytest.raises(ValueError, match=r"^read_topics: '.*partial\.json\.gz' lacks the keys"):
        read_topics(partial)


def test_load_corpus_takes_every_second_topic_at_the_lowest_every_allowed(corpus):
    with pytest.raises(ValueError, match=r"^load_corpus: every must be an integer >= 2, got 1$"):
        load_corpus(every=1)
    halves = load_corpus(every=2)
    assert halves.validation.size > corpus.validation.size
    topics = set(halves.train_topics) | set(halves.validation_topics)
    assert not set(halves.train_topics) & set(halves.validation_topics)
    assert topics <= set(corpus.train_topics) | set(corpus.validation_topics) | {"if"}
    assert halves.validation.size + halves.train.size + halves.n_cut >= corpus.validation.size


# -- the cut's and the sampler's edges (from the mutation run) -------------------------------------


def test_a_separator_that_joins_a_new_shared_passage_is_cut_with_its_neighbours():
    # "QQQ" is shared; cutting it joins "a" and "b" with the separator into "a|b", also shared:
    # the second cut takes "a" and "b" (the separator is not a character of the original)
    assert cut_shared("pqaQQQbrs", "QQQ a|b", min_len=3, separator="|") == ("pq|rs", 5)


def test_cut_and_mask_work_down_to_single_characters_and_refuse_less():
    assert cut_shared("abc", "b", min_len=1, separator="") == ("ac", 1)
    assert shared_mask("abc", "b", min_len=1).tolist() == [False, True, False]
    for func, call in [
        ("cut_shared", lambda: cut_shared("abc", "b", min_len=0, separator="")),
        ("shared_mask", lambda: shared_mask("abc", "b", min_len=0)),
    ]:
        with pytest.raises(ValueError, match=f"^{func}: min_len must be an integer >= 1, got 0$"):
            call()


def test_shared_mask_names_the_types_it_was_given():
    with pytest.raises(
        TypeError, match="^shared_mask: text and reference must be str, got int and str$"
    ):
        shared_mask(1, "a")
    with pytest.raises(
        TypeError, match="^shared_mask: text and reference must be str, got str and list$"
    ):
        shared_mask("a", ["a"])


def test_the_text_task_reads_the_course_corpus_by_default_and_describes_its_split():
    task = text_task()
    assert (task.name, task.vocab_size, task.metric) == ("pydoc-topics", 103, "loss")
    assert task.description == "predict the next character of Python's help pages (train text)"
    validation = text_task(load_corpus(), "validation")
    assert validation.description.endswith("(validation text)")
    tokens, targets = task.sample(np.random.default_rng(0), 2, 5)
    assert tokens.shape == targets.shape == (2, 5)
    with pytest.raises(TypeError, match="^text_task: corpus must be a CharCorpus, got str$"):
        text_task("pydoc-topics")


def test_the_text_task_draws_windows_up_to_one_character_shorter_than_its_text():
    corpus = load_corpus()
    text = corpus.split("validation")
    task = text_task(corpus, "validation")
    longest = len(text) - 1  # one window fits: it starts at 0
    tokens, targets = task.sample(np.random.default_rng(0), 3, longest)
    assert (tokens == text[:-1]).all() and (targets == text[1:]).all()
    message = f"pydoc-topics.sample: length must be < {len(text)} (the validation text), got"
    with pytest.raises(ValueError, match=f"^{re.escape(message)} {len(text)}$"):
        task.sample(np.random.default_rng(0), 1, len(text))
