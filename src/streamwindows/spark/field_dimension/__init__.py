"""StreamBase's field-based dimension on Spark, distributed.

Two plans, the same output:

* **Grid windows that only close** (``opening='advance'``, a ``size``, no
  ``emit_every``: tumbling and hopping windows) run by ranges of the value axis
  (:mod:`streamwindows.spark.field_dimension.ranges`): one aggregation over the distinct
  field values checks arrival order and gives every emission time, and each range of
  window starts is one task of the engine's vectorized core. Each row crosses one
  shuffle and one Python pass (the general plan: two of each, and a global sort).
* **Everything else** (intermediate emission, ``opening='none'``, no ``size``, or more
  than two million distinct field values) runs the general plan below.

The pandas engine (:mod:`streamwindows.field_dimension`) splits the work into a
per-group part and a global part; in the general plan each runs where it belongs:

1. **Parameters** are validated on the driver against the DataFrame's schema, before
   any Spark job.
2. **Arrival order** (OutOfOrder, NULL field, NULL or repeated ``seq``) is checked on
   the stream range-partitioned by ``seq``: each partition checks itself and returns
   one summary row (first/last seq and value); the driver checks the P-1 boundaries.
   The summaries also cut the value axis into P contiguous ranges for step 4.
3. **Windows** of each group come from :func:`group_windows` in ``applyInPandas``, in
   parallel across groups: every window, each moment it may emit, its aggregates.
4. **Emission times** need the global stream: a candidate is emitted by the first
   tuple (any group) after its window opened whose value reaches its threshold. That
   as-of search runs per stream partition (cogroup of the partition's tuples with the
   candidates whose answer lies in it); candidates answered by a partition's first
   tuple are resolved from the driver's summaries without touching data.
5. **Order**: emissions are range-partitioned and sorted by (emitting tuple, phase,
   window start, group's first arrival, point); emit_seq is each partition's offset
   (from P counts) plus the row's index. No step funnels rows through one task or to
   the driver, and the result does not depend on the number of partitions.

The modules, each importing only those listed before it: :mod:`.grid_sql` and
:mod:`.ranges` (the value-range plan), :mod:`.arrival_order` (step 2),
:mod:`.general_plan` (steps 3 and 4), :mod:`.output` (step 5) and :mod:`.aggregate`
(the calls: step 1 and the choice of plan).
"""

from streamwindows.spark.field_dimension.aggregate import (
    field_dimension_aggregate_spark,
    field_dimension_incremental_spark,
)

__all__ = ["field_dimension_aggregate_spark", "field_dimension_incremental_spark"]
