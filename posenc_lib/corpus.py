"""Real text for chapter 07: the pages of Python's interactive help, frozen, one token per character.

Every CPython ships the text behind ``help("if")`` in the module ``pydoc_data.topics``: 79
topics of English prose about Python. The course reads a frozen copy of it, made from one Python
by ``tools/build_corpus.py`` (``data/pydoc_topics.json.gz`` in this package, Python Software
Foundation License; ``data/pydoc_topics_LICENSE.txt``), so every Python version trains on the same
characters and nothing is downloaded.

- **Vocabulary**: the characters present in the corpus, sorted by code point; character k has id k.
- **Split**: by topic, then by passage. In alphabetical order every tenth topic, starting with the
  first, is validation text; the rest is training text. Pydoc topics repeat each other's passages
  (``else`` and ``if`` are the same 600 characters, ``identifiers`` holds most of ``id-classes``),
  so every stretch of `SHARED` (32) or more characters of a training topic that also occurs in the
  validation text is cut out of the training text (`shared_mask`): no validation passage of 32
  characters or more was seen in training. Each part is its topics joined with a newline, in
  alphabetical order, as one stream of ids; a cut leaves a newline in its place, and a training
  topic cut away entirely is dropped.
- **Task**: `text_task` samples random windows of the training stream; the target of every
  character is the next one (``metric="loss"``, nats per character; `bits_per_char` converts).
"""

import gzip
import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ._checks import check_choice, check_int, short
from .tasks import Task

CORPUS_FILE = Path(__file__).with_name("data") / "pydoc_topics.json.gz"
NAME = "pydoc-topics"  # the ``task`` of every record trained on this corpus
VALIDATION_EVERY = 10
SEPARATOR = "\n"
SHARED = 32  # a stretch of this many characters in both parts is a shared passage


def read_topics(path=CORPUS_FILE):
    """Read the frozen corpus file: ``source``, ``python_version``, ``license``, ``topics``.

    Parameters
    ----------
    path : str or Path
        A file written by ``tools/build_corpus.py`` (default: the one in this package).

    Returns
    -------
    dict
        ``topics`` maps each topic's name to its text, unchanged.

    Examples
    --------
    >>> frozen = read_topics()
    >>> frozen["source"], frozen["python_version"], len(frozen["topics"])
    ('pydoc_data.topics', '3.11.7', 79)
    >>> frozen["topics"]["pass"][:20]
    'The "pass" statement'
    """
    path = Path(path)
    if not path.exists():
        raise ValueError(
            f"read_topics: path must be a corpus file, got {str(path)!r} (no such file)"
        )
    try:
        data = json.loads(gzip.decompress(path.read_bytes()).decode("utf-8"))
    except (OSError, ValueError) as err:
        raise ValueError(
            f"read_topics: path must be a gzip-compressed JSON corpus file, got {str(path)!r} ({err})"
        ) from None
    missing = {"source", "python_version", "license", "topics"} - set(data)
    if missing:
        raise ValueError(f"read_topics: {str(path)!r} lacks the keys {sorted(missing)}")
    return data


def split_topics(names, every=VALIDATION_EVERY):
    """Split topic names into training and validation.

    In alphabetical order, every ``every``-th name, starting with the first, is validation.

    Parameters
    ----------
    names : iterable of str
        The topic names (a dict of topics gives its keys).
    every : int
        At least 2 (so that some text is left for training).

    Returns
    -------
    train, validation : tuple of str
        Both in alphabetical order.

    Examples
    --------
    >>> split_topics(["d", "a", "c", "b", "e"], every=2)
    (('b', 'd'), ('a', 'c', 'e'))
    """
    every = check_int("split_topics", "every", every, minimum=2)
    if isinstance(names, str):
        raise TypeError(f"split_topics: names must be a collection of topic names, got {names!r}")
    ordered = sorted(names)
    validation = tuple(ordered[::every])
    return tuple(n for n in ordered if n not in validation), validation


@lru_cache(maxsize=8)
def _stretches(reference, min_len):
    return frozenset(reference[i : i + min_len] for i in range(len(reference) - min_len + 1))


