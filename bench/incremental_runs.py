"""Scheduled runs: adding one day to a long history, against rebuilding it.

bench/incremental_project holds ten incremental window models over a synthetic source
(1,000 groups, one event every ~3.15 s from 2024-01-01, so 10,000,000 events are a year
and 30,000,000 three): a trailing 24-hour RANGE, a 24-hour RANGE FOLLOWING, ROWS 9
PRECEDING, a count window over 100 distinct start times, a Fenl cumulative window with a
repeated stage, a Fenl sliding(10, pred) window with a repeated stage, a Fenl daily cron
window and Odysseus hourly partial aggregates, all with day partitions; a Python model
of the field dimension (6-hour windows advancing by 1 hour) that appends closed windows,
and a Python model of interval semantics (every event valid for 2 hours) partitioned by
the day its pieces were emitted. At each history size (SCALES): the source first holds
every event before its last three days and the models are built whole
(--full-refresh); then each of the three days arrives, as new files beside the
history's, and the models run incrementally; then they run once more with nothing new.
The figure is each model's own run time (dbt's node execution time, every statement of
its materialization): the median of its three one-day runs over its full rebuild
through dbt over all the events (goal 0.10); the run with no new input against 2 s; and
the one-day median at the largest history over the smallest (goal 1.2). The model's
windows over the whole history in one query with no write (one_query_seconds), the
first full build and the whole dbt invocations are reported beside. The per-row tables are
checkedThe per-row tables are
checked to hold exactly one row per source event, the count window one row per group and start time
from each group's 100th on, the field windows one row per closed window (counted with
Spark's window()) numbered 0..n-1, the cron window one row per group and day of the span,
the panes one row per group and hour holding an event, and the interval pieces the
events' validity exactly (their event counts times their lengths sum to every event's
2 hours) with the open pieces drained of every group whose last event is still valid at the
latest start. At the end every model's table equals, row for row, its full rebuild over
the same events: matched on its key, every value equal, doubles within 1e-9 of the
larger (a Fenl state's sums reach 10^5-10^6 over the year, where the replay tests' 9
decimals are below a double's precision: those rows are counted and reported).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import statistics
import time
from datetime import timedelta
from pathlib import Path

from bench.harness import PROJECT_DIR, time_query
from tests.incremental.replay import differing_rows

BENCH_PROJECT = Path(__file__).parent / "incremental_project"
SCHEMA = "stream_windows_incremental_bench"
# The histories, in events (one every 3.15 s from 2024-01-01: 10M is a year, 30M three):
# the one-day runs must cost the same at each (BENCH_INCREMENTAL_ROWS to choose others).
SCALES = tuple(int(n) for n in os.environ.get("BENCH_INCREMENTAL_ROWS", "10000000,30000000").split(","))
GROUPS = 1_000
GOAL = 0.10  # a one-day run over the full rebuild
SCALE_GOAL = 1.2  # the one-day run at the largest history over at the smallest
IDLE_GOAL_S = 2.0  # a run with no new input
MODELS = ("events_stats_24h", "events_next_24h", "events_last_10", "events_count_window_100", "events_field_6h",
          "events_fenl_cumulative", "events_fenl_sliding_10", "events_fenl_daily", "events_hourly_partials",
          "events_valid_2h")
FIELD_WINDOW = "events_field_6h"
CRON_WINDOW = "events_fenl_daily"
PANES = "events_hourly_partials"
INTERVALS = "events_valid_2h"
VALID_SECONDS = 7200
DAYS = 3  # the history's last days, each arriving in a run of its own (the last one partial)
AFTER_RUNS = "__after_runs"  # a model's table after its incremental runs, beside its full rebuild


def dbt(*args: str):
    from dbt.cli.main import dbtRunner

    paths = [] if args[0] == "deps" else ["--target-path", str(PROJECT_DIR / ".spark" / "bench" / "incremental_target")]
    result = dbtRunner().invoke([*args, "--project-dir", str(BENCH_PROJECT), "--profiles-dir", str(PROJECT_DIR),
                                 *paths])
    if not result.success:
        raise RuntimeError(f"dbt {' '.join(args)} failed: {result.exception or result.result}")
    return result


class _FullBuild:
    """What a Python model's function reads of its `dbt` argument, for a full build: the
    source table, no previous table, a config that changes nothing. Its `this` is a
    scratch name, so that the build's staged fingerprints (part of a full build's cost)
    go beside the model's, not into its set."""

    is_incremental = False

    def __init__(self, spark, model: str) -> None:
        self.spark, self.this = spark, f"{SCHEMA}.{model}__one_query"

    def config(self, **_: object) -> None:
        pass

    def source(self, _source: str, table: str):
        return self.spark.table(f"{SCHEMA}.{table}")


