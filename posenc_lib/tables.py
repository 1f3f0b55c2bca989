"""Tables of a sweep's results, as text: one cell "mean (min-max)" over seeds.

`text_table` lays out rows of `cell` s; `lengths_table` is the results table both chapters print
(one row per scheme, one column per evaluation length, a block per task), which
`posenc_lib.sweep.Sweep.results_table` fills for either sweep; `paired_table` prints the seed-by-seed
differences of `posenc_lib.records.paired_differences`.
"""

import numbers

import numpy as np

from ._checks import check_int, short
from .records import check_records, paired_differences
from .stats import paired_interval

#: Stands for a summary cell that has no record at all ("not run"; None is "cannot run").
MISSING = object()


def cell_width(digits, headers=()):
    """Columns for a `cell` and the space before it: "m.mm (m.mm-m.mm)" at any ``digits``.

    Wide enough for each of ``headers`` too, with a space before it.

    Parameters
    ----------
    digits : int
        Decimals shown.
    headers : sequence of str
        Column headers the width must fit.

    Returns
    -------
    int

    Examples
    --------
    >>> cell_width(2), cell_width(2, ["a very long column header"])
    (17, 26)
    """
    digits = check_int("cell_width", "digits", digits, minimum=0)
    return max(9 + 4 * digits, 11 + 3 * digits, *(len(str(text)) + 1 for text in headers))


def _check_value(func, value):
    """Refuse a cell value that is not (mean, min, max) of real numbers."""
    ok = isinstance(value, tuple | list) and len(value) == 3
    if ok:
        ok = all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in value)
    if not ok:
        raise TypeError(
            f"{func}: a value must be (mean, min, max), None (cannot run) or MISSING (not run), "
            f"got {short(value)}"
        )


def cell(value, digits=2):
    """One summary cell: "mean (min-max)", "cannot run" (None) or "not run" (`MISSING`).

    Parameters
    ----------
    value : tuple or None or MISSING
        (mean, min, max).
    digits : int
        Decimals shown.

    Returns
    -------
    str

    Raises
    ------
    TypeError
        If ``value`` is not three real numbers, None or `MISSING`.

    Examples
    --------
    >>> cell((0.5, 0.25, 0.75)), cell(None), cell(MISSING)
    ('0.50 (0.25-0.75)', 'cannot run', 'not run')
    """
    if value is MISSING:
        return "not run"
    if value is None:
        return "cannot run"
    digits = check_int("cell", "digits", digits, minimum=0)
    _check_value("cell", value)
    mean, low, high = value
    return f"{mean:.{digits}f} ({low:.{digits}f}-{high:.{digits}f})"


def text_table(corner, headers, rows, *, digits=2, column_width=None, label_width=12, indent=""):
    r"""Return the lines of a text table: a header, then one row of `cell` s per name.

    Parameters
    ----------
    corner : str
        The first column's header.
    headers : sequence of str
        The other columns' headers.
    rows : sequence of (str, sequence)
        Each row's name and its cells' values (see `cell`).
    digits : int
        Decimals shown.
    column_width : int, optional
        Columns per cell (default: `cell_width` of ``digits`` and ``headers``).
    label_width : int
        Columns of the first column.
    indent : str
        Put before every line.

    Returns
    -------
    list of str

    Raises
    ------
    ValueError
        If ``digits`` is negative or a row has another number of values than ``headers``.
    TypeError
        If a value is not (mean, min, max), None or `MISSING`.

    Examples
    --------
    >>> print("\n".join(text_table("scheme", ["L=8"], [("rope", [(1.0, 1.0, 1.0)])])))
    scheme                   L=8
    rope        1.00 (1.00-1.00)
    """
    func = "text_table"
    digits = check_int(func, "digits", digits, minimum=0)
    label_width = check_int(func, "label_width", label_width, minimum=0)
    headers = [str(h) for h in headers]
    rows = [(str(name), list(values)) for name, values in rows]
    for name, values in rows:
        if len(values) != len(headers):
            raise ValueError(
                f"{func}: every row must have one value per header ({len(headers)}), got "
                f"{len(values)} for {name!r}"
            )
        for value in values:
            if value is not None and value is not MISSING:
                _check_value(func, value)
    if column_width is not None:
        column_width = check_int(func, "column_width", column_width, minimum=1)
    width = cell_width(digits, headers) if column_width is None else column_width
    lines = [f"{indent}{corner:<{label_width}}" + "".join(f"{h:>{width}}" for h in headers)]
    for name, values in rows:
        lines.append(
            f"{indent}{name:<{label_width}}"
            + "".join(f"{cell(v, digits):>{width}}" for v in values)
        )
    return lines