def shared_mask(text, reference, min_len=SHARED):
    """Mark the characters of ``text`` inside a stretch of ``min_len`` that occurs in ``reference``.

    Character k is marked when some run ``text[i : i + min_len]`` with i <= k < i + min_len also
    occurs somewhere in ``reference``. Cutting the marked characters out of ``text`` leaves no
    stretch of ``min_len`` characters of ``reference`` inside any unmarked run.

    Parameters
    ----------
    text, reference : str
        The text to mark, and the text its passages are looked up in.
    min_len : int
        The shortest stretch that counts as a shared passage (at least 1).

    Returns
    -------
    ndarray of bool, shape (len(text),)
        True for every character inside a shared stretch.

    Examples
    --------
    >>> mask = shared_mask("one two three four", "xx two three yy", min_len=6)
    >>> "".join(c for c, m in zip("one two three four", mask) if m)
    ' two three '
    >>> shared_mask("abc", "xyz", min_len=2).tolist()
    [False, False, False]
    """
    if not isinstance(text, str) or not isinstance(reference, str):
        raise TypeError(
            f"shared_mask: text and reference must be str, got {type(text).__name__} and "
            f"{type(reference).__name__}"
        )
    min_len = check_int("shared_mask", "min_len", min_len, minimum=1)
    grams = _stretches(reference, min_len)
    starts = [i for i in range(len(text) - min_len + 1) if text[i : i + min_len] in grams]
    cover = np.zeros(len(text) + 1, dtype=np.int64)
    np.add.at(cover, np.asarray(starts, dtype=np.int64), 1)
    np.add.at(cover, np.asarray(starts, dtype=np.int64) + min_len, -1)
    return np.cumsum(cover[:-1]) > 0


def cut_shared(text, reference, min_len=SHARED, separator=SEPARATOR):
    """Cut every passage of ``min_len`` or more characters shared with ``reference`` out of ``text``.

    Each maximal run of marked characters (`shared_mask`) is replaced by ``separator``, and the
    cut is repeated until the result shares no stretch of ``min_len`` with ``reference`` (a
    separator joining two pieces could, in principle, form a new one).

    Parameters
    ----------
    text, reference : str
        The text to cut, and the text it must share no passage with.
    min_len : int
        The shortest stretch that counts as a shared passage (longer than ``separator``).
    separator : str
        What a cut leaves in its place.

    Returns
    -------
    text : str
        What is left; empty when every character was shared.
    n_cut : int
        How many characters of the original ``text`` were cut out.

    Examples
    --------
    >>> cut_shared("one two three four", "xx two three yy", min_len=6, separator="|")
    ('one|four', 11)
    >>> cut_shared("same text", "same text", min_len=4)
    ('', 9)
    """
    if not isinstance(separator, str) or len(separator) >= check_int(
        "cut_shared", "min_len", min_len, minimum=1
    ):
        raise ValueError(
            f"cut_shared: separator must be a str shorter than min_len={min_len}, got {separator!r}"
        )
    keep = np.ones(len(text), dtype=bool)
    while True:
        pieces, origin = [], []
        edges = np.flatnonzero(np.diff(np.concatenate([[0], keep.astype(np.int8), [0]])))
        for first, stop in zip(edges[::2], edges[1::2], strict=True):
            if pieces:
                pieces.append(separator)
                origin.extend([-1] * len(separator))
            pieces.append(text[first:stop])
            origin.extend(range(first, stop))
        result, origin = "".join(pieces), np.asarray(origin, dtype=np.int64)
        mask = shared_mask(result, reference, min_len)
        if not mask.any():
            return result, int(np.sum(~keep))
        hit = origin[mask]
        keep[hit[hit >= 0]] = False


