"""StreamBase Aggregate operator with a field-based dimension, replayed in batch.

The contract is docs/semantics.md, StreamBase section: each tuple t (value v, group g), in arrival
order, (1) must not go below the previous tuple's value, (2) closes and emits every open
window of every group with ``s + size <= v``, (3) makes every open window emit an
intermediate row at each point ``p = s + k*emit_every < s + size`` (k >= 1) that v has
reached, once per point, counting only the points after the value v0 of the tuple that
opened the window (``p > v0``), (4) opens g's new windows, (5) enters g's open windows.
At end of input the open windows are emitted only when ``drain``.

The work splits into public steps that a distributed layer can run separately, because
which windows a group opens, and what they hold, depends on that group's rows only
(:mod:`.window_search`), and only the emission *time* involves other groups
(:mod:`.emissions`): :func:`validate_parameters` (no data), :func:`check_arrival_order`
(the whole stream), :func:`group_windows` (one group, embarrassingly parallel),
:func:`resolve_emissions` (as-of search of the thresholds in the global value sequence)
and :func:`order_emissions` (total order and output types).
:func:`field_dimension_aggregate` chains them on a pandas frame, running the per-group
step on all groups at once (the same vectorized core, over all groups' rows laid out
group after group). That core's three parts are public too, for a layer that lays out
many groups itself (the Spark value-range plan, spark/field_dimension/ranges.py):
:func:`window_candidates` (every window and emission point of rows laid out group after
group), :func:`grouped_search` (the search it needs: a group's first row with value >=
x) and :func:`window_durations` (a window's span, for RATE). Everything is
O(rows + windows + emission candidates) numpy work plus sorts; the only loop that is
not bounded by a constant is the pointer doubling of ``opening='none'`` (log2 of the
largest group's size rounds).

The modules, each importing only modules listed before it:

* ``params``: the column names, :class:`FieldDimensionParams`, :func:`validate_parameters`;
* ``columns``: how the steps carry columns between them (no copies; emit_kind as codes);
* ``coordinates``: :func:`check_arrival_order`, :func:`field_coordinates`;
* ``window_search``: :func:`window_candidates`, :func:`grouped_search`, and how the
  windows are found without replaying tuple by tuple;
* ``candidates``: :func:`group_windows`, the candidate columns with the aggregates,
  :func:`window_durations`;
* ``emissions``: :func:`resolve_emissions`;
* ``ordering``: :func:`order_emissions`;
* ``pipeline``: :func:`field_dimension_aggregate`.

Decisions the contract leaves open
----------------------------------
* Order within one tuple: all closes first, by (window start, group's first arrival);
  then the intermediates by (window start, group's first arrival, point). Drains come
  after everything, by (window start, group's first arrival).
* A window opened by a tuple of value v0 emits intermediate rows only at its points
  ``p > v0``: the points at or before v0 (a window 'all' opens in the past, or any grid
  window opened well after its start) went by before the window existed and are never
  emitted, on any later tuple. Points of a window that closes on the same tuple are not
  emitted: the window is gone when step 3 runs. Drain emits each still-open window once
  with its final contents; points never reached are not emitted.
* Without ``size`` there is no grid: ``advance`` must be omitted, ``offset`` must be 0
  and each group has one window, starting at its first value, that never closes. With
  ``opening='none'`` ``advance`` and a non-zero ``offset`` are rejected too.
  ``optional_windows='all'`` needs the grid (``opening='advance'`` and a ``size``).
* Windows opened on the grid hold at least their opening tuple; a grid window that would
  hold no tuple is never opened (the 0 -> 9.2 example).
* Number parameters with an integral value (``30`` or ``30.0``) are integers: an
  integer field with integer size, advance and offset keeps integer window bounds.
  Otherwise the computation runs in float64, with the grid ``offset + k*advance``
  evaluated in float64 and ``openval`` corrected so that ``openval(v) <= v`` holds as
  computed.
* Timestamp fields run on integer nanoseconds; ``size``, ``advance``, ``offset`` and
  ``emit_every`` are seconds (int or float, rounded to the nanosecond) or timedeltas.
  Window bounds and ``emitted_at`` come back as ``datetime64[ns]`` (time zone kept).
* Without ``size``, intermediate points continue for as long as the input does (a
  window that never closes emits at every point reached).
* Output types: ``window_start`` int64 / float64 / datetime64; ``window_end`` and
  ``emitted_at`` nullable (``Int64`` for integer bounds and integer fields); aggregates
  per :mod:`streamwindows.range_aggregates`.
* RATE divides by the window's duration ``window_end - window_start`` (seconds for a
  timestamp field, the field's unit otherwise), for intermediate rows too; without
  ``size`` a window has no end and RATE is NULL.
* NULL group keys form a group of their own (SQL GROUP BY). A NULL or infinite field
  value raises :class:`NullFieldError`; so does a NULL in the ``seq`` column. Ties in
  ``seq`` keep the frame's row order.
"""

from streamwindows.field_dimension.candidates import group_windows, window_durations
from streamwindows.field_dimension.coordinates import check_arrival_order, field_coordinates
from streamwindows.field_dimension.emissions import resolve_emissions
from streamwindows.field_dimension.ordering import order_emissions
from streamwindows.field_dimension.params import (
    ARRIVAL_POSITION,
    CANDIDATE_COLUMNS,
    OUTPUT_COLUMNS,
    FieldDimensionParams,
    validate_parameters,
)
from streamwindows.field_dimension.pipeline import field_dimension_aggregate
from streamwindows.field_dimension.window_search import grouped_search, window_candidates

__all__ = [
    "ARRIVAL_POSITION",
    "CANDIDATE_COLUMNS",
    "FieldDimensionParams",
    "OUTPUT_COLUMNS",
    "check_arrival_order",
    "field_coordinates",
    "field_dimension_aggregate",
    "group_windows",
    "grouped_search",
    "order_emissions",
    "resolve_emissions",
    "validate_parameters",
    "window_candidates",
    "window_durations",
]
