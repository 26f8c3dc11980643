"""The interval plan's view of the whole stream: its times as coordinates (numbers that
order and compare like them), its distinct starts (:class:`Starts`, one aggregation, which
also tells whether the stream is in arrival order) and the exact arrival-order check
(:func:`check_stream_order`, which names the first event out of order)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from streamwindows.errors import OutOfOrderError
from streamwindows.spark.columns import plain
from streamwindows.spark.field_dimension.ranges import DISTINCT_VALUES_LIMIT

# Internal columns (emission.py's too): a start as a coordinate, its first arrival.
START, FIRST_ARRIVAL = "__start__", "__first_arrival__"
_NUMERIC = ("tinyint", "smallint", "int", "bigint", "float", "double")


@dataclass
class Starts:
    """The stream's distinct starts (coordinates, sorted) with each one's first arrival
    (coordinates) and rows, from one aggregation; ``has_null``: a NULL start, end or
    arrival (the engine names it), ``out_of_order``: some start's arrivals are not all
    before the next start's."""

    values: np.ndarray
    firsts: np.ndarray | None
    rows: np.ndarray
    has_null: bool
    out_of_order: bool

    @classmethod
    def of(cls, df, *, start: str, end: str, arrival: str | None) -> Starts | None:
        """None past DISTINCT_VALUES_LIMIT distinct starts, or with an arrival column that
        is neither a number nor a timestamp."""
        import pyarrow.compute as pc
        from pyspark.sql import functions as F

        spark_type = df.schema[start].dataType.simpleString()
        aggregates = [F.count(F.lit(1)).alias("rows"), F.count(F.col(end)).alias("ends")]
        if arrival is not None:
            arrival_type = df.schema[arrival].dataType.simpleString()
            if not (arrival_type in _NUMERIC or arrival_type.startswith("timestamp")):
                return None
            position = coordinate_of(F.col(arrival), arrival_type)
            aggregates += [F.min(position).alias("first"), F.max(position).alias("last"),
                           F.count(F.col(arrival)).alias("arrivals")]
        table = (df.groupBy(coordinate_of(F.col(start), spark_type).alias(START)).agg(*aggregates)
                 .limit(DISTINCT_VALUES_LIMIT + 1).toArrow())
        if table.num_rows > DISTINCT_VALUES_LIMIT:
            return None
        has_null = table.column(START).null_count > 0
        table = table.filter(pc.is_valid(table.column(START)))
        rows = table.column("rows").to_numpy().astype(np.int64)
        has_null = has_null or bool((table.column("ends").to_numpy() < rows).any())
        if arrival is not None:
            has_null = has_null or bool((table.column("arrivals").to_numpy() < rows).any())
        order = np.argsort(table.column(START).to_numpy(), kind="stable")
        values = table.column(START).to_numpy()[order]
        firsts, out_of_order = None, False
        if arrival is not None and not has_null:
            firsts = table.column("first").to_numpy()[order]
            lasts = table.column("last").to_numpy()[order]
            out_of_order = bool((lasts[:-1] > firsts[1:]).any())
        return cls(values=values, firsts=firsts, rows=rows[order], has_null=has_null, out_of_order=out_of_order)

    def cuts(self, ranges: int) -> list[float]:
        """Starts that cut the value axis into about ``ranges`` ranges of equal rows."""
        if ranges <= 1 or not len(self.values):
            return []
        cumulative = np.cumsum(self.rows)
        picks = np.searchsorted(cumulative, np.arange(1, ranges) * cumulative[-1] / ranges, side="right")
        picked = self.values[np.minimum(picks, len(self.values) - 1)]
        return sorted({float(c) for c in picked if c > self.values[0]})