@dataclass(frozen=True, eq=False, repr=False)
class CharCorpus:
    """A character-level corpus: its alphabet and its training and validation streams of ids.

    Made by `load_corpus`. ``alphabet[k]`` is the character of id k; ``train`` and
    ``validation`` are read-only int64 arrays of ids.

    Parameters
    ----------
    name : str
        The corpus's name, the ``task`` of the records trained on it (`NAME`).
    python_version : str
        The Python whose help pages the corpus holds.
    alphabet : str
        Every character of the corpus once, in code point order (`encode` relies on the
        order).
    train_topics, validation_topics : tuple of str
        The topics of each part, in alphabetical order (a training topic whose every character
        was cut, `cut_shared`, is not listed).
    train, validation : ndarray of int64
        Each part as one stream of ids: its topics joined with a newline.
    n_cut : int
        Characters cut out of the training topics because they sat in a passage shared with the
        validation text.
    validation_spans : tuple of (str, int, int)
        Each validation topic with the start and stop of its text in ``validation``.

    Examples
    --------
    >>> corpus = load_corpus()
    >>> corpus.vocab_size, corpus.alphabet[16:26], corpus.alphabet[-9:]
    (103, '0123456789', '°ß–—‘’“”…')
    >>> corpus.train_topics[:3], corpus.train.dtype, corpus.train.flags.writeable
    (('assignment', 'async', 'atom-identifiers'), dtype('int64'), False)
    >>> corpus.decode(corpus.split("train")[:21])  # the first training topic's title
    'Assignment statements'

    A corpus can also be made by hand:

    >>> toy = CharCorpus("toy", "3.11.7", " abc", ("t",), ("v",), np.array([1, 2, 0, 3]),
    ...                  np.array([3, 1]))
    >>> toy
    CharCorpus('toy' from Python 3.11.7: 4 characters; 4 training characters in 1 topics, 2 validation characters in 1 topics)
    >>> toy.decode(toy.train), toy.encode("cab").tolist()
    ('ab c', [3, 1, 2])
    """

    name: str
    python_version: str
    alphabet: str
    train_topics: tuple
    validation_topics: tuple
    train: np.ndarray
    validation: np.ndarray
    n_cut: int = 0
    validation_spans: tuple = ()

    @property
    def vocab_size(self):
        """Return the number of distinct characters (the model's vocabulary)."""
        return len(self.alphabet)

    def __repr__(self):
        """Describe the corpus in one line: its source, vocabulary and split."""
        return (
            f"CharCorpus({self.name!r} from Python {self.python_version}: {self.vocab_size} "
            f"characters; {len(self.train):,} training characters in {len(self.train_topics)} "
            f"topics, {len(self.validation):,} validation characters in "
            f"{len(self.validation_topics)} topics)"
        )

    def split(self, which):
        """Return the ids of ``"train"`` or ``"validation"``.

        Parameters
        ----------
        which : {"train", "validation"}
            The part of the corpus.

        Returns
        -------
        ndarray of int64
            The part's stream of ids (read-only in a corpus from `load_corpus`).

        Examples
        --------
        >>> corpus = load_corpus()
        >>> corpus.split("validation") is corpus.validation
        True
        """
        check_choice("CharCorpus.split", "which", which, ("train", "validation"))
        return self.train if which == "train" else self.validation

    def encode(self, text):
        """Return the ids of the characters of ``text`` (int64 array).

        Parameters
        ----------
        text : str
            Characters of the corpus's alphabet only (otherwise ValueError names the first
            other one).

        Returns
        -------
        ndarray of int64, shape (len(text),)

        Examples
        --------
        >>> corpus = load_corpus()
        >>> corpus.encode("help").tolist()
        [71, 68, 75, 79]
        >>> corpus.decode(corpus.encode("help()"))
        'help()'
        """
        if not isinstance(text, str):
            raise TypeError(f"CharCorpus.encode: text must be a str, got {type(text).__name__}")
        codes = np.frombuffer(text.encode("utf-32-le"), dtype="<u4").astype(np.int64)
        alphabet = np.frombuffer(self.alphabet.encode("utf-32-le"), dtype="<u4").astype(np.int64)
        ids = np.minimum(np.searchsorted(alphabet, codes), len(alphabet) - 1)
        unknown = np.flatnonzero(alphabet[ids] != codes)
        if unknown.size:
            k = int(unknown[0])
            raise ValueError(
                f"CharCorpus.encode: text must use the corpus's {self.vocab_size} characters, got "
                f"{text[k]!r} at index {k}"
            )
        return ids

    def decode(self, ids):
        """Return the text of an array of ids.

        Parameters
        ----------
        ids : array_like of int
            Ids in 0 .. vocab_size - 1, of any shape (read in row-major order).

        Returns
        -------
        str

        Examples
        --------
        >>> corpus = load_corpus()
        >>> corpus.decode([71, 68, 75, 79])
        'help'
        """
        array = np.asarray(ids)
        if array.dtype == bool or not np.issubdtype(array.dtype, np.integer):
            raise TypeError(f"CharCorpus.decode: ids must be integers, got dtype {array.dtype}")
        if array.size and (array.min() < 0 or array.max() >= self.vocab_size):
            bad = array[(array < 0) | (array >= self.vocab_size)].flat[0]
            raise ValueError(
                f"CharCorpus.decode: ids must be in 0..{self.vocab_size - 1}, got {int(bad)}"
            )
        return "".join(self.alphabet[i] for i in array.ravel())


@lru_cache(maxsize=4)
def _load(path, every):
    frozen = read_topics(path)
    topics = frozen["topics"]
    train_names, validation_names = split_topics(topics, every)
    alphabet = "".join(sorted(set("".join(topics.values())) | {SEPARATOR}))
    skeleton = CharCorpus(NAME, frozen["python_version"], alphabet, (), (), None, None)
    validation_text = SEPARATOR.join(topics[n] for n in validation_names)
    kept, n_cut = {}, 0
    for name in train_names:
        text, cut = cut_shared(topics[name], validation_text)
        n_cut += cut
        if text:
            kept[name] = text
    spans, first = [], 0
    for name in validation_names:
        spans.append((name, first, first + len(topics[name])))
        first += len(topics[name]) + len(SEPARATOR)

    def stream(text):
        ids = skeleton.encode(text)
        ids.setflags(write=False)
        return ids

    return CharCorpus(
        NAME,
        frozen["python_version"],
        alphabet,
        tuple(kept),
        validation_names,
        stream(SEPARATOR.join(kept.values())),
        stream(validation_text),
        n_cut=n_cut,
        validation_spans=tuple(spans),
    )