def lengths_table(
    summary, rows, *, blocks, columns, heading, block_titles=None, digits=2, corner="scheme"
):
    r"""Return the lines of a results table: a heading, then per block a row per scheme.

    Parameters
    ----------
    summary : dict
        Cell key -> (mean, min, max) or None, as `posenc_lib.sweep.Sweep.summarize` returns it;
        a key is ``(block, scheme, eval_len)`` or, without blocks, ``(scheme, eval_len)``.
    rows : sequence of str
        The schemes, one row each.
    blocks : sequence or None
        The blocks (tasks), each with its own header; None for one table without.
    columns : dict
        Evaluation length -> its column's header.
    heading : str
        The first line.
    block_titles : dict, optional
        Block -> its title line (default: the block).
    digits : int
        Decimals shown.
    corner : str
        The first column's header.

    Returns
    -------
    list of str
        "cannot run" where a summary cell is None, "not run" where there is none.

    Examples
    --------
    >>> summary = {("rope", 8): (1.0, 1.0, 1.0), ("rope", 16): None}
    >>> print("\n".join(lengths_table(summary, ["rope"], blocks=None,
    ...                                columns={8: "L=8", 16: "L=16"}, heading="results")))
    results
    scheme                   L=8             L=16
    rope        1.00 (1.00-1.00)       cannot run
    """
    titles = block_titles or {}
    lines = [heading]
    for block in [None] if blocks is None else blocks:
        prefix = () if block is None else (block,)
        cells = [
            (scheme, [summary.get((*prefix, scheme, n), MISSING) for n in columns])
            for scheme in rows
        ]
        if block is not None:
            lines += ["", titles.get(block, str(block))]
        lines += text_table(
            corner,
            list(columns.values()),
            cells,
            digits=digits,
            indent="" if block is None else "  ",
        )
    return lines


def paired_table(records, by, a, b, *, rows=("config",), digits=2, **criteria):
    """Text: the per-seed differences a - b, one line per group, with how many seeds favour a.

    "Favour" reads the metric: a higher accuracy, a lower loss or bits per character; a difference
    that rounds to zero at ``digits`` decimals counts as equal, not as a win.

    Parameters
    ----------
    records : list of dict
        Study or context-extension records.
    by : str
        The field the two sides differ in ("scheme" or "method").
    a, b : str
        The two values compared.
    rows : tuple of str
        The fields that make one line each (e.g. ("config",) or ("config", "stage")).
    digits : int
        Decimals shown.
    **criteria
        Passed to `paired_differences`.

    Returns
    -------
    str
        A heading, then per group: each seed's difference, their mean with its 95% paired t
        interval (`posenc_lib.stats.paired_interval`; two seeds or more) and "a better in k of n".

    Examples
    --------
    >>> rows = [{"scheme": s, "seed": k, "config": "c", "metric": "loss", "value": v}
    ...         for s, k, v in [("t5", 0, 1.5), ("t5", 1, 1.6), ("rope", 0, 2.0), ("rope", 1, 1.5)]]
    >>> print(paired_table(rows, "scheme", "t5", "rope"))
    t5 - rope, seed by seed (loss: lower is better)
    c            -0.50 +0.10   mean -0.20 (95% interval -4.01 to +3.61)   t5 better in 1 of 2
    >>> rows[3]["value"] = 1.6001
    >>> print(paired_table(rows, "scheme", "t5", "rope").splitlines()[1])
    c            -0.50 -0.00   mean -0.25 (95% interval -3.43 to +2.93)   t5 better in 1 of 2 (1 equal)
    """
    func = "paired_table"
    digits = check_int(func, "digits", digits, minimum=0)
    records = check_records(func, records, fields=("value",))
    if isinstance(rows, str):
        raise TypeError(f"{func}: rows must be a tuple of field names, got {rows!r}")
    missing = [f for f in rows if not any(f in r for r in records)]
    if missing:
        raise ValueError(f"{func}: no record has the field {missing[0]!r} (rows={rows!r})")
    try:
        pairs = paired_differences(records, by, a, b, **criteria)
    except ValueError as error:
        raise ValueError(f"{func}: {str(error).split(': ', 1)[1]}") from None
    metrics = {p.get("metric", "accuracy") for p in pairs}
    costs = metrics & {"loss", "bits_per_char"}
    if costs and costs != metrics:  # one "better" cannot read a score and a cost at once
        raise ValueError(
            f"{func}: the records mix metrics where higher is better and lower is better "
            f"({', '.join(sorted(metrics))}); select one task (e.g. task=...)"
        )
    better = "lower" if costs else "higher"
    lines = [f"{a} - {b}, seed by seed ({'/'.join(sorted(metrics))}: {better} is better)"]
    groups = {}
    for p in pairs:
        groups.setdefault(tuple(p.get(k) for k in rows), []).append(p)
    width = max(len(" ".join(str(x) for x in g)) for g in groups) + 2
    for group, members in groups.items():
        members = sorted(members, key=lambda p: p.get("seed", 0))
        d = np.array([p["difference"] for p in members])
        shown = np.round(d, digits)  # a difference that rounds to 0 is a tie at this precision
        wins = int(np.sum(shown < 0) if better == "lower" else np.sum(shown > 0))
        ties = int(np.sum(shown == 0))
        cells = " ".join(f"{x:+.{digits}f}" for x in d)
        name = " ".join(str(x) for x in group)
        tied = f" ({ties} equal)" if ties else ""
        interval = ""
        if len(d) >= 2:
            _, low, high = paired_interval(d)
            interval = f" (95% interval {low:+.{digits}f} to {high:+.{digits}f})"
        lines.append(
            f"{name:<{width}}{cells}   mean {d.mean():+.{digits}f}{interval}   "
            f"{a} better in {wins} of {len(d)}{tied}"
        )
    return "\n".join(lines)
