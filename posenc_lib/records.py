"""Records: what a sweep measures, one JSON object per measurement, and how the chapters read them.

A record of results is ``{task, scheme, config, seed, train_len, eval_len, [mode,] region,
metric, value}``: one model's metric at one evaluation length over one region of query positions,
"all" of them or the "unseen" ones (positions >= the training length, past it only). A curve
record holds the per-position sums instead of a value (``totals`` and ``counts``). This module
makes them (`region_records`, `curve_record`), writes and reads them (`write_records`,
`load_records`), and reads them the ways both chapters do: `select`, `names`, `in_region`,
`group_summary`, `binned_curves` (the one binning of per-position curves, `bin_positions`) and
`paired_differences`. Each function refuses records, fields and values it cannot read, naming
itself, the argument and what is allowed.
"""

import json
from pathlib import Path

import numpy as np

from ._checks import check_choice, check_int, short

REGIONS = ("all", "unseen")


# -- making and writing records ---------------------------------------------------------------


def region_records(fields, scored, train_len, metric, *, keys=()):
    """Return the records of one model: a value per evaluation length (and ``keys``) and region.

    Region "all" counts every query position; "unseen" those >= ``train_len``, and exists only
    past the training length. A value is `~posenc_lib.model.region_value` of the per-position
    sums, None where the model cannot run (no sums).

    Parameters
    ----------
    fields : dict
        The fields every record starts with (task, scheme, config, seed, train_len).
    scored : dict
        ``(eval_len, *extra)`` -> ``(totals, counts)`` per query position, or None; in the
        order the records are written.
    train_len : int
        The training length: where the unseen region starts.
    metric : str
        Recorded as "metric".
    keys : tuple of str
        The names of ``extra`` (e.g. ``("mode",)``), written after "eval_len".

    Returns
    -------
    list of dict
        ``{**fields, eval_len, *keys, region, metric, value}``.

    Examples
    --------
    >>> scored = {(2,): (np.array([1.0, 1.0]), np.array([1, 1])),
    ...           (4,): (np.array([1.0, 1, 0, 0]), np.array([1, 1, 1, 1]))}
    >>> [(r["eval_len"], r["region"], r["value"]) for r in region_records({}, scored, 2, "accuracy")]
    [(2, 'all', 1.0), (4, 'all', 0.5), (4, 'unseen', 0.0)]
    """
    from .model import region_value  # the model (and autograd) load only when a sweep runs

    out = []
    for (length, *extra), sums in scored.items():
        for region in ("all",) if length <= train_len else REGIONS:
            start = 0 if region == "all" else train_len
            out.append(
                {
                    **fields,
                    "eval_len": length,
                    **dict(zip(keys, extra, strict=True)),
                    "region": region,
                    "metric": metric,
                    "value": None if sums is None else region_value(*sums, start),
                }
            )
    return out


def curve_record(fields, evaluation, metric, totals, counts, *, digits):
    """Return the per-position record of one model at one length: its sums and counts.

    Parameters
    ----------
    fields, evaluation : dict
        The record's first fields (task, scheme...), then those of the evaluation (eval_len,
        mode...).
    metric : str
        Recorded as "metric".
    totals : array_like of float
        Per position: the summed metric.
    counts : array_like of int
        Per position: the number of targets.
    digits : int
        Decimals kept of every total; 0 stores integers (counts of correct predictions).

    Returns
    -------
    dict
        ``{**fields, **evaluation, metric, totals, counts}``.

    Examples
    --------
    >>> curve_record({"scheme": "rope"}, {"eval_len": 2}, "loss", [1.23456, 2.0], [1, 1], digits=2)
    {'scheme': 'rope', 'eval_len': 2, 'metric': 'loss', 'totals': [1.23, 2.0], 'counts': [1, 1]}
    """
    return {
        **fields,
        **evaluation,
        "metric": metric,
        "totals": [round(float(v), digits) if digits else int(round(v)) for v in totals],
        "counts": [int(n) for n in counts],
    }


def records_text(rows):
    r"""Return a JSON list with one record per line: readable diffs, small files.

    Parameters
    ----------
    rows : list of dict

    Returns
    -------
    str

    Examples
    --------
    >>> print(records_text([{"a": 1}, {"a": 2}]), end="")
    [
    {"a": 1},
    {"a": 2}
    ]
    >>> records_text([])
    '[]\n'
    """
    return "[\n" + ",\n".join(json.dumps(r) for r in rows) + "\n]\n" if rows else "[]\n"