def one_query_seconds(spark, model: str) -> tuple[float, list[float]]:
    """The model's windows over the whole history in one query, every row computed and
    none written (the noop sink): a SQL model's select as dbt compiles it for a full
    build; a Python model's function on the source with no previous table (building its
    DataFrame runs the engine's planning jobs, so they are timed too). The median of 3
    for a SQL model, one run for a Python model (2-4 minutes each)."""
    python = BENCH_PROJECT.glob(f"models/**/{model}.py")
    path = next(python, None)
    if path is None:
        with contextlib.redirect_stdout(io.StringIO()):  # dbt compile prints the SQL
            compiled = dbt("compile", "--select", model, "--full-refresh", "--threads", "1", "--quiet")
        sql = compiled.result.results[0].node.compiled_code
        runs = [time_query(spark, sql, repeats=1) for _ in range(3)]
        return statistics.median(runs), runs
    spec = importlib.util.spec_from_file_location(f"bench_model_{model}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    started = time.perf_counter()
    module.model(_FullBuild(spark, model), spark).write.format("noop").mode("overwrite").save()
    seconds = time.perf_counter() - started
    return seconds, [seconds]


def compare_with_rebuild(spark, model: str, key: str) -> dict:
    """The model's table after its runs ({model}__after_runs) against its full rebuild
    (the model's table now), matched on `key` (unique in both: checked before):
    `unmatched` rows in one and not the other, `differing` matched rows with a value
    apart (doubles: by more than 1e-9 of the larger; others: at all), the largest
    relative difference of a double, and `rounded_apart`, the rows of the replay
    tests' comparison (except all, doubles to 9 decimals) that differ. A carried state
    adds a sum's parts in another order than a rebuild's running sum: over a year the
    sums reach 10^5-10^6, where 9 decimals are below a double's precision."""
    table, rebuild = f"{SCHEMA}.{model}{AFTER_RUNS}", f"{SCHEMA}.{model}"
    fields = spark.table(rebuild).schema.fields
    keys = [k.strip() for k in key.split(",")]
    doubles = [f.name for f in fields if f.dataType.typeName() in ("double", "float")]
    exact = [f.name for f in fields if f.name not in keys and f.name not in doubles]
    apart = [f"not (a.{c} <=> b.{c})" for c in exact] + [
        f"not (a.{c} <=> b.{c} or abs(a.{c} - b.{c}) <= 1e-9 * greatest(abs(a.{c}), abs(b.{c})))" for c in doubles]
    relative = [f"coalesce(abs(a.{c} - b.{c}) / nullif(greatest(abs(a.{c}), abs(b.{c})), 0), 0)" for c in doubles]
    row = spark.sql(f"""
        select
            count(case when a._sw_in is null or b._sw_in is null then 1 end) as unmatched,
            count(case when a._sw_in and b._sw_in and ({' or '.join(apart) or 'false'}) then 1 end) as differing,
            coalesce(max({f"greatest({', '.join(relative)})" if len(relative) > 1 else (relative or ['0'])[0]}), 0)
                as max_relative
        from (select *, true as _sw_in from {table}) as a
        full outer join (select *, true as _sw_in from {rebuild}) as b
            on {' and '.join(f'a.{k} <=> b.{k}' for k in keys)}
    """).first().asDict()
    return {**row, "rounded_apart": differing_rows(spark, model, table, SCHEMA)}


def selected_models() -> tuple[str, ...]:
    """MODELS, or those named in BENCH_INCREMENTAL_MODELS (comma-separated): a check of
    one model's runs against its rebuild in minutes, not the whole bench's 40."""
    named = [m.strip() for m in os.environ.get("BENCH_INCREMENTAL_MODELS", "").split(",") if m.strip()]
    unknown = sorted(set(named) - set(MODELS))
    if unknown:
        raise ValueError(f"BENCH_INCREMENTAL_MODELS: unknown model(s) {unknown}; known: {', '.join(MODELS)}")
    return tuple(m for m in MODELS if m in named) if named else MODELS


def timed_run(*args: str) -> tuple[dict[str, float], float]:
    """Each model's seconds, and the invocation's. One thread (the profile has four):
    a model's time is then its own, not shared with models running beside it."""
    started = time.perf_counter()
    result = dbt("run", "--select", *selected_models(), "--threads", "1", *args)
    return {r.node.name: r.execution_time for r in result.result.results}, time.perf_counter() - started


def run(spark) -> list[dict]:
    dbt("deps", "--quiet")
    results, one_day = [], {}
    for rows in SCALES:
        at_scale, one_day[rows] = run_at(spark, rows)
        results += at_scale
    if len(SCALES) > 1:
        small, large = SCALES[0], SCALES[-1]
        for model in selected_models():
            results.append({
                "benchmark": f"incremental {model}: one more day over {large // 1_000_000}M events of history "
                             f"against over {small // 1_000_000}M",
                "baseline": f"its one-day run over {small:,} events (median of {DAYS})",
                "baseline_s": one_day[small][model],
                "measured": f"its one-day run over {large:,} events (median of {DAYS})",
                "measured_s": one_day[large][model], "ratio": one_day[large][model] / one_day[small][model],
                "goal": SCALE_GOAL, "also": ""})
    return results


def run_at(spark, rows: int) -> tuple[list[dict], dict[str, float]]:
    """The result rows over a history of `rows` events, and each model's median one-day
    run."""
    models = selected_models()
    path = ".spark/bench/incremental_events"
    spark.sql(f"""
        select id + 1 as seq, pmod(hash(id, 7), {GROUPS}) as grp,
               timestamp_seconds(1704067200 + cast(id * 3.15 as bigint)) as event_at,
               cast(pmod(hash(id, 11), 1000) as double) / 10 as amount
        from range({rows})
    """).write.mode("overwrite").parquet(path)
    spark.read.parquet(path).createOrReplaceTempView("bench_incremental_all")
    last = spark.sql("select to_date(max(event_at)) as d from bench_incremental_all").first()["d"]
    days = [str(last - timedelta(days=DAYS - 1 - i)) for i in range(DAYS)]
    spark.sql(f"create schema if not exists {SCHEMA}")
    spark.sql(f"drop table if exists {SCHEMA}.events")
    spark.sql(f"create table {SCHEMA}.events using parquet as "
              f"select * from bench_incremental_all where event_at < '{days[0]}'")
    history = spark.sql(f"select count(*) as n from {SCHEMA}.events").first()["n"]
    full, full_wall = timed_run("--full-refresh")
    runs = []  # per day: (events, model -> seconds, whole invocation seconds)
    for day in days:
        # A day's events land as new files beside the history's, as a lakehouse
        # source grows.
        spark.sql(f"insert into {SCHEMA}.events select * from bench_incremental_all "
                  f"where to_date(event_at) = date'{day}'")
        new = spark.sql(f"select count(*) as n from bench_incremental_all where to_date(event_at) = date'{day}'"
                        ).first()["n"]
        runs.append((new, *timed_run()))
    idle, _ = timed_run()  # no new input since the last run
    events = spark.sql(f"select count(*) as n from {SCHEMA}.events").first()["n"]
    windows = spark.sql(f"select sum(greatest(times - 99, 0)) as n from (select count(distinct event_at) as times "
                        f"from {SCHEMA}.events group by grp)").first()["n"]
    # Field windows: one per group and hour start whose 6 hours hold an event of the
    # group and that an event (any group) has closed; emit_seq 0..n-1 without a gap.
    field_windows = spark.sql(f"""
        select count(*) as n from (
            select grp, window(event_at, '6 hours', '1 hour') as w from {SCHEMA}.events group by 1, 2
        ) where w.end <= (select max(event_at) from {SCHEMA}.events)""").first()["n"]
    # Cron rows: every group on every day of the span (from 2024-01-01).
    span = spark.sql(f"select datediff(max(event_at), min(event_at)) + 1 as n from {SCHEMA}.events").first()["n"]
    panes = spark.sql(f"select count(distinct grp, date_trunc('hour', event_at)) as n "
                      f"from {SCHEMA}.events").first()["n"]
    pieces = {"n": None}
    if INTERVALS in models:
        pieces = spark.sql(f"""
            select count(*) as n, sum(event_count * (unix_seconds(window_end) - unix_seconds(window_start))) as covered,
                   count(distinct case when emit_kind = 'drain' then grp end) as drained
            from {SCHEMA}.{INTERVALS}""").first()
        # A group has open (drained) pieces when its last event is still valid at the
        # stream's latest start: valid until after it.
        open_groups = spark.sql(f"""
            select count(*) as n from (select grp, max(event_at) as last_at from {SCHEMA}.events group by grp)
            where last_at + make_interval(0, 0, 0, 0, 0, 0, {VALID_SECONDS})
                  > (select max(event_at) from {SCHEMA}.events)
            """).first()["n"]
        if (pieces["covered"], pieces["drained"]) != (events * VALID_SECONDS, open_groups):
            raise AssertionError(f"{INTERVALS}: pieces cover {pieces['covered']} event-seconds with "
                                 f"{pieces['drained']} groups drained; {events * VALID_SECONDS} and {open_groups} "
                                 "expected")
    # The baseline: each model's windows recomputed over the whole history (the events
    # of the last run included) in one query, without partition writes.
    one_query = {model: one_query_seconds(spark, model) for model in models}
    keys = {model: {"events_count_window_100": ("grp, point_at", windows),
                    FIELD_WINDOW: ("emit_seq", field_windows),
                    CRON_WINDOW: ("grp, period_start", GROUPS * span),
                    PANES: ("grp, pane_start", panes),
                    INTERVALS: ("grp, window_start", pieces["n"])}.get(model, ("seq", events)) for model in models}
    # Every model's rows after its runs equal its full rebuild over the same events.
    for model in models:
        spark.sql(f"drop table if exists {SCHEMA}.{model}{AFTER_RUNS}")
        spark.sql(f"create table {SCHEMA}.{model}{AFTER_RUNS} using parquet as select * from {SCHEMA}.{model}")
    rebuilt, _ = timed_run("--full-refresh")
    compared = {model: compare_with_rebuild(spark, model, keys[model][0]) for model in models}
    for model in models:
        spark.sql(f"drop table {SCHEMA}.{model}{AFTER_RUNS}")
    print("  against a full rebuild: " + "; ".join(f"{m} {c}" for m, c in compared.items()), flush=True)
    if any(c["unmatched"] or c["differing"] for c in compared.values()):
        raise AssertionError(f"rows differing between the incremental runs and a full rebuild: {compared}")
    results, medians = [], {}
    for model in models:
        key, expected = keys[model]
        counted = spark.sql(f"select count(*) as n, count(distinct {key}) as d from {SCHEMA}.{model}").first()
        if counted["n"] != expected or counted["d"] != expected:
            raise AssertionError(f"{model}: {counted['n']} rows ({counted['d']} distinct {key}), {expected} expected")
        if model == FIELD_WINDOW:
            seqs = spark.sql(f"select min(emit_seq) as lo, max(emit_seq) as hi from {SCHEMA}.{model}").first()
            if (seqs["lo"], seqs["hi"]) != (0, expected - 1):
                raise AssertionError(f"{model}: emit_seq runs {seqs['lo']}..{seqs['hi']}, 0..{expected - 1} expected")
        one_day = [times[model] for _, times, _ in runs]
        measured = statistics.median(one_day)
        medians[model] = measured
        query_s, query_runs = one_query[model]
        print(f"  {model} at {rows:,}: one query {query_s:.2f}s, full {rebuilt[model]:.2f}s, one more day "
              + ", ".join(f"{t:.2f}s" for t in one_day) + f", no new input {idle[model]:.2f}s", flush=True)
        scale = f"{rows // 1_000_000}M events"
        results.append({
            "benchmark": f"incremental {model}, {scale}: one more day (median of {len(runs)})",
            "baseline": f"its full rebuild (dbt --full-refresh over all {events:,} events, partition writes)",
            "baseline_s": rebuilt[model],
            "measured": "incremental run (append of the closed windows)" if model == FIELD_WINDOW
            else "incremental run (insert_overwrite of the recomputed days, state carried)" if "fenl" in model
            else "incremental run (insert_overwrite of the days emitted from the earliest new event's, and of the "
                 "open pieces)" if model == INTERVALS
            else "incremental run (insert_overwrite of the recomputed days)", "measured_s": measured,
            "ratio": measured / rebuilt[model], "goal": GOAL,
            "also": f"against its windows over all {events:,} events in one query, no writes "
                    f"({'median of 3' if len(query_runs) > 1 else 'one run'}: {[round(t, 2) for t in query_runs]} s) "
                    f"{measured / query_s:.2f}; the first full build (over {history:,} events) {full[model]:.2f}s; "
                    f"rows equal to the full rebuild ({compared[model]['rounded_apart']} rows apart at 9 decimals, "
                    f"largest relative difference {compared[model]['max_relative']:.1e}); "
                    "one-day runs: " + ", ".join(
                f"{day} (+{n:,} events) {times[model]:.2f}s"
                for day, (n, times, _) in zip(days, runs, strict=True))
                    + f"; whole dbt invocations ({len(models)} models): full {full_wall:.1f}s, incremental "
                    + ", ".join(f"{wall:.1f}s" for _, _, wall in runs),
        })
        results.append({
            "benchmark": f"incremental {model}, {scale}: a run with no new input",
            "baseline": f"the goal's bound, {IDLE_GOAL_S:.0f} s", "baseline_s": IDLE_GOAL_S,
            "measured": "incremental run after the last day's, nothing new", "measured_s": idle[model],
            "ratio": idle[model] / IDLE_GOAL_S, "goal": 1.0, "also": ""})
    return results, medians
