"""tumble, hop, cumulate and window_top_n, run by Spark on random streams, equal the
reference written from Flink's window definitions (tests/engine/reference_sessions.py),
and the conventions table of docs/semantics.md holds cell by cell: TUMBLE equals Spark's
`window` (and its boundaries), HOP Spark's sliding `window`."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import HealthCheck, given, settings

from tests.conftest import compiled, spark_examples
from tests.engine.reference_sessions import reference_flink_windows, reference_window_top_n
from tests.macros.test_session_window_macro import as_times, assert_sessions_equal, load, streams

AGGREGATES = {"n_all": "count(*)", "sum_v": "sum(v)", "min_v": "min(v)", "first_v": "first(v)", "nest_v": "nest(v)",
              "rate_all": "rate(*)"}
AGGREGATES_SQL = "{" + ", ".join(f"'{k}': '{v}'" for k, v in AGGREGATES.items()) + "}"

CASES = [
    pytest.param("tumble", "size=4, offset=1", {"size": 4, "offset": 1}, id="tumble, offset"),
    pytest.param("hop", "size=5, slide=2", {"size": 5, "slide": 2}, id="hop, size not a multiple of slide"),
    pytest.param("cumulate", "size=6, step=2, offset=1", {"size": 6, "step": 2, "offset": 1}, id="cumulate, offset"),
]


def sort_windows(rows):
    return sorted(rows, key=lambda r: (r["p"] is not None, r["p"] or "", r["window_start"], r["window_end"]))


@pytest.mark.parametrize(("kind", "arguments", "shape"), CASES)
def test_flink_windows_over_numbers_match_the_reference(spark, kind, arguments, shape):
    sql = compiled(f"{{{{ stream_windows.{kind}('sw_sessions_input', time_column='t', {arguments}, partition_by='p', "
                   f"arrival_order='seq', aggregates={AGGREGATES_SQL}) }}}}")

    @settings(max_examples=spark_examples(12), deadline=None, suppress_health_check=list(HealthCheck))
    @given(stream=streams())
    def check(stream):
        load(spark, stream, as_timestamp=False)
        got = sort_windows([r.asDict() for r in spark.sql(sql).collect()])
        expected = reference_flink_windows(stream, kind=kind, partition_by=["p"], aggregates=AGGREGATES, **shape)
        bounds = [(r["window_start"], r["window_end"]) for r in expected]
        assert [(r["window_start"], r["window_end"]) for r in got] == bounds
        assert_sessions_equal(got, expected)

    check()


def test_tumble_and_hop_over_timestamps_are_spark_windows(spark):
    """The conventions table's TUMBLE and HOP rows: over timestamps, the same windows,
    boundaries and counts as Spark's `window(t, size[, slide])` grouped by key (start
    inclusive, end exclusive, no row for an empty window), and the reference's rows."""
    tumble = compiled("{{ stream_windows.tumble('sw_sessions_input', time_column='t', size='4 minutes', "
                      "partition_by='p', "
                      f"arrival_order='seq', aggregates={AGGREGATES_SQL}) }}}}")
    hop = compiled("{{ stream_windows.hop('sw_sessions_input', time_column='t', size='4 minutes', slide='2 minutes', "
                   f"partition_by='p', arrival_order='seq', aggregates={AGGREGATES_SQL}) }}}}")
    native = """select p, window.start as window_start, window.end as window_end, count(*) as n_all, sum(v) as sum_v
                from sw_sessions_input group by p, window(t, {})"""

    @settings(max_examples=spark_examples(10), deadline=None, suppress_health_check=list(HealthCheck))
    @given(stream=streams())
    def check(stream):
        load(spark, stream, as_timestamp=True)
        for sql, spark_window, shape in ((tumble, "'4 minutes'", {"kind": "tumble"}),
                                         (hop, "'4 minutes', '2 minutes'",
                                          {"kind": "hop", "slide": dt.timedelta(minutes=2)})):
            got = sort_windows([r.asDict() for r in spark.sql(sql).collect()])
            expected = reference_flink_windows(as_times(stream), size=dt.timedelta(minutes=4), partition_by=["p"],
                                               aggregates=AGGREGATES, **shape)
            assert_sessions_equal(got, expected)
            assert all(r["window_time"] == r["window_end"] - dt.timedelta(microseconds=1) for r in got)
            spark_rows = sort_windows([r.asDict() for r in spark.sql(native.format(spark_window)).collect()])
            assert [{k: r[k] for k in spark_rows[0]} for r in got] == spark_rows if spark_rows else not got

    check()


@pytest.mark.parametrize(("slide", "descending"), [(None, True), (2, False)],
                         ids=["tumbling, descending", "hopping, ascending"])
def test_window_top_n_matches_the_reference(spark, slide, descending):
    sql = compiled("{{ stream_windows.window_top_n('sw_sessions_input', time_column='t', size=4, n=2, "
                   f"order_by='v {'desc' if descending else 'asc'}', arrival_order='seq', partition_by='p'"
                   + (f", slide={slide}" if slide else "") + ") }}")

    @settings(max_examples=spark_examples(12), deadline=None, suppress_health_check=list(HealthCheck))
    @given(stream=streams())
    def check(stream):
        load(spark, stream, as_timestamp=False)
        got = sorted((r.asDict() for r in spark.sql(sql).collect()),
                     key=lambda r: (r["p"] is not None, r["p"] or "", r["window_start"], r["rank"]))
        expected = reference_window_top_n(stream, size=4, n=2, order_by="v", descending=descending, slide=slide,
                                          partition_by="p")
        assert got == expected

    check()