def write_records(path, rows, stamp):
    """Write ``rows`` to ``path`` as {"provenance": ..., "records": [one record per line]}.

    The records part is `records_text` of ``rows``, byte for byte.

    Parameters
    ----------
    path : str or Path
        The file to write.
    rows : list of dict
        The records.
    stamp : dict
        What made them (`posenc_lib.provenance.provenance`).

    Returns
    -------
    Path
        ``path``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = write_records(Path(tmp) / "r.json", [{"value": 0.5}], {"sweep": "demo"})
    ...     print(path.read_text(), end="")
    {"provenance": {"sweep": "demo"},
    "records": [
    {"value": 0.5}
    ]
    }
    """
    path = Path(path)
    path.write_text(
        '{"provenance": ' + json.dumps(stamp) + ',\n"records": ' + records_text(rows) + "}\n"
    )
    return path


def load_records(path):
    """Return the records of a file `write_records` wrote (or of a plain JSON list).

    Parameters
    ----------
    path : str or Path
        The file.

    Returns
    -------
    list of dict

    Examples
    --------
    >>> from posenc_lib.sweep import DATA
    >>> len(load_records(DATA / "study" / "results.json"))  # chapter 06's committed study
    3780
    """
    data = json.loads(Path(path).read_text())
    return data if isinstance(data, list) else data["records"]


# -- reading records --------------------------------------------------------------------------


def check_records(func, records, *, name="records", fields=(), empty=False):
    """Return ``records`` as a list of dicts, each with ``fields``, or refuse naming ``func``.

    Parameters
    ----------
    func : str
        The function the learner called (named in the error).
    records : list of dict
        What the learner passed.
    name : str
        The argument's name.
    fields : sequence of str
        The fields every record must have.
    empty : bool
        Accept no records at all.

    Returns
    -------
    list of dict

    Raises
    ------
    TypeError
        If ``records`` is not a list (or tuple) of dicts.
    ValueError
        If it is empty (unless ``empty``) or a record lacks a field.

    Examples
    --------
    >>> check_records("f", [{"value": 1.0}], fields=("value",))
    [{'value': 1.0}]
    >>> check_records("f", [])
    Traceback (most recent call last):
    ...
    ValueError: f: records must hold at least one record, got []
    """
    if not isinstance(records, list | tuple) or not all(isinstance(r, dict) for r in records):
        raise TypeError(f"{func}: {name} must be a list of records (dicts), got {short(records)}")
    if not records and not empty:
        raise ValueError(f"{func}: {name} must hold at least one record, got {short(records)}")
    for index, record in enumerate(records):
        missing = [f for f in fields if f not in record]
        if missing:
            raise ValueError(
                f"{func}: every record must have the fields {list(fields)}; {name}[{index}] has "
                f"no {missing[0]!r} (its fields: {sorted(record)})"
            )
    return list(records)


def check_criteria(func, records, criteria, *, values=False):
    """Refuse a criterion no record can match: an unknown field, a region or (``values``) a value.

    A criterion of None matches anything and is not checked.

    Parameters
    ----------
    func : str
        The function the learner called (named in the error).
    records : list of dict
        Checked records.
    criteria : dict
        Field -> the value asked for (None: any).
    values : bool
        Also refuse a value that no record has (a misspelt scheme or configuration).

    Returns
    -------
    dict
        ``criteria``.

    Raises
    ------
    ValueError
        Naming the field or value and what the records hold.

    Examples
    --------
    >>> check_criteria("f", [{"task": "t"}], {"task": "t", "region": "unseen"})
    {'task': 't', 'region': 'unseen'}
    >>> check_criteria("f", [{"task": "t"}], {"regoin": "unseen"})
    Traceback (most recent call last):
    ...
    ValueError: f: no record has the field 'regoin'; fields: ['region', 'task']
    >>> check_criteria("f", [{"task": "t"}], {"task": "u"}, values=True)
    Traceback (most recent call last):
    ...
    ValueError: f: no record has task='u'; task is one of ['t']
    """
    if not records:
        return criteria
    fields = {k for r in records for k in r} | {"region"}
    for key, value in criteria.items():
        if value is None:  # matches anything, with the field or without
            continue
        if key not in fields:
            raise ValueError(f"{func}: no record has the field {key!r}; fields: {sorted(fields)}")
        if key == "region":
            check_choice(func, "region", value, REGIONS)
        elif values:
            present = names(records, key, default="all" if key == "region" else None)
            if value not in present:
                raise ValueError(
                    f"{func}: no record has {key}={short(value)}; {key} is one of {present}"
                )
    return criteria


