"""Odysseus interval (validity) semantics on Spark.

The input is one stream ordered by start across all groups, and time is shared by the
groups (docs/semantics.md, Odysseus section, as :func:`streamwindows.interval_aggregate`
decides): a piece of group g is emitted by the first event of *any* group that starts at
or after its end, once the piece exists (its end is a boundary of g). So the work splits
in two:

* **Pieces** depend on their group's events only: each group's events go whole to one
  engine call (:func:`streamwindows.interval_semantics.interval_pieces`, many groups per
  call: spark/per_group.py), which gives every piece, its aggregates, the arrival from
  which it exists and the group's first arrival.
* **Emission** needs the whole stream: ``emitted_at`` is the smallest start of the
  stream >= the piece's end, an as-of search of the piece's end in the stream's sorted
  distinct starts, as the field dimension's value-range plan finds its closes
  (spark/field_dimension/ranges.py). One aggregation over the distinct starts (each
  with its first and last arrival) gives them to the driver, which broadcasts them to a
  search in the engine's tasks; the same table checks the arrival order (the stream is
  ordered iff each start's arrivals all come before the next start's). The emitting
  event is the later of the first event starting at ``emitted_at`` and the event from
  which the piece exists.

Past DISTINCT_VALUES_LIMIT distinct starts the general plan runs instead: the stream,
range-partitioned by arrival, checks its order per partition (the driver checks the
boundaries), and the as-of search is a cogroup of the pieces' distinct ends with the
distinct starts by ranges of the value axis (cut at quantiles of the starts); an end with
no start after it in its range takes the next ranges' smallest start, which the driver
knows from one row per range.

An event starting before the previous one fails with the OutOfOrderError that names
both events' groups (the exact check runs when the cheap one finds a problem).
``emit_seq`` numbers the rows in the pandas engine's order (emitting event, then piece
start, then the group's first arrival; drains last): over one task for small outputs
or on a machine of ONE_TASK_UP_TO_CORES cores or fewer, else per range of
``emitted_at``, with offsets from the ranges' counts.
``dump_at_value_count`` is refused here.

Scheduled runs (:func:`interval_aggregate_incremental_spark`, docs/semantics.md, Incremental runs section)
rebuild only what new events can change; see its docstring.

The modules, each importing only those listed before it: :mod:`.stream` (the stream's
times as coordinates, its distinct starts and the exact arrival-order check),
:mod:`.emission` (the pieces, their emission and ``emit_seq``) and :mod:`.aggregate`
(the calls, full builds and scheduled runs).
"""

from streamwindows.spark.interval_semantics.aggregate import (
    interval_aggregate_incremental_spark,
    interval_aggregate_spark,
)

__all__ = ["interval_aggregate_incremental_spark", "interval_aggregate_spark"]
