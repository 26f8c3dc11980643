"""Odysseus interval semantics (the engine on Spark, whole groups per call) against a
plain Spark SQL query that computes the same rows, emission columns included: 1,000,000
events over 1,000 groups, one stream ordered by start across the groups (as the semantics
require: 100 events per time unit, a group's events 10 units apart), about 10 valid at
any time in a group (lifetimes 1-199); COUNT, SUM, MAX per elementary interval.
Alternating rounds (bench/rounds.py), judged by the medians. Printed beside them: the
plain SQL's pieces without the emission columns, and the boundary sort alone, a floor no
plan can beat."""

from __future__ import annotations

from bench.harness import time_query, to_noop
from bench.rounds import alternating, paired

ROWS = 1_000_000
GROUPS = 1_000
GOAL = 1.0

COLUMNS = ["grp", "window_start", "window_end", "events_valid", "price_sum", "max_price"]
EMISSIONS = ["emit_kind", "emitted_at", "emit_seq"]


def plain_sql(bucket: int, source: str = "bench_interval_events", dialect: str = "spark",
              arrival: str | None = None) -> str:
    """The pieces in plain SQL: every event's two boundaries exploded, the distinct ones
    paired by lead() into a group's elementary intervals, and each piece joined with the
    events that cover it. An interval join has no equi-key, so both sides carry a time
    bucket: a piece its start's, an event every bucket it spans (`bucket` at least the
    longest lifetime, each event spans at most two). A piece no event covers has no row,
    as in the engine's output. `dialect` 'spark' or 'duckdb' (bench/single_machine.py)
    differs only in how a row is exploded and in integer division. With `arrival` (the
    arrival column), each piece also carries `end_arrival`: the first arrival of an
    event of its group with a boundary at its end, from which the piece exists."""
    if dialect == "duckdb":
        div = "//"
        boundaries = "cross join unnest([valid_from, valid_to]) as b(t)"
        buckets = f"cross join unnest(range(valid_from // {bucket}, (valid_to - 1) // {bucket} + 1)) as s(bucket)"
    else:
        div = "div"
        boundaries = "lateral view explode(array(valid_from, valid_to)) b as t"
        buckets = f"lateral view explode(sequence(valid_from div {bucket}, (valid_to - 1) div {bucket})) s as bucket"
    first_arrival = f", min({arrival}) as first_arrival" if arrival else ""
    end_arrival = ", lead(first_arrival) over (partition by grp order by t) as end_arrival" if arrival else ""
    end_arrival_out = ", p.end_arrival" if arrival else ""
    return f"""
        with boundaries as (
            select grp, t{first_arrival} from {source}
            {boundaries}
            group by grp, t
        ), pieces as (
            select grp, t as window_start, lead(t) over (partition by grp order by t) as window_end,
                   t {div} {bucket} as bucket{end_arrival}
            from boundaries
        ), covering as (
            select grp, valid_from, valid_to, price, bucket from {source}
            {buckets}
        )
        select p.grp, p.window_start, p.window_end, count(*) as events_valid, sum(c.price) as price_sum,
               max(c.price) as max_price{end_arrival_out}
        from pieces as p join covering as c
            on p.grp = c.grp and p.bucket = c.bucket
            and c.valid_from <= p.window_start and p.window_start < c.valid_to
        where p.window_end is not null
        group by p.grp, p.window_start, p.window_end{end_arrival_out}
    """


def with_emissions(pieces_sql: str, source: str = "bench_interval_events", arrival: str = "seq") -> str:
    """The same rows as the engine's, emission columns included (Spark SQL), over
    `pieces_sql` = plain_sql(..., arrival=...). A piece is emitted by the stream's smallest
    start at or after its end (`emitted_at`; progress is global), or drained at the end of
    input (NULL). The emitting element is the first to start at emitted_at, or the event
    from which the piece exists (`end_arrival`) if that one arrives later; `emit_seq`
    numbers the rows by the emitting element's arrival (drains last), then piece start,
    then the group's first arrival. Both are global orders, so Spark computes them as
    windows over the whole stream (one task): emitted_at with its first arrival for every
    boundary by a running MIN over the boundaries in descending time (a start at a
    boundary's time counts), the numbers by row_number()."""
    return f"""
        with pieces as ({pieces_sql}
        ), firsts as (
            select grp, min({arrival}) as first_arrival from {source} group by grp
        ), timeline as (
            select valid_from as t, min({arrival}) as arrival, true as is_start from {source} group by valid_from
            union all
            select distinct valid_to as t, cast(null as bigint) as arrival, false as is_start from {source}
        ), emitting as (
            select distinct t as window_end, emitter.t as emitted_at, emitter.arrival as emitted_arrival from (
                select t, min(case when is_start then named_struct('t', t, 'arrival', arrival) end) over (
                    order by t desc, is_start desc rows between unbounded preceding and current row) as emitter
                from timeline
            )
        )
        select p.grp, p.window_start, p.window_end, p.events_valid, p.price_sum, p.max_price,
               case when e.emitted_at is null then 'drain' else 'close' end as emit_kind, e.emitted_at,
               row_number() over (
                   order by case when e.emitted_at is not null then greatest(e.emitted_arrival, p.end_arrival) end
                            asc nulls last,
                            p.window_start, f.first_arrival) - 1 as emit_seq
        from pieces as p join emitting as e on p.window_end = e.window_end join firsts as f on p.grp = f.grp
    """