def select(records, **criteria):
    """Return the records matching every ``key=value`` given (a value of None matches anything).

    Records without a region count as region "all".

    Parameters
    ----------
    records : list of dict
        Records (results, curves or extension records).
    **criteria
        The value each key must have (None: any).

    Returns
    -------
    list of dict
        The matching records, in their order.

    Raises
    ------
    ValueError
        If no record has a field asked for (a misspelt key), or a region is not "all" or
        "unseen".

    Examples
    --------
    >>> recs = [{"task": "t", "region": "all"}, {"task": "t", "region": "unseen"}, {"task": "u"}]
    >>> len(select(recs, region="all")), len(select(recs, task="t", region=None))
    (2, 2)
    >>> select(recs, regoin="unseen")
    Traceback (most recent call last):
    ...
    ValueError: select: no record has the field 'regoin'; fields: ['region', 'task']
    """
    records = check_records("select", records, empty=True)
    check_criteria("select", records, criteria)
    defaults = {"region": "all"}

    def matches(r):
        return all(v is None or r.get(k, defaults.get(k)) == v for k, v in criteria.items())

    return [r for r in records if matches(r)]


def names(records, field, *, default=None):
    """Return the distinct values of ``field`` in the records, in their order.

    Parameters
    ----------
    records : list of dict
        The records.
    field : str
        The field whose values are listed.
    default : object, optional
        The value of a record without the field.

    Returns
    -------
    list

    Examples
    --------
    >>> names([{"s": "b"}, {"s": "a"}, {"s": "b"}], "s")
    ['b', 'a']
    """
    return list(dict.fromkeys(r.get(field, default) for r in records))


def one_config(records, config, func):
    """Return ``config``, or None when the records hold one configuration; else refuse.

    A configuration asked for must be one the records hold.

    Parameters
    ----------
    records : list of dict
    config : str or None
        The configuration asked for.
    func : str
        The function called (named in the error).

    Returns
    -------
    str or None

    Raises
    ------
    ValueError
        If ``config`` is None and the records hold several configurations, or no record has
        ``config``.

    Examples
    --------
    >>> one_config([{"config": "a"}], None, "f") is None
    True
    """
    found = names(records, "config")
    if config is not None:
        if config not in found:
            raise ValueError(
                f"{func}: no record has config={short(config)}; config is one of {found}"
            )
        return config
    if len(found) > 1:
        raise ValueError(
            f"{func}: these records hold several configurations {found}; pass config= one of them"
        )
    return None


def in_region(records, region):
    """Return the records of one region as the chapters read it, at every length.

    "all": every query position. "unseen": the positions the model never trained on, at every
    length past the training length; at the training length (and below it), where no position
    is unseen, all positions. So an "unseen" reading has a value at every length: the trained
    length, then how the model does beyond it.

    Parameters
    ----------
    records : list of dict
        Records with "eval_len" and "train_len" (those without a region count as "all").
    region : {"unseen", "all"}
        The region.

    Returns
    -------
    list of dict
        The records of that reading, in their order.

    Examples
    --------
    >>> recs = [{"train_len": 8, "eval_len": n, "region": g} for n, g in
    ...         [(8, "all"), (16, "all"), (16, "unseen")]]
    >>> [(r["eval_len"], r["region"]) for r in in_region(recs, "unseen")]
    [(8, 'all'), (16, 'unseen')]
    """
    check_choice("in_region", "region", region, REGIONS)
    records = check_records("in_region", records, fields=("eval_len", "train_len"), empty=True)

    def read(r):
        own = r.get("region", "all")
        if region == "all" or r["eval_len"] > r["train_len"]:
            return own == region
        return own == "all"

    return [r for r in records if read(r)]