def check_stream_order(df, *, start: str, arrival: str, group_by: Sequence[str], model: str | None = None,
                       position_offset: int = 0) -> int:
    """Raise OutOfOrderError at the first event, in ``arrival`` order, that starts before
    the previous event (any group), naming both events (arrival position, ``arrival``
    value, group, start). One Spark job: each range of arrivals checks itself and
    returns a summary row, the driver checks the boundaries. NULL starts or arrivals
    are left to the engine (it raises NullFieldError before any order error).
    ``position_offset`` is the number of events arriving before ``df``'s. Returns the
    number of rows."""
    from pyspark.sql import functions as F


    groups = list(group_by)
    spark_type = df.schema[start].dataType.simpleString()
    coordinate_type = coordinate_type_of(spark_type)
    stream = df.select(F.col(arrival).alias(FIRST_ARRIVAL), coordinate_of(F.col(start), spark_type).alias(START),
                       *[F.col(g) for g in groups])
    names = ["n", "nulls", "first_arrival", "first_start", "first_group", "last_arrival", "last_start", "last_group",
             "bad_index", "bad_arrival", "bad_start", "bad_group", "bad_previous", "bad_previous_group",
             "bad_previous_arrival"]
    arrival_type = df.schema[arrival].dataType.simpleString()
    schema = (f"n long, nulls long, first_arrival {arrival_type}, first_start {coordinate_type}, "
              f"first_group string, last_arrival {arrival_type}, last_start {coordinate_type}, last_group string, "
              f"bad_index long, bad_arrival {arrival_type}, bad_start {coordinate_type}, bad_group string, "
              f"bad_previous {coordinate_type}, bad_previous_group string, bad_previous_arrival {arrival_type}")

    def summarize(batches):
        chunk = [b for b in batches if len(b)]
        if not chunk:
            return
        chunk = pd.concat(chunk, ignore_index=True)
        arrivals, starts = chunk[FIRST_ARRIVAL], chunk[START]

        def group(i: int) -> str:
            return json.dumps({g: plain(chunk[g].iloc[i]) for g in groups})

        row: dict[str, Any] = dict.fromkeys(names)
        row.update(n=len(chunk), nulls=int(arrivals.isna().sum() + starts.isna().sum()),
                   first_arrival=plain(arrivals.iloc[0]), first_start=plain(starts.iloc[0]), first_group=group(0),
                   last_arrival=plain(arrivals.iloc[-1]), last_start=plain(starts.iloc[-1]), last_group=group(-1))
        values = starts.to_numpy()
        back = np.flatnonzero(values[1:] < values[:-1])  # NULLs compare False: counted above
        if len(back):
            i = int(back[0]) + 1
            row.update(bad_index=i, bad_arrival=plain(arrivals.iloc[i]), bad_start=plain(starts.iloc[i]),
                       bad_group=group(i), bad_previous=plain(starts.iloc[i - 1]), bad_previous_group=group(i - 1),
                       bad_previous_arrival=plain(arrivals.iloc[i - 1]))
        yield pd.DataFrame([row], columns=names, dtype=object)

    summaries = [r.asDict() for r in stream.repartitionByRange(FIRST_ARRIVAL).sortWithinPartitions(FIRST_ARRIVAL, START)
                 .mapInPandas(summarize, schema).collect()]
    if any(s["nulls"] for s in summaries):
        return sum(s["n"] for s in summaries)  # the engine names the NULL row
    summaries.sort(key=lambda s: s["first_arrival"])
    offset, previous = position_offset, None
    for s in summaries:
        if previous is not None and s["first_start"] < previous["last_start"]:
            s = {**s, "bad_index": 0, "bad_arrival": s["first_arrival"], "bad_start": s["first_start"],
                 "bad_group": s["first_group"], "bad_previous": previous["last_start"],
                 "bad_previous_group": previous["last_group"], "bad_previous_arrival": previous["last_arrival"]}
        if s["bad_index"] is not None:
            position = offset + int(s["bad_index"])
            raise OutOfOrderError(
                field=start, position=position, group=json.loads(s["bad_group"]),
                value=_from_coordinate(s["bad_start"], spark_type),
                previous_value=_from_coordinate(s["bad_previous"], spark_type), seq=s["bad_arrival"],
                previous_position=position - 1, previous_group=json.loads(s["bad_previous_group"]), model=model,
                previous_seq=s["bad_previous_arrival"],
            )
        offset += s["n"]
        previous = s
    return offset - position_offset


def coordinate_type_of(spark_type: str) -> str:
    return "bigint" if spark_type.startswith("timestamp") or spark_type in ("tinyint", "smallint", "int",
                                                                             "bigint") else "double"


def coordinate_of(column, spark_type: str):
    """A time as a number that orders and compares like it: microseconds for timestamps."""
    from pyspark.sql import functions as F

    if spark_type.startswith("timestamp"):
        return F.unix_micros(column.cast("timestamp"))
    if spark_type in _NUMERIC:
        return column.cast(coordinate_type_of(spark_type))
    return column  # an arrival column of another type: compared as it is (general plan)


def _from_coordinate(value: Any, spark_type: str) -> Any:
    if value is None or not spark_type.startswith("timestamp"):
        return value
    return pd.Timestamp(int(value), unit="us", tz="UTC")