PATH = ".spark/bench/interval_events"


def make_events(spark, rows: int = ROWS, path: str = PATH):
    """The events, written to `path` and registered as the view bench_interval_events."""
    spark.sql(f"""
        select seq, grp, valid_from, valid_from + 1 + pmod(hash(seq, 7), 199) as valid_to,
               cast(pmod(hash(seq, 11), 1000) as double) / 10 as price
        from (
            select id + 1 as seq, pmod(id, {GROUPS}) as grp, id div 100 as valid_from
            from range({rows})
        )
    """).write.mode("overwrite").parquet(path)
    events = spark.read.parquet(path)
    events.createOrReplaceTempView("bench_interval_events")
    return events


def engine(events):
    from streamwindows.spark import interval_aggregate_spark

    return interval_aggregate_spark(events, start="valid_from", end="valid_to", group_by="grp", arrival="seq",
                                    aggregates={"events_valid": "count(*)", "price_sum": "sum(price)",
                                                "max_price": "max(price)"})


def run(spark) -> list[dict]:
    events = make_events(spark)
    longest = spark.sql("select max(valid_to - valid_from) as n from bench_interval_events").first()["n"]
    pieces_sql = plain_sql(longest)
    baseline_sql = with_emissions(plain_sql(longest, arrival="seq"))
    result = engine(events)
    result.createOrReplaceTempView("bench_interval_result")
    spark.sql(baseline_sql).createOrReplaceTempView("bench_interval_plain_sql")
    # The same rows, emission columns included (sums to 6 decimals: the two plans add in
    # different orders), checked once, untimed.
    same = ", ".join(f"round({c}, 6) as {c}" if c == "price_sum" else c for c in COLUMNS + EMISSIONS)
    a, b = f"select {same} from bench_interval_result", f"select {same} from bench_interval_plain_sql"
    differing = spark.sql(f"select count(*) as n from (({a} except all {b}) union all ({b} except all {a}))"
                          ).first()["n"]
    pieces = spark.sql("select count(*) as n from bench_interval_result").first()["n"]
    if differing or not pieces:
        raise AssertionError(f"the plain SQL baseline and the engine differ in {differing} of {pieces} pieces")

    # The engine is timed from the call: building its DataFrame runs its jobs on the
    # driver's side (the distinct starts, the order check, the pieces cached and counted
    # for emit_seq), and the write then reads that cache. (Timing only the write of a
    # DataFrame built before, as this benchmark did until 2026-11-27, times a cache read.)
    base, measured = alternating(to_noop(baseline_sql), to_noop(lambda: engine(events)))
    pieces_only_s = time_query(spark, pieces_sql)
    floor_s = time_query(spark, """
        select grp, boundary from (
            select grp, valid_from as boundary from bench_interval_events
            union all
            select grp, valid_to as boundary from bench_interval_events
        ) order by grp, boundary
    """)
    print(f"  intervals: plain SQL {base.median:.2f}s {base.shown}, interval semantics {measured.median:.2f}s "
          f"{measured.shown} ({pieces:,} pieces, equal); the pieces alone {pieces_only_s:.2f}s; boundary sort "
          f"{floor_s:.2f}s", flush=True)
    return [paired(
        "Odysseus interval semantics COUNT/SUM/MAX, 1M events, 1k groups",
        f"plain SQL: boundaries exploded, pieces by lead(), joined to the covering events by {longest}-unit time "
        f"bucket; emitted_at and emit_seq by windows over the whole stream", base, "interval_aggregate_spark",
        measured, GOAL,
        also=f"{pieces:,} elementary intervals, the same rows from both (emission columns included); context, "
             f"median of 3: the plain SQL's pieces without the emission columns {pieces_only_s:.2f}s (the engine "
             f"{measured.median / pieces_only_s:.2f} times it), the boundary sort alone (ORDER BY grp, boundary over "
             f"the 2M boundaries) {floor_s:.2f}s (the engine {measured.median / floor_s:.2f} times it)")]
