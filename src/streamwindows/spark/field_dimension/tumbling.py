"""Tumbling windows of the field dimension (size = advance), as one Spark SQL aggregation.

When the size equals the advance, every tuple lies in exactly one grid window, the cell
``start = v - (v - offset) mod size``, whatever the gaps: ``openval(v)`` is that cell,
``single`` and ``all`` open the same window, and a window exists exactly when its group
has a tuple in it. The windows are then ``GROUP BY group, cell``, as a plain SQL query
would compute them, and the rest of the semantics is a lookup per cell:

* ``emitted_at`` is the smallest distinct field value >= the cell's end (the driver has
  the sorted distinct values from the arrival-order check); a cell that no value
  reaches is drained, or not emitted;
* ``emit_seq`` follows (window start, group's first arrival). A small aggregation in
  the same query gives each cell's groups as bitmaps of their ranks, 64 ranks a word,
  and a window over those words (one task, at most BITMAP_ENTRIES_LIMIT rows) their
  running count, so a window's number is its word's running count plus the set bits
  below its rank. Nothing else is sorted, and nothing but the sorted distinct values
  passes through the driver. Spark scans for the bitmaps while it scans for the
  windows (independent stages of one query run at once).

So each input row crosses one shuffle in Spark's own aggregation, with its partial
aggregation before it, and no Python worker. The value-range plan runs instead for
floating-point fields (their grid rounds), for aggregates whose Spark SQL form could
differ from the engine's (over floats: Spark sums in another order and counts NaN as a
value; the engine's other functions), and past BITMAP_ENTRIES_LIMIT.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from streamwindows.field_dimension import FieldDimensionParams

# The (cell, word) bitmap entries travel to the driver and back to every task.
BITMAP_ENTRIES_LIMIT = 1_000_000
_INTEGER_TYPES = {"tinyint", "smallint", "int", "bigint"}
# Column types whose FIRST/LAST/COUNT read the same in Spark SQL and in the engine
# (a float NaN is NULL to the engine and a value to Spark).
_PLAIN_TYPES = _INTEGER_TYPES | {"boolean", "string"}
_START, _WORD, _BASE, _BITS = "__cell_start__", "__rank_word__", "__word_base__", "__word_bits__"
_CELL = "__numbered_cell__"


def applies(params: FieldDimensionParams, schema: dict[str, str]) -> bool:
    """Whether the windows are plain cells and every aggregate has an exact SQL form."""
    return (params.exact and params.opening == "advance" and params.emit_every is None
            and params.size is not None and params.size == params.advance
            and all(_sql_form(a.function.name, [schema[c] for c in a.columns]) for a in params.aggregates))


def _sql_form(function: str, types: list[str]) -> bool:
    if function == "count":
        return not types or types[0] in _PLAIN_TYPES
    if function in ("sum", "avg", "min", "max"):
        return types[0] in _INTEGER_TYPES
    if function in ("first", "last"):
        return types[0] in _PLAIN_TYPES
    return False


def tumbling_windows(ranked_stream, params: FieldDimensionParams, *, values: np.ndarray, n_groups: int, seq: str,
                     value: str, group_rank: str, input_alias: dict[str, str], aggregate_types: dict[str, str],
                     coordinate_type: str, starts_after: Any, first_emit_seq: int):
    """The windows (group rank, window_start, window_end, emit_kind, emitted_at, emit_seq,
    row_count, aggregates), or None past BITMAP_ENTRIES_LIMIT.

    ``ranked_stream`` holds ``seq``, ``value`` (coordinates), ``group_rank`` (the group's
    rank by first arrival, 0 .. n_groups - 1) and the aggregates' inputs under
    ``input_alias``; ``values`` are the sorted distinct values of the rows it reads, which
    arrived in order with unique ``seq``.
    """
    from pyspark.sql import functions as F

    size, offset = int(params.size), int(params.offset)
    starts = np.unique(values - np.mod(values - offset, size))
    if starts_after is not None:
        starts = starts[starts > starts_after]
    words = -(-n_groups // 64)
    if len(starts) * words > BITMAP_ENTRIES_LIMIT:
        return None
    spark = ranked_stream.sparkSession
    cell = (F.col(value) - F.pmod(F.col(value) - F.lit(offset), F.lit(size))).alias(_START)
    cells = ranked_stream.select(cell, F.col(group_rank), *[F.col(a) for a in input_alias.values()], F.col(seq))
    if starts_after is not None:
        cells = cells.where(F.col(_START) > F.lit(starts_after))

    # Each cell's emission time, from the sorted distinct values on the driver; a cell
    # that no value reaches is drained, or left out.
    emitter = np.searchsorted(values, starts + size, side="left")
    reached = emitter < len(values)
    if not params.drain:
        starts, emitter, reached = starts[reached], emitter[reached], reached[reached]
    emitted_at = pd.array(values[np.minimum(emitter, len(values) - 1)], dtype="Int64")
    emitted_at[~reached] = pd.NA
    emission = pd.DataFrame({_START: starts, "emitted_at": emitted_at})

    # The groups of each cell, as rank bitmaps numbered by a running count of their
    # bits, in the query itself rather than collected first: Spark then scans for the
    # bitmaps while it scans for the windows (two stages at once, where the input's
    # splits leave a core idle), and the bitmaps never travel through the driver. The
    # running count is one window over the cells' words (one task: about
    # len(starts) * words rows, at most BITMAP_ENTRIES_LIMIT).
    from pyspark.sql import Window

    maps = (cells.groupBy(F.col(_START), F.shiftright(F.col(group_rank), 6).alias(_WORD))
            .agg(F.bit_or(_rank_bit(group_rank)).alias(_BITS))
            .join(F.broadcast(spark.createDataFrame(emission, f"{_START} bigint, emitted_at {coordinate_type}")),
                  _START))
    before = Window.orderBy(_START, _WORD).rowsBetween(Window.unboundedPreceding, -1)
    table = maps.withColumn(_BASE, F.lit(first_emit_seq).cast("bigint") + F.coalesce(
        F.sum(F.bit_count(F.col(_BITS)).cast("bigint")).over(before), F.lit(0).cast("bigint")))

    # The windows: one aggregation, then their cell's numbering and emission by lookup.
    windows = cells.groupBy(F.col(group_rank), F.col(_START)).agg(
        F.count(F.lit(1)).alias("row_count"),
        *[_aggregate(a.function.name, [input_alias[c] for c in a.columns], seq)
          .cast(aggregate_types[a.name]).alias(a.name) for a in params.aggregates])
    # The table's keys renamed: both sides derive from `cells`, and Spark would take
    # their same-named columns for one another.
    table = table.select(F.col(_START).alias(_CELL), F.col(_WORD), F.col(_BITS), F.col(_BASE), F.col("emitted_at"))
    joined = windows.join(F.broadcast(table), (windows[_START] == F.col(_CELL))
                          & (F.shiftright(windows[group_rank], 6) == F.col(_WORD)))
    below = _rank_bit(group_rank) - F.lit(1)
    return joined.select(
        F.col(group_rank), windows[_START].alias("window_start"),
        (windows[_START] + F.lit(size)).alias("window_end"),
        F.when(F.col("emitted_at").isNull(), F.lit("drain")).otherwise(F.lit("close")).alias("emit_kind"),
        F.col("emitted_at"),
        (F.col(_BASE) + F.bit_count(F.col(_BITS).bitwiseAND(below)).cast("bigint")).alias("emit_seq"),
        F.col("row_count"), *[F.col(a.name) for a in params.aggregates])


def _rank_bit(group_rank: str):
    """The rank's bit in its word: 1 << (rank mod 64)."""
    from pyspark.sql import functions as F

    return F.expr(f"shiftleft(1L, int({group_rank} & 63))")


def _aggregate(function: str, columns: list[str], seq: str):
    from pyspark.sql import functions as F

    if function == "count":
        return F.count(F.col(columns[0])) if columns else F.count(F.lit(1))
    column = F.col(columns[0])
    if function == "sum":
        return F.sum(column)
    if function == "avg":  # the engine's: the exact integer sum over the count, in float64
        return F.try_divide(F.sum(column).cast("double"), F.count(column))
    if function == "min":
        return F.min(column)
    if function == "max":
        return F.max(column)
    if function == "first":
        return F.min_by(column, F.col(seq))
    return F.max_by(column, F.col(seq))  # last
