"""Grid windows of the field dimension that only close, as Spark SQL aggregations:
tumbling windows (size = advance) and hopping windows whose size is a whole number of
advances.

**Tumbling.** Every tuple lies in exactly one grid window, the cell ``start = v - (v -
offset) mod size``, whatever the gaps: ``openval(v)`` is that cell, ``single`` and
``all`` open the same window, and a window exists exactly when its group has a tuple in
it. The windows are ``GROUP BY group, cell``, as a plain SQL query would compute them.

**Hopping** (size = k * advance) with ``optional_windows='all'``. A tuple lies in the
k grid windows ``openval(v) - j * advance`` (j < k), each of which exists (every grid
window that holds a tuple does under ``'all'``, whatever the gaps), and each holds whole
panes, the cells of width ``advance``: the group's tuples are aggregated per pane first,
and each pane's parts are merged into the k windows holding it (the panes technique).
Under ``'single'`` a tuple after a gap opens only its own cell, so which windows exist
depends on the tuples before a pane; finding each run's first pane (a window over the
group's panes, or handing each pane's last value to the windows after it in the same
aggregation) made the plan 1.2-1.6 times the value-range plan's time (probes at 2M and
10M trades, 70/10; docs/spark-plans.md), so ``'single'`` keeps the value-range plan.

Either way the rest of the semantics is a lookup per window start:

* ``emitted_at`` is the smallest distinct field value >= the window's end (the driver
  has the sorted distinct values from the arrival-order check); a window that no value
  reaches is drained, or not emitted;
* ``emit_seq`` follows (window start, group's first arrival). A small aggregation in
  the same query gives each start's groups as bitmaps of their ranks, 64 ranks a word,
  and a window over those words (one task, at most BITMAP_ENTRIES_LIMIT rows) their
  running count, so a window's number is its word's running count plus the set bits
  below its rank. Nothing else is sorted, and nothing but the sorted distinct values
  passes through the driver. For tumbling windows Spark scans for the bitmaps while it
  scans for the windows (independent stages of one query run at once).

So no input row reaches a Python worker. The value-range plan runs instead for
floating-point fields (their grid rounds), for aggregates whose Spark SQL form could
differ from the engine's (over floats: Spark sums in another order and counts NaN as a
value; the engine's other functions), for a size that is no whole number of advances,
for hopping windows under ``'single'`` or in scheduled runs, and past
BITMAP_ENTRIES_LIMIT.
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
_PANE, _PANE_ROWS = "__pane__", "__pane_rows__"


def applies(params: FieldDimensionParams, schema: dict[str, str], *, incremental: bool = False) -> bool:
    """Whether the windows are whole panes on an integer grid, each that holds a tuple
    exists, and every aggregate has an exact SQL form (hopping windows: under 'all', in
    a full build)."""
    if not (params.exact and params.opening == "advance" and params.emit_every is None and params.size is not None
            and all(_sql_form(a.function.name, [schema[c] for c in a.columns]) for a in params.aggregates)):
        return False
    if params.size == params.advance:
        return True
    return (not incremental and params.optional_windows == "all"
            and int(params.size) % int(params.advance) == 0)


def _sql_form(function: str, types: list[str]) -> bool:
    if function == "count":
        return not types or types[0] in _PLAIN_TYPES
    if function in ("sum", "avg", "min", "max"):
        return types[0] in _INTEGER_TYPES
    if function in ("first", "last"):
        return types[0] in _PLAIN_TYPES
    return False


def grid_windows(ranked_stream, params: FieldDimensionParams, *, values: np.ndarray, n_groups: int, seq: str,
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

    size, advance, offset = int(params.size), int(params.advance), int(params.offset)
    panes_per_window = size // advance
    own_cells = np.unique(values - np.mod(values - offset, advance))
    starts = np.unique((own_cells[:, None] - advance * np.arange(panes_per_window)[None, :]).ravel())
    if starts_after is not None:
        starts = starts[starts > starts_after]
    words = -(-n_groups // 64)
    if len(starts) * words > BITMAP_ENTRIES_LIMIT:
        return None
    spark = ranked_stream.sparkSession
    if panes_per_window == 1:
        cell = (F.col(value) - F.pmod(F.col(value) - F.lit(offset), F.lit(size))).alias(_START)
        cells = ranked_stream.select(cell, F.col(group_rank), *[F.col(a) for a in input_alias.values()], F.col(seq))
        if starts_after is not None:
            cells = cells.where(F.col(_START) > F.lit(starts_after))
        # The windows: one aggregation.
        windows = cells.groupBy(F.col(group_rank), F.col(_START)).agg(
            F.count(F.lit(1)).alias("row_count"),
            *[_aggregate(a.function.name, [input_alias[c] for c in a.columns], seq)
              .cast(aggregate_types[a.name]).alias(a.name) for a in params.aggregates])
        starts_of = cells  # the bitmaps scan the input beside the windows' aggregation
    else:  # a full build only (applies): no window starts before starts_after to leave out
        windows = _hopping_windows(ranked_stream, params, seq=seq, value=value, group_rank=group_rank,
                                   input_alias=input_alias, aggregate_types=aggregate_types)
        starts_of = windows

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

    maps = (starts_of.groupBy(F.col(_START), F.shiftright(F.col(group_rank), 6).alias(_WORD))
            .agg(F.bit_or(_rank_bit(group_rank)).alias(_BITS))
            .join(F.broadcast(spark.createDataFrame(emission, f"{_START} bigint, emitted_at {coordinate_type}")),
                  _START))
    before = Window.orderBy(_START, _WORD).rowsBetween(Window.unboundedPreceding, -1)
    table = maps.withColumn(_BASE, F.lit(first_emit_seq).cast("bigint") + F.coalesce(
        F.sum(F.bit_count(F.col(_BITS)).cast("bigint")).over(before), F.lit(0).cast("bigint")))

    # Each window's numbering and emission, by lookup of its start.
    # The table's keys renamed: both sides derive from the input, and Spark would take
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


def _hopping_windows(ranked_stream, params: FieldDimensionParams, *, seq: str, value: str, group_rank: str,
                     input_alias: dict[str, str], aggregate_types: dict[str, str]):
    """(group rank, window start, row_count, aggregates) of hopping windows under
    'all', from panes: each group's tuples aggregated per cell of width ``advance`` into
    mergeable parts, each pane merged into the size/advance windows holding it."""
    from pyspark.sql import functions as F

    size, advance, offset = int(params.size), int(params.advance), int(params.offset)
    pane = (F.col(value) - F.pmod(F.col(value) - F.lit(offset), F.lit(advance))).alias(_PANE)
    # Laid out by group once: the panes' aggregation and the windows' then need no
    # other exchange (an aggregation by group and pane would shuffle the panes again).
    panes = ranked_stream.repartition(F.col(group_rank)).groupBy(F.col(group_rank), pane).agg(
        F.count(F.lit(1)).alias(_PANE_ROWS), *[part for a in params.aggregates for part in _parts(a, input_alias, seq)])
    spread = panes.withColumn(_START, F.explode(F.sequence(F.col(_PANE) - F.lit(size - advance), F.col(_PANE),
                                                           F.lit(advance))))
    return spread.groupBy(F.col(group_rank), F.col(_START)).agg(
        F.sum(F.col(_PANE_ROWS)).alias("row_count"),
        *[_merged(a).cast(aggregate_types[a.name]).alias(a.name) for a in params.aggregates])


def _part(aggregate, index: int) -> str:
    return f"__part_{index}_{aggregate.name}__"


def _parts(aggregate, input_alias: dict[str, str], seq: str) -> list:
    """A pane's mergeable parts of one aggregate (named by _part)."""
    from pyspark.sql import functions as F

    function, columns = aggregate.function.name, [input_alias[c] for c in aggregate.columns]
    if function == "count":
        return [(F.count(F.col(columns[0])) if columns else F.count(F.lit(1))).alias(_part(aggregate, 0))]
    column = F.col(columns[0])
    if function == "avg":
        return [F.sum(column).alias(_part(aggregate, 0)), F.count(column).alias(_part(aggregate, 1))]
    if function in ("first", "last"):  # the value at the pane's least or greatest seq
        pick = F.min if function == "first" else F.max
        return [pick(F.struct(F.col(seq).alias("seq"), column.alias("value"))).alias(_part(aggregate, 0))]
    return [{"sum": F.sum, "min": F.min, "max": F.max}[function](column).alias(_part(aggregate, 0))]


def _merged(aggregate):
    """One aggregate over a window, from its panes' parts."""
    from pyspark.sql import functions as F

    function, part = aggregate.function.name, F.col(_part(aggregate, 0))
    if function in ("count", "sum"):
        return F.sum(part)
    if function == "avg":  # the engine's: the exact integer sum over the count, in float64
        return F.try_divide(F.sum(part).cast("double"), F.sum(F.col(_part(aggregate, 1))))
    if function in ("min", "max"):
        return (F.min if function == "min" else F.max)(part)
    return (F.min if function == "first" else F.max)(part).getField("value")


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