def load_corpus(path=CORPUS_FILE, *, every=VALIDATION_EVERY):
    """Load the frozen pydoc topics as a character-level corpus with a training/validation split.

    Parameters
    ----------
    path : str or Path
        The corpus file (default: the one shipped in this package).
    every : int
        Every ``every``-th topic in alphabetical order, starting with the first, is validation.

    Returns
    -------
    CharCorpus
        Loaded once per (path, every) and shared; its arrays are read-only.

    Examples
    --------
    >>> corpus = load_corpus()
    >>> corpus
    CharCorpus('pydoc-topics' from Python 3.11.7: 103 characters; 426,506 training characters in 70 topics, 32,153 validation characters in 8 topics)
    >>> corpus.validation_topics[:4]
    ('assert', 'bitwise', 'comparisons', 'else')
    >>> corpus.n_cut, "if" in corpus.train_topics  # "if" is the text of "else", cut whole
    (6441, False)
    """
    every = check_int("load_corpus", "every", every, minimum=2)
    return _load(str(path), every)


def text_task(corpus=None, split="train"):
    """Next-character prediction on random windows of one part of a corpus, as a `Task`.

    ``task.sample(rng, batch, length)`` draws ``batch`` windows of ``length + 1`` consecutive
    characters at uniformly random starts: the first ``length`` are the tokens, the last
    ``length`` the targets (each character's next one). Scored by loss in nats per character.

    Parameters
    ----------
    corpus : CharCorpus, optional
        Default: `load_corpus`'s.
    split : {"train", "validation"}
        The part of the corpus sampled.

    Returns
    -------
    Task
        Named after the corpus (``task.name``), with its vocabulary, ``metric="loss"`` and the
        sampler described above.

    Examples
    --------
    >>> task = text_task()
    >>> tokens, targets = task.sample(0, 2, 8)
    >>> bool(np.all(tokens[:, 1:] == targets[:, :-1])), task.vocab_size, task.metric
    (True, 103, 'loss')
    >>> tokens.shape, task.name
    ((2, 8), 'pydoc-topics')
    """
    corpus = load_corpus() if corpus is None else corpus
    if not isinstance(corpus, CharCorpus):
        raise TypeError(f"text_task: corpus must be a CharCorpus, got {type(corpus).__name__}")
    ids = corpus.split(check_choice("text_task", "split", split, ("train", "validation")))

    def sampler(rng, batch, length):
        if length >= len(ids):
            raise ValueError(
                f"{corpus.name}.sample: length must be < {len(ids)} (the {split} text), got {length}"
            )
        starts = rng.integers(0, len(ids) - length, size=batch)
        windows = ids[starts[:, None] + np.arange(length + 1)]
        return windows[:, :-1], windows[:, 1:]

    return Task(
        corpus.name,
        corpus.vocab_size,
        "loss",
        sampler,
        f"predict the next character of Python's help pages ({split} text)",
    )


def bits_per_char(nats):
    """Convert a loss in nats per character to bits per character: ``nats / ln 2``.

    Parameters
    ----------
    nats : float, list of float or ndarray
        Loss in nats per character (e.g. `train`'s losses, or a `Task` of metric "loss"): finite
        and >= 0, as a cross-entropy is.

    Returns
    -------
    float or ndarray
        The same loss in bits per character: a float for a number, an array of the same shape
        for a list or an array.

    Examples
    --------
    >>> bits_per_char(math.log(2))
    1.0
    >>> round(bits_per_char(1.5), 4)
    2.164
    >>> bits_per_char(np.array([math.log(2), math.log(4)]))
    array([1., 2.])
    >>> bits_per_char([0.0, math.log(8)])
    array([0., 3.])
    """
    func = "bits_per_char"
    allowed = "a real number >= 0 or a list or array of them (a loss in nats per character)"
    try:
        array = np.asarray(nats)  # a str becomes an array of kind "U", refused below
    except (TypeError, ValueError):  # a ragged list
        array = np.asarray(None)
    if isinstance(nats, bool | np.bool_) or array.dtype.kind not in "iuf":
        raise TypeError(f"{func}: nats must be {allowed}, got {short(nats)}")
    array = array.astype(np.float64)
    bad = ~np.isfinite(array) | (array < 0)
    if np.any(bad):
        index = tuple(np.argwhere(bad)[0].tolist())
        where = f" at index {index}" if index else ""
        raise ValueError(f"{func}: nats must be {allowed}, got {array[index]}{where}")
    bits = array / math.log(2)
    return float(bits) if bits.ndim == 0 else bits
