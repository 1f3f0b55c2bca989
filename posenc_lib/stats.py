"""Reading paired per-seed differences: a 95% interval for their mean, and a sign test.

Two schemes trained with the same seed saw the same data, so the course compares them seed by
seed (`posenc_lib.records.paired_differences`). With n seeds the differences d_1 .. d_n give

- the **paired t interval** for the mean difference: mean(d) +- t * sd(d) / sqrt(n), where t is
  Student's t quantile with n - 1 degrees of freedom (`t_quantile`). It assumes the differences
  scatter roughly symmetrically around their mean;
- the **sign test**: how likely k or more of n seeds favour one side when either side is equally
  likely to win each seed (`sign_test`). It assumes nothing about the sizes.

A verdict "A beats B" is *established* (at 95%) when the interval excludes zero; otherwise it is
"not established", whatever the mean says. Student's t distribution function for an integer number
of degrees of freedom has a closed form (Abramowitz and Stegun 26.7.3 and 26.7.4), so no
statistics library is needed; the quantile is found by bisection.
"""

import math

import numpy as np

from ._checks import check_int, short


def t_cdf(t, df):
    """Return P(T <= t) for Student's t distribution with ``df`` degrees of freedom (an integer).

    Parameters
    ----------
    t : float
    df : int
        Degrees of freedom, at least 1.

    Returns
    -------
    float

    Examples
    --------
    >>> round(t_cdf(0.0, 5), 12), round(t_cdf(1.0, 1), 12)  # the median; Cauchy: 1/2 + atan(1)/pi
    (0.5, 0.75)
    >>> round(t_cdf(2.262157, 9), 4)
    0.975
    """
    df = check_int("t_cdf", "df", df, minimum=1)
    theta = math.atan2(t, math.sqrt(df))
    s, c = math.sin(theta), math.cos(theta)
    if df % 2 == 1:  # A&S 26.7.4: A = (2/pi) (theta + s (c + (2/3) c^3 + ...))
        term, total = c, c if df > 1 else 0.0
        for k in range(3, df - 1, 2):
            term *= c * c * (k - 1) / k
            total += term
        area = 2 / math.pi * (theta + s * total)
    else:  # A&S 26.7.3: A = s (1 + (1/2) c^2 + (1 3)/(2 4) c^4 + ...)
        term, total = 1.0, 1.0
        for k in range(2, df - 1, 2):
            term *= c * c * (k - 1) / k
            total += term
        area = s * total
    return 0.5 + area / 2  # area = P(-|t| < T < |t|) with the sign of t


def t_quantile(p, df):
    """Return the t with P(T <= t) = p for Student's t distribution (bisection on `t_cdf`).

    Parameters
    ----------
    p : float
        A probability strictly between 0 and 1.
    df : int
        Degrees of freedom, at least 1.

    Returns
    -------
    float

    Examples
    --------
    >>> [round(t_quantile(0.975, df), 3) for df in (1, 2, 4, 9, 29)]  # the tables' values
    [12.706, 4.303, 2.776, 2.262, 2.045]
    """
    if not isinstance(p, int | float) or not 0 < p < 1:
        raise ValueError(
            f"t_quantile: p must be a probability strictly between 0 and 1, got {short(p)}"
        )
    df = check_int("t_quantile", "df", df, minimum=1)
    lo, hi = -1.0, 1.0
    while t_cdf(lo, df) > p:
        lo *= 2
    while t_cdf(hi, df) < p:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12:
            break
    return (lo + hi) / 2


def sign_test(wins, n):
    """Two-sided exact sign test: P(a split at least this uneven) when each side wins half the time.

    Parameters
    ----------
    wins : int
        Seeds favouring one side (ties left out of ``n``).
    n : int
        Seeds that favour either side.

    Returns
    -------
    float
        The two-sided p-value (at most 1).

    Examples
    --------
    >>> round(sign_test(10, 10), 4), round(sign_test(9, 10), 4), sign_test(3, 3)
    (0.002, 0.0215, 0.25)
    """
    n = check_int("sign_test", "n", n, minimum=0)
    wins = check_int("sign_test", "wins", wins, minimum=0)
    if wins > n:
        raise ValueError(f"sign_test: wins must be at most n={n}, got {wins}")
    if n == 0:
        return 1.0
    k = max(wins, n - wins)
    tail = sum(math.comb(n, j) for j in range(k, n + 1)) / 2**n
    return min(1.0, 2 * tail)


def paired_interval(differences, level=0.95):
    """Return (mean, low, high): the mean of paired differences and its t interval.

    Parameters
    ----------
    differences : array_like, shape (n,)
        One difference per seed (a minus b), n >= 2, all finite.
    level : float
        The interval's coverage (default 0.95).

    Returns
    -------
    tuple of float
        mean(d) and mean(d) -+ t_{(1+level)/2, n-1} sd(d) / sqrt(n).

    Examples
    --------
    >>> mean, low, high = paired_interval([0.10, 0.12, 0.08, 0.11])
    >>> round(mean, 4), round(low, 4), round(high, 4)
    (0.1025, 0.0753, 0.1297)
    >>> paired_interval([0.2, -0.1, 0.05])[1] < 0  # the interval includes zero: not established
    True
    """
    d = np.asarray(differences, dtype=float)
    if d.ndim != 1 or d.size < 2 or not np.all(np.isfinite(d)):
        raise ValueError(
            f"paired_interval: differences must be at least 2 finite numbers, got {short(differences)}"
        )
    if not isinstance(level, int | float) or not 0 < level < 1:
        raise ValueError(
            f"paired_interval: level must be strictly between 0 and 1, got {short(level)}"
        )
    mean = float(d.mean())
    half = t_quantile((1 + level) / 2, d.size - 1) * float(d.std(ddof=1)) / math.sqrt(d.size)
    return mean, mean - half, mean + half
