"""Argument checks beside `posenc_lib._checks`: sequences of choices, and what memory allows.

Every message names the function the learner called, the argument, the value received and what
is allowed, as `posenc_lib._checks` writes them.
"""

import os

from ._checks import check_choice, check_int, short

GIB = 2**30


def check_sequence(func, name, value, *, allowed=None, minimum=None, unique=True):
    """Return ``value`` as a list: a non-empty sequence (not a string) of choices or integers.

    Parameters
    ----------
    func : str
        The function the learner called (named in the error).
    name : str
        The argument.
    value : object
        What the learner passed.
    allowed : sequence, optional
        The choices each item must be one of; without it, each item is an integer.
    minimum : int, optional
        The least integer allowed (without ``allowed``).
    unique : bool
        Refuse an item given twice.

    Returns
    -------
    list

    Raises
    ------
    TypeError
        If ``value`` is a string, a dict or not a sequence, or an item is not an integer.
    ValueError
        If ``value`` is empty, an item is not allowed, or an item repeats. An item is named by
        its index.

    Examples
    --------
    >>> check_sequence("f", "seeds", (0, 1), minimum=0)
    [0, 1]
    >>> check_sequence("f", "tasks", "markov", allowed=("markov",))
    Traceback (most recent call last):
    ...
    TypeError: f: tasks must be a sequence of names, got 'markov'
    >>> check_sequence("f", "seeds", [0, -1], minimum=0)
    Traceback (most recent call last):
    ...
    ValueError: f: seeds[1] must be an integer >= 0, got -1
    """
    if isinstance(value, str | bytes | dict) or not hasattr(value, "__iter__"):
        what = "names" if allowed is not None else "integers"
        raise TypeError(f"{func}: {name} must be a sequence of {what}, got {short(value)}")
    items = list(value)
    if not items:
        raise ValueError(f"{func}: {name} must not be empty, got {short(value)}")
    out = []
    for index, item in enumerate(items):
        label = f"{name}[{index}]"
        if allowed is not None:
            out.append(check_choice(func, label, item, allowed))
        else:
            out.append(check_int(func, label, item, minimum=minimum))
    if unique and len(set(out)) != len(out):
        twice = next(item for item in out if out.count(item) > 1)
        raise ValueError(f"{func}: {name} must not repeat an item, got {twice!r} twice")
    return out


def physical_memory():
    """Return the bytes of memory this machine has.

    Returns
    -------
    int or None
        None where the system does not say (Windows).

    Examples
    --------
    >>> physical_memory() is None or physical_memory() > 2**20
    True
    """
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def check_memory(func, n_bytes, what):
    """Refuse work whose arrays would need more memory than the machine has, saying how much.

    Parameters
    ----------
    func : str
        The function the learner called (named in the error).
    n_bytes : int
        The memory the work needs.
    what : str
        What needs it: the arguments and the arrays, e.g. "seq_len=100000 and n_heads=8 (the
        (8, 100000, 100000) bias)".

    Returns
    -------
    int
        ``n_bytes``.

    Raises
    ------
    ValueError
        If the machine has less memory than ``n_bytes``.

    Examples
    --------
    >>> check_memory("f", 8, "x")
    8
    >>> check_memory("f", 2**70, "seq_len=2**35 (the distances)")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: f: seq_len=2**35 (the distances) need 1099511627776.0 GiB of memory, more than ...
    """
    have = physical_memory()
    if have is not None and n_bytes > have:
        raise ValueError(
            f"{func}: {what} need {n_bytes / GIB:.1f} GiB of memory, more than this machine's "
            f"{have / GIB:.1f} GiB"
        )
    return n_bytes
