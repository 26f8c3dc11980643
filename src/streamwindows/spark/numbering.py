"""``emit_seq`` over a Spark DataFrame: each row's rank in a total order, numbered in
parallel ranges rather than in one task."""

from __future__ import annotations

from collections.abc import Sequence

from streamwindows.spark.session import cached_until_next

_PART = "_sw_range"


def numbered(rows, keys: Sequence, first: int = 0, column: str = "emit_seq", parts: int | None = None):
    """``rows`` with ``column`` = ``first`` + the row's 0-based rank by ``keys`` (Columns
    that order the rows totally; NULLs first). The rows are range-partitioned on the
    keys (into ``parts`` ranges when given: a user's ``partitions=``; else as many as
    adaptive execution keeps) and sorted within each range; one job counts each range's rows, and a row's
    number is the count of the earlier ranges plus its place in its own. The ranged rows
    stay cached until this thread's next cache (session.cached_until_next): the counts
    belong to that one partitioning (a recomputed range partitioning may sample other
    bounds)."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    order = [k.asc_nulls_first() for k in keys]
    # No range count: adaptive execution may merge small neighbouring ranges (their order
    # kept), so a few rows are not cut into one range per shuffle partition.
    ranged = cached_until_next(rows.repartitionByRange(*([parts] if parts else []), *order).sortWithinPartitions(*order)
                               .withColumn(_PART, F.spark_partition_id()), StorageLevel.MEMORY_AND_DISK)
    offset_map = range_offsets(dict(ranged.groupBy(_PART).count().collect()), first)
    # Within a range the rows keep their sorted order; monotonically_increasing_id counts
    # them from the range's id shifted left by 33 bits.
    local = F.monotonically_increasing_id() - F.shiftleft(F.spark_partition_id().cast("bigint"), 33)
    return ranged.withColumn(column, F.element_at(offset_map, F.col(_PART)) + local).drop(_PART)


def range_offsets(counts: dict, first: int):
    """A map Column: range id -> the number of its first row (``first`` plus the rows of
    the ranges before it, by id), from ``counts`` (range id -> rows)."""
    from pyspark.sql import functions as F

    offsets, running = {0: first}, first  # (an empty map would not type)
    for part in sorted(counts):
        offsets[part] = running
        running += counts[part]
    return F.create_map(*[x for p, o in offsets.items() for x in (F.lit(p), F.lit(o).cast("bigint"))])
