"""A deliberately simple reference for every aggregate function: plain Python over the
list of a window's rows (dicts), in arrival order. Variance, covariance and correlation
are computed exactly with fractions, so the engine's float results can be checked for
cancellation too."""

from __future__ import annotations

import math
import re
from fractions import Fraction

from .reference_field_dimension import aggregate as sql_aggregate
from .reference_field_dimension import is_null

SPEC = re.compile(r"^\s*(\w+)\s*\((.*)\)\s*$")


def parse_spec(spec):
    """('nth', ['x', 2]) from 'nth(x, 2)'; integers become ints."""
    function, inside = SPEC.match(spec).groups()
    arguments = [a.strip() for a in inside.split(",")]
    return function.lower(), [int(a) if a.isdigit() else a for a in arguments]


def _clean(value):
    return None if is_null(value) else value


def _moments(pairs):
    n = len(pairs)
    mx = sum(Fraction(x) for x, _ in pairs) / n
    my = sum(Fraction(y) for _, y in pairs) / n
    cxx = sum((Fraction(x) - mx) ** 2 for x, _ in pairs)
    cyy = sum((Fraction(y) - my) ** 2 for _, y in pairs)
    cxy = sum((Fraction(x) - mx) * (Fraction(y) - my) for x, y in pairs)
    return n, cxx, cyy, cxy


def reference_value(spec, rows, duration=None):
    """The aggregate ``spec`` (e.g. 'corr(x, y)') over ``rows``; None for NULL."""
    function, arguments = parse_spec(spec)
    if function in ("sum", "count", "avg", "min", "max", "first", "last"):
        return _clean(sql_aggregate(function, arguments[0], rows))
    if function == "nth":
        column, n = arguments
        return _clean(rows[n - 1][column]) if len(rows) >= n else None
    if function == "rate":
        count = sql_aggregate("count", arguments[0], rows)
        return None if duration is None or not duration > 0 else count / duration
    if function == "nest":
        return [_clean(row[arguments[0]]) for row in rows]
    if function == "distinctnest":
        out = []
        for row in rows:
            value = _clean(row[arguments[0]])
            if value not in out:
                out.append(value)
        return out
    if function == "completeness":
        if not rows:
            return None
        return sum(1 for row in rows if not is_null(row[arguments[0]])) / len(rows)
    if function in ("var", "stddev", "median"):
        values = [row[arguments[0]] for row in rows if not is_null(row[arguments[0]])]
        if function == "median":
            if not values:
                return None
            values = sorted(float(v) for v in values)
            middle = (len(values) - 1) / 2
            return (values[math.floor(middle)] + values[math.ceil(middle)]) / 2
        if len(values) < 2:
            return None
        n, cxx, _, _ = _moments([(v, v) for v in values])
        variance = cxx / (n - 1)
        return float(variance) if function == "var" else math.sqrt(variance)
    if function in ("cov", "corr"):
        x, y = arguments
        pairs = [(r[x], r[y]) for r in rows if not is_null(r[x]) and not is_null(r[y])]
        if len(pairs) < 2:
            return None
        n, cxx, cyy, cxy = _moments(pairs)
        if function == "cov":
            return float(cxy / (n - 1))
        if cxx == 0 or cyy == 0:
            return None
        return float(cxy) / math.sqrt(cxx * cyy)
    raise ValueError(spec)


def same(got, want, rel=1e-9, abs_=1e-9):
    """Engine value ``got`` equals reference value ``want`` (NULLs, lists, float tolerance)."""
    if want is None:
        return is_null(got) if not isinstance(got, list) else False
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(
            same(g, w, rel, abs_) for g, w in zip(got, want, strict=True)
        )
    if is_null(got):
        return False
    if isinstance(want, float) or isinstance(got, float):
        return math.isclose(float(got), float(want), rel_tol=rel, abs_tol=abs_)
    return got == want
