"""Numerics shared by attention and the model: one softmax and one log-softmax for the library.

Each takes ``xp``, numpy or ``autograd.numpy``, so the trainer of chapter 6 differentiates through
the same code that chapter 1 teaches. Internal: the checked, learner-facing versions are
`posenc_lib.attention.softmax` and `~posenc_lib.attention.log_softmax`.
"""

import numpy as np


def plain(x):
    """Return the numbers inside ``x``: an autograd-traced array's values, or ``x`` itself.

    The trainer of chapter 6 runs the same softmax on autograd's traced arrays; a softmax's
    shift (the row maximum) is a constant, so the gradient need not flow through it.

    Parameters
    ----------
    x : array_like or autograd ArrayBox

    Returns
    -------
    array_like
        ``x._value`` for a traced array, else ``x``.

    Examples
    --------
    >>> plain(np.ones(2))
    array([1., 1.])
    """
    return getattr(x, "_value", x)


def _row_shift(x, axis):
    """Return the maximum along ``axis`` (0 where it is infinite), a constant for the gradient."""
    shift = np.max(plain(x), axis=axis, keepdims=True)
    return np.where(np.isfinite(shift), shift, 0.0)


def stable_softmax(x, axis=-1, *, xp=np):
    """Return the softmax of `~posenc_lib.attention.softmax`, unchecked, with ``xp`` as the array module.

    ``xp`` is numpy, or ``autograd.numpy`` when the trainer differentiates through it: the one
    implementation of the softmax in the library.

    Parameters
    ----------
    x : ndarray or autograd ArrayBox
    axis : int
    xp : module
        ``numpy`` or ``autograd.numpy``.

    Returns
    -------
    ndarray
        Same shape as ``x``.

    Examples
    --------
    >>> stable_softmax(np.array([0.0, np.log(3.0)]))
    array([0.25, 0.75])
    """
    e = xp.exp(x - _row_shift(x, axis))
    return e / xp.sum(e, axis=axis, keepdims=True)


def stable_log_softmax(x, axis=-1, *, xp=np):
    """Return the log-softmax of `~posenc_lib.attention.log_softmax`, unchecked, with ``xp`` as the array module.

    ``log softmax(x) = x - logsumexp(x)``, computed after subtracting the maximum along ``axis``
    so that nothing overflows: the one log-sum-exp of the library (the model's loss and its
    evaluation use it).

    Parameters
    ----------
    x : ndarray or autograd ArrayBox
    axis : int
    xp : module
        ``numpy`` or ``autograd.numpy``.

    Returns
    -------
    ndarray
        Same shape as ``x``.

    Examples
    --------
    >>> np.exp(stable_log_softmax(np.array([0.0, np.log(3.0)])))
    array([0.25, 0.75])
    """
    shifted = x - _row_shift(x, axis)
    return shifted - xp.log(xp.sum(xp.exp(shifted), axis=axis, keepdims=True))