def group_summary(records, by, **criteria):
    """{tuple of the ``by`` fields: (mean, min, max) over the rest}, None where one cannot run.

    Parameters
    ----------
    records : list of dict
        Records with a "value".
    by : tuple of str
        The fields that make a group (e.g. ``("task", "scheme", "eval_len")``).
    **criteria
        Passed to `select` first (region "all" unless given).

    Returns
    -------
    dict
        Group -> (mean, min, max) of floats, or None when any record of the group is None.

    Examples
    --------
    >>> recs = [{"s": "a", "value": v} for v in (0.5, 0.7)] + [{"s": "b", "value": None}]
    >>> group_summary(recs, ("s",))
    {('a',): (0.6, 0.5, 0.7), ('b',): None}
    """
    records = check_records("group_summary", records, empty=True)
    if isinstance(by, str) or not by:
        raise TypeError(f"group_summary: by must be a tuple of field names, got {short(by)}")
    rows = select(records, **criteria)
    check_records("group_summary", rows, fields=(*by, "value"), empty=True)
    groups = {}
    for r in rows:
        groups.setdefault(tuple(r[k] for k in by), []).append(r["value"])
    return {
        key: None
        if any(v is None for v in values)
        else (float(np.mean(values)), float(np.min(values)), float(np.max(values)))
        for key, values in groups.items()
    }


# -- per-position curves ------------------------------------------------------------------------


def bin_positions(totals, counts, bin_width=1):
    """Pool per-position sums into bins of ``bin_width`` positions: the one binning of the course.

    Parameters
    ----------
    totals : array_like, shape (T,)
        Per position: the summed metric.
    counts : array_like, shape (T,)
        Per position: the number of targets.
    bin_width : int
        Positions per bin; positions past the last whole bin are left out.

    Returns
    -------
    centres : ndarray of float, shape (T // bin_width,)
        The middle position of each bin.
    values : ndarray of float, shape (T // bin_width,)
        Each bin's summed totals over its summed counts; NaN for a bin without a target (no
        value, not zero).

    Examples
    --------
    >>> bin_positions([0, 2, 4, 1, 3], [0, 4, 4, 4, 1], bin_width=2)
    (array([0.5, 2.5]), array([0.5  , 0.625]))
    >>> bin_positions([1.0, 0.0], [1, 0])[1]
    array([ 1., nan])
    """
    func = "bin_positions"
    totals = np.asarray(totals, dtype=float)
    counts = np.asarray(counts, dtype=float)
    if totals.ndim != 1 or counts.shape != totals.shape:
        raise ValueError(
            f"{func}: totals and counts must be 1-d, one of each per position, got shapes "
            f"{totals.shape} and {counts.shape}"
        )
    bin_width = check_int(func, "bin_width", bin_width, minimum=1)
    if bin_width > len(totals):
        raise ValueError(
            f"{func}: bin_width must be at most the {len(totals)} positions, got {bin_width}"
        )
    n_bins = len(totals) // bin_width
    t = totals[: n_bins * bin_width].reshape(n_bins, bin_width).sum(1)
    c = counts[: n_bins * bin_width].reshape(n_bins, bin_width).sum(1)
    centres = np.arange(n_bins) * bin_width + (bin_width - 1) / 2
    return centres, np.where(c > 0, t / np.maximum(c, 1), np.nan)


