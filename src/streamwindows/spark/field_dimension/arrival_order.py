"""Step 2 of the general plan, the arrival-order check: each range partition of the
stream (by ``seq``) checks itself and returns one summary row, the driver checks the
boundaries and raises the documented errors. The value-range plan runs it too, when its
cheap check finds a problem."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd

from streamwindows.errors import InvalidParameterError, NullFieldError, OutOfOrderError, RepeatedArrivalError
from streamwindows.field_dimension import FieldDimensionParams
from streamwindows.spark.columns import SEQ, VALUE, plain

SPARK_FUNCTION = "field_dimension_aggregate_spark"  # the function the errors name (aggregate.py raises too)


def check_arrival_order(stream, params: FieldDimensionParams, parts: int | None) -> dict[str, Any]:
    group_cols = list(params.group_by)
    value_type = "bigint" if params.exact else "double"  # the coordinates, compared exactly
    summary_schema = (
        f"n long, first_seq long, first_value {value_type}, first_group string, "
        f"last_seq long, last_value {value_type}, last_group string, bad_kind string, bad_index long, "
        f"bad_seq long, bad_value {value_type}, bad_previous {value_type}, bad_group string, "
        "bad_previous_group string, bad_previous_seq long"
    )
    summary_columns = [field.split()[0] for field in summary_schema.split(", ")]

    def summarize(batches):
        batches = [b for b in batches if len(b)]
        if not batches:  # an empty range partition
            return
        chunk = pd.concat(batches, ignore_index=True)
        seqs, values = chunk[SEQ], chunk[VALUE]

        def group(i: int) -> str:
            return json.dumps({g: plain(chunk[g].iloc[i]) for g in group_cols})

        row = dict.fromkeys(summary_columns)  # NULL unless set; scalars as plain Python values
        row.update({
            "n": len(chunk),
            "first_seq": plain(seqs.iloc[0]), "first_value": plain(values.iloc[0]), "first_group": group(0),
            "last_seq": plain(seqs.iloc[-1]), "last_value": plain(values.iloc[-1]), "last_group": group(-1),
        })
        bad = _first_violation(seqs, values)
        if bad is not None:
            kind, i = bad
            row.update({
                "bad_kind": kind, "bad_index": i, "bad_seq": plain(seqs.iloc[i]),
                "bad_value": plain(values.iloc[i]), "bad_group": group(i),
                "bad_previous": plain(values.iloc[i - 1]) if i > 0 else None,
                "bad_previous_group": group(i - 1) if i > 0 else None,
                "bad_previous_seq": plain(seqs.iloc[i - 1]) if i > 0 else None,
            })
        yield pd.DataFrame([row], columns=summary_columns, dtype=object)

    parted = stream.repartitionByRange(*([parts] if parts else []), SEQ).sortWithinPartitions(SEQ)
    summaries = [r.asDict() for r in parted.mapInPandas(summarize, summary_schema).collect()]
    # NULL seqs sort first (and are reported); otherwise partitions follow seq.
    summaries.sort(key=lambda r: (r["first_seq"] is not None, r["first_seq"] or 0))
    offset = 0
    previous = None
    for s in summaries:
        if s["bad_kind"] == "null seq" or (s["bad_kind"] is not None and s["bad_index"] == 0):
            _raise(params, s, offset)
        if previous is not None:
            at_boundary = {"bad_index": 0, "bad_seq": s["first_seq"], "bad_group": s["first_group"]}
            if s["first_seq"] == previous["last_seq"]:
                _raise(params, {**s, **at_boundary, "bad_kind": "repeated seq"}, offset)
            if s["first_value"] < previous["last_value"]:
                _raise(params, {**s, **at_boundary, "bad_kind": "decrease", "bad_value": s["first_value"],
                                "bad_previous": previous["last_value"],
                                "bad_previous_group": previous["last_group"],
                                "bad_previous_seq": previous["last_seq"]}, offset)
        if s["bad_kind"] is not None:
            _raise(params, s, offset)
        offset += s["n"]
        previous = s
    return {
        "n": offset,
        "first_seq": np.array([s["first_seq"] for s in summaries], dtype=np.int64),
        "last_seq": np.array([s["last_seq"] for s in summaries], dtype=np.int64),
        "first_value": np.array([s["first_value"] for s in summaries], dtype=params.coordinate_dtype),
        "last_value": np.array([s["last_value"] for s in summaries], dtype=params.coordinate_dtype),
        "max_value": summaries[-1]["last_value"] if summaries else None,
    }


def _first_violation(seqs: pd.Series, values: pd.Series) -> tuple[str, int] | None:
    """(kind, index) of the first row in arrival order that breaks the stream's rules.
    Values are compared in their own type (int64 coordinates stay exact)."""
    candidates = []
    null_seq = seqs.isna().to_numpy()
    if null_seq.any():
        candidates.append(("null seq", int(np.argmax(null_seq))))
    missing = values.isna().to_numpy() | ~np.isfinite(values.to_numpy(dtype=np.float64, na_value=np.nan))
    if missing.any():
        candidates.append(("null", int(np.argmax(missing))))
    s = seqs.to_numpy()
    repeated = s[1:] == s[:-1]
    if repeated.any():
        candidates.append(("repeated seq", int(np.argmax(repeated)) + 1))
    v = values.to_numpy()
    decreasing = v[1:] < v[:-1]  # NaN compares False: NULLs are reported above
    if decreasing.any():
        candidates.append(("decrease", int(np.argmax(decreasing)) + 1))
    return min(candidates, key=lambda c: c[1]) if candidates else None


def _raise(params: FieldDimensionParams, s: dict, offset: int) -> None:
    position = offset + int(s["bad_index"])
    group = json.loads(s["bad_group"]) if s.get("bad_group") else {}
    kind = s["bad_kind"]
    if kind == "decrease":
        raise OutOfOrderError(
            field=params.field, position=position, group=group, value=s["bad_value"],
            previous_value=s["bad_previous"], seq=s["bad_seq"], previous_position=position - 1,
            previous_group=json.loads(s["bad_previous_group"]) if s.get("bad_previous_group") else None,
            model=params.model, previous_seq=s.get("bad_previous_seq"),
        )
    if kind == "null":
        raise NullFieldError(field=params.field, position=position, group=group, seq=s["bad_seq"],
                             value=None, model=params.model)
    if kind == "repeated seq":
        raise RepeatedArrivalError(SPARK_FUNCTION, "seq", s["bad_seq"], group, model=params.model)
    raise InvalidParameterError(
        SPARK_FUNCTION, "seq", "a column whose values are non-NULL",
        f"{s['bad_seq']} at arrival position {position}, group {group}", model=params.model,
    )