def binned_curves(curves, *, bin_width=1, field="totals", **criteria):
    """Per-position curves in bins: (centres, mean, min, max) over the curves (one per seed).

    Parameters
    ----------
    curves : list of dict
        Curve records with ``field`` and "counts" per position, all of one length.
    bin_width : int
        Positions per bin (`bin_positions`); positions past the last whole bin are left out.
    field : str
        The per-position sums binned: "totals", or another of the records' (chapter 07's
        "excess").
    **criteria
        Select the curves first (`select`), e.g. ``scheme="rope", eval_len=256``.

    Returns
    -------
    centres, mean, low, high : ndarray of float
        The middle position of each bin, and each bin's value (summed ``field`` / summed counts):
        mean, minimum and maximum over the curves; NaN in a bin without targets.

    Raises
    ------
    ValueError
        If no curve matches, a curve lacks ``field`` or counts, or the curves differ in length.

    Examples
    --------
    >>> c = {"totals": [0, 2, 4, 1], "counts": [0, 4, 4, 4]}
    >>> binned_curves([c], bin_width=2)[1]
    array([0.5  , 0.625])
    """
    func = "binned_curves"
    curves = check_records(func, curves, name="curves")
    check_criteria(func, curves, criteria, values=True)
    rows = select(curves, region=criteria.pop("region", None), **criteria)
    if not rows:
        raise ValueError(f"{func}: no curve matches {criteria}")
    rows = check_records(func, rows, name="curves", fields=(field, "counts"))
    lengths = sorted({len(r[field]) for r in rows} | {len(r["counts"]) for r in rows})
    if len(lengths) > 1:
        raise ValueError(
            f"{func}: every curve must have one {field} and one count per position, all of one "
            f"length; got lengths {lengths}"
        )
    bin_width = check_int(func, "bin_width", bin_width, minimum=1)
    if bin_width > lengths[0]:
        raise ValueError(
            f"{func}: bin_width must be at most the {lengths[0]} positions, got {bin_width}"
        )
    binned = [bin_positions(r[field], r["counts"], bin_width) for r in rows]
    values = np.array([v for _, v in binned])
    return binned[0][0], values.mean(0), values.min(0), values.max(0)


# -- comparisons seed by seed ---------------------------------------------------------------------


def paired_differences(records, by, a, b, **criteria):
    """Per-seed differences value(a) - value(b): two schemes (or methods, ...) seed by seed.

    Records are paired when every field but ``by`` and the value agrees (task, configuration,
    seed, length, mode, region, stage, ...), so each difference compares two models that saw the
    same seeded data and were scored on the same text. Overlapping ranges over seeds can hide a
    difference that holds seed by seed, or suggest one that does not.

    Parameters
    ----------
    records : list of dict
        Records of a sweep (either chapter's) or of context extension.
    by : str or tuple of str
        The field(s) the two sides differ in, e.g. "scheme", "method" or ("scheme", "config").
    a, b : object or tuple
        The two values of ``by`` compared (a tuple, one value per field, when ``by`` is one).
    **criteria
        Select the records first (`select`), e.g. ``task="markov", region="unseen"``; a region
        not given matches any.

    Returns
    -------
    list of dict
        One per pair, in the order of ``a``'s records: the shared fields and "difference" (a
        minus b). Pairs where either side cannot run (None) are left out.

    Raises
    ------
    ValueError
        If a field or value matches no record, or the two sides make no pair.

    Examples
    --------
    >>> rows = [{"scheme": s, "seed": k, "value": v}
    ...         for s, k, v in [("t5", 0, 0.9), ("t5", 1, 0.8), ("rope", 0, 0.5), ("rope", 1, 0.85)]]
    >>> [round(p["difference"], 2) for p in paired_differences(rows, "scheme", "t5", "rope")]
    [0.4, -0.05]
    """
    func = "paired_differences"
    records = check_records(func, records, fields=("value",))
    fields = (by,) if isinstance(by, str) else tuple(by)
    sides = [(a,) if isinstance(by, str) else tuple(a), (b,) if isinstance(by, str) else tuple(b)]
    if not fields or any(len(side) != len(fields) for side in sides):
        raise ValueError(
            f"{func}: a and b must give one value per field of by={short(by)}, got a={short(a)} "
            f"and b={short(b)}"
        )
    check_criteria(func, records, {**{f: None for f in fields}, **criteria}, values=True)
    for side in sides:
        check_criteria(func, records, dict(zip(fields, side, strict=True)), values=True)
    rows = select(records, region=criteria.pop("region", None), **criteria)

    def key(r):
        return tuple(sorted((k, repr(v)) for k, v in r.items() if k not in (*fields, "value")))

    def side_of(r):
        return tuple(r.get(f) for f in fields)

    others = {key(r): r for r in rows if side_of(r) == sides[1]}
    out = []
    for r in rows:
        partner = others.get(key(r)) if side_of(r) == sides[0] else None
        if partner is None or r["value"] is None or partner["value"] is None:
            continue
        shared = {k: v for k, v in r.items() if k not in (*fields, "value")}
        out.append({**shared, "difference": r["value"] - partner["value"]})
    if not out:
        raise ValueError(
            f"{func}: no record of {short(a)} has a partner of {short(b)} (the same fields but "
            f"{list(fields)}, both able to run) among the records matching {criteria}"
        )
    return out
