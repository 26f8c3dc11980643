"""dbt's microbatch (incremental_strategy='microbatch') on the window macros (RANGE
PRECEDING and FOLLOWING, ROWS, the count window, panes and hopping windows merged from
them, a Fenl cumulative window and a Fenl cron window), in a user project that installs
the package: daily batches built as the input arrives, a batch that fails and `dbt
retry`, a late row taken in by a backfill over its batch in the middle of the history,
and a full refresh over a range each end with a table equal to a full rebuild (and the
per-row windows to the reference written from the semantics,
tests/macros/reference_sqlstream.py).

The input is a source with `event_time`, so dbt filters the macros' ref of it to each
batch: the macros read it unfiltered, as far as their windows reach."""

from __future__ import annotations

import random
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.conftest import PROJECT_DIR, run_dbt
from tests.macros.reference_sqlstream import range_window, rows_window

SCHEMA = "stream_windows_microbatch"
RAW = "stream_windows_microbatch_raw"

PROJECT_YML = f"""
name: microbatch_user
version: "1.0.0"
config-version: 2
profile: stream_windows
model-paths: ["models"]
models:
  microbatch_user:
    +schema: {SCHEMA.removeprefix('stream_windows_')}
    +file_format: parquet
  stream_windows:
    +enabled: false
seeds:
  stream_windows:
    +enabled: false
data_tests:
  stream_windows:
    +enabled: false
"""

SOURCES_YML = f"""
version: 2
sources:
  - name: raw
    schema: {RAW}
    tables:
      - name: events
        config:
          event_time: ts
"""

MICROBATCH = ("{{ config(materialized='incremental', incremental_strategy='microbatch', event_time='ts', "
              "batch_size='day', begin='2024-03-01', partition_by=['time_partition']) }}\n")
TABLE = "{{ config(materialized='table') }}\n"
AGGREGATES = "{'n': 'count(*)', 'total': 'sum(v)', 'low': 'min(v)'}"
FENL_AGGREGATES = "{'n': 'count(*)', 'total': 'sum(v)', 'running_mean': 'sum(v) | mean()'}"
WINDOWS = {
    "preceding": ("{{ stream_windows.range_window_aggregate(relation=source('raw', 'events'), time_column='ts', "
                  "range=\"INTERVAL '6' HOUR\", partition_by=['k'], arrival_order='seq', "
                  "aggregates=" + AGGREGATES + ") }}"),
    "following": ("{{ stream_windows.range_window_aggregate(relation=source('raw', 'events'), time_column='ts', "
                  "range=\"INTERVAL '6' HOUR\", direction='following', partition_by=['k'], arrival_order='seq', "
                  "aggregates=" + AGGREGATES + ") }}"),
    "rows": ("{{ stream_windows.rows_window_aggregate(relation=source('raw', 'events'), rows=3, partition_by=['k'], "
             "arrival_order='seq', aggregates=" + AGGREGATES + ") }}"),
    # No arrival order: the stream's arrival is shuffled, and a count window checks that
    # start times arrive in order when it is given one.
    "count": ("{{ stream_windows.count_window_aggregate(relation=source('raw', 'events'), time_column='ts', n=3, "
              "group_by=['k'], aggregates=" + AGGREGATES + ") }}"),
    # Panes of 7 hours, which cross most midnights (UTC), merged into windows of 21
    # hours every 7; the merge reads its own kind of panes ({variant}: batched or rebuilt).
    "panes": ("{{ stream_windows.partial_aggregate(relation=source('raw', 'events'), group_by=['k'], "
              "pane={'time_column': 'ts', 'size': '7 hours'}, aggregates=" + AGGREGATES + ") }}"),
    "merged": ("{{ stream_windows.merge_partial_aggregates(relation=ref('{variant}_panes'), group_by=['k'], "
               "window={'size': '21 hours', 'advance': '7 hours'}, aggregates=" + AGGREGATES + ") }}"),
    # Fenl: a cumulative window with a repeated aggregation, and New York's days (a cron
    # window whose periods cross UTC's midnights).
    "fenl": ("{{ stream_windows.fenl_aggregate(relation=source('raw', 'events'), entity='k', time_column='ts', "
             "arrival_order='seq', aggregates=" + FENL_AGGREGATES + ") }}"),
    "fenl_days": ("{{ stream_windows.fenl_aggregate(relation=source('raw', 'events'), entity='k', time_column='ts', "
                  "arrival_order='seq', window=stream_windows.fenl_since(period='daily'), "
                  "time_zone='America/New_York', aggregates=" + FENL_AGGREGATES + ") }}"),
    # Sessions with a 2-hour gap: most cross a batch's midnight, and the late row joins
    # (or bridges) key a's sessions of March 2.
    "sessions": ("{{ stream_windows.session_window_aggregate(relation=source('raw', 'events'), time_column='ts', "
                 "gap='2 hours', partition_by='k', arrival_order='seq', aggregates=" + AGGREGATES + ") }}"),
}
# The output column that places a row in its batch (event_time), and the table's order.
EVENT_TIME = {"count": "point_at", "panes": "pane_start", "merged": "window_start", "fenl_days": "period_start",
              "sessions": "window_start"}
ORDER = {"count": "k, point_at", "panes": "k, pane_start", "merged": "k, window_start", "fenl_days": "k, period_start",
         "sessions": "k, window_start"}
REFERENCE_AGGREGATES = {"n": ("count", "*"), "total": ("sum", "v"), "low": ("min", "v")}
# Models that must fail, each with the line that says why.
REFUSED = {
    "refused_merge_without_window": (
        MICROBATCH + "{{ stream_windows.merge_partial_aggregates(relation=ref('batched_panes'), group_by=['k'], "
        "aggregates=" + AGGREGATES + ") }}",
        "merge_partial_aggregates() in model refused_merge_without_window (incremental_strategy='microbatch'): "
        "configure event_time='window_start' and a `window`"),
    "refused_cron_event_time": (
        MICROBATCH + WINDOWS["fenl_days"], "configure event_time='period_start'"),
    "refused_count_event_time": (
        MICROBATCH + WINDOWS["count"], "configure event_time='point_at'"),
    "refused_partition": (
        MICROBATCH.replace("partition_by=['time_partition']", "partition_by=['k']") + WINDOWS["preceding"],
        "configure partition_by=['time_partition']"),
    "refused_incremental_argument": (
        MICROBATCH + WINDOWS["rows"].replace(") }}", ", incremental={'partition': 'day', 'time_column': 'ts'}) }}"),
        "leave out the macro's `incremental` argument"),
}

DAY = datetime(2024, 3, 1)
LATE_ROW_TIME = datetime(2024, 3, 2, 12, 0)


def _stream() -> tuple[list[dict], list[dict], list[dict]]:
    """Three arrivals: the rows of March 1-2, those of March 3, then those of March 4
    with one late row of March 2; each shuffled (arrival order within an arrival is
    not time order), numbered in arrival order (seq). The stream has ties in time, rows
    exactly at midnight, NULL values, a key first seen on March 3 and a gap from March
    2 20:00 to March 3 10:00 (no row at all), across which FOLLOWING windows stay open."""
    rng = random.Random(49)
    times = []
    t = DAY
    while t < DAY + timedelta(days=4):
        if not (DAY + timedelta(days=1, hours=20) < t < DAY + timedelta(days=2, hours=10)):
            times.append(t)
        t += timedelta(minutes=rng.choice([0, 7, 23, 41, 67, 95]))
    times += [DAY + timedelta(days=1), DAY + timedelta(days=3), DAY + timedelta(days=1, hours=20)]
    rows = [{"k": rng.choice("abc"), "ts": at, "v": None if rng.random() < 0.1 else rng.randint(-20, 40)}
            for at in times]
    for row in rows:  # a key first seen on March 3
        if DAY + timedelta(days=2, hours=12) <= row["ts"] < DAY + timedelta(days=2, hours=15):
            row["k"] = "d"
    arrivals = [[r for r in rows if r["ts"] < DAY + timedelta(days=2)],
                [r for r in rows if DAY + timedelta(days=2) <= r["ts"] < DAY + timedelta(days=3)],
                [r for r in rows if r["ts"] >= DAY + timedelta(days=3)] + [{"k": "a", "ts": LATE_ROW_TIME, "v": 1000}]]
    _number_in_arrival_order(rng, arrivals)
    return arrivals[0], arrivals[1], arrivals[2]


def _number_in_arrival_order(rng: random.Random, arrivals: list[list[dict]]) -> None:
    """seq for every row: the arrivals in turn, each shuffled (arrival order within an
    arrival is not time order)."""
    seq = 0
    for arrival in arrivals:
        rng.shuffle(arrival)
        for row in arrival:
            seq += 1
            row["seq"] = seq


@pytest.fixture(scope="module")
def project(tmp_path_factory, spark) -> Path:
    root = tmp_path_factory.mktemp("microbatch_user")
    (root / "models").mkdir()
    (root / "dbt_project.yml").write_text(PROJECT_YML)
    (root / "packages.yml").write_text(f"packages:\n  - local: {PROJECT_DIR}\n")
    (root / "models" / "_sources.yml").write_text(SOURCES_YML)
    for name, call in WINDOWS.items():
        config = MICROBATCH.replace("event_time='ts'", f"event_time='{EVENT_TIME.get(name, 'ts')}'")
        for variant, model_config in (("batched", config), ("rebuilt", TABLE)):
            model = model_config + call.replace("{variant}", variant)
            (root / "models" / f"{variant}_{name}.sql").write_text(model + "\n")
    (root / "models" / "hourly_following.sql").write_text(
        MICROBATCH.replace("batch_size='day'", "batch_size='hour'") + WINDOWS["following"] + "\n")
    for name, (sql, _) in REFUSED.items():
        (root / "models" / f"{name}.sql").write_text(sql + "\n")
    (root / "models" / "daily_sessions.sql").write_text(
        MICROBATCH.replace("event_time='ts'", "event_time='window_start'")
        + WINDOWS["sessions"].replace("gap='2 hours'", "gap='30 minutes'") + "\n")
    for schema in (SCHEMA, RAW):
        spark.sql(f"drop schema if exists {schema} cascade")
    spark.sql(f"create schema {RAW}")
    spark.sql(f"create table {RAW}.events (seq int, k string, ts timestamp, v int) using parquet")
    run_dbt("deps", project_dir=root)
    yield root
    shutil.rmtree(root / "dbt_packages", ignore_errors=True)


def _arrive(spark, rows: list[dict]) -> None:
    frame = spark.createDataFrame([(r["seq"], r["k"], r["ts"], r["v"]) for r in rows],
                                  "seq int, k string, ts timestamp, v int")
    frame.write.insertInto(f"{RAW}.events")


BATCHED = [f"batched_{name}" for name in WINDOWS]


def _batches(project: Path, start: str, end: str, *extra: str, models: list[str] = BATCHED, **options):
    return run_dbt("run", "--select", *models, "--event-time-start", start, "--event-time-end", end, *extra,
                   project_dir=project, **options)


def _table(spark, name: str) -> list[dict]:
    order = ORDER.get(name.split("_", 1)[1], "seq")
    return [{key: value for key, value in row.asDict().items() if key != "time_partition"}
            for row in spark.sql(f"select * from {SCHEMA}.{name} order by {order}").collect()]


def _reference(rows: list[dict], name: str) -> list[dict]:
    numbered = [{**r, "t": r["ts"].replace(tzinfo=UTC).timestamp()} for r in rows]
    if name == "rows":
        computed = rows_window(numbered, n=3, partition_by=["k"], aggregates=REFERENCE_AGGREGATES)
    else:
        computed = range_window(numbered, size=6 * 3600, direction=name, ties="arrival", partition_by=["k"],
                                aggregates=REFERENCE_AGGREGATES)
    by_seq = {r["seq"]: r for r in rows}
    return sorted(({**by_seq[c["seq"]], **c} for c in computed), key=lambda r: r["seq"])


def _assert_equal_to_a_rebuild(spark, project: Path, rows: list[dict]) -> None:
    run_dbt("run", "--select", *(f"rebuilt_{name}" for name in WINDOWS), project_dir=project)
    for name in WINDOWS:
        batched, rebuilt = _table(spark, f"batched_{name}"), _table(spark, f"rebuilt_{name}")
        assert batched and batched == rebuilt, name
        if name in ("preceding", "following", "rows"):  # the others' SQL against their references: tests/macros
            assert rebuilt == _reference(rows, name), name


def test_batches_backfills_and_a_full_refresh_equal_a_full_rebuild(project, spark):
    first, march_3, rest = _stream()
    second = march_3 + rest
    _arrive(spark, first)
    _batches(project, "2024-03-01", "2024-03-03")
    # Each day is a partition of its own, written by its batch.
    days = {r[0].isoformat() for r in spark.sql(f"select distinct time_partition from {SCHEMA}.batched_rows").collect()}
    assert days == {"2024-03-01", "2024-03-02"}

    # March 3 arrives, and its batch runs: it rewrites what it changed in March 2 (the
    # FOLLOWING rows and the count windows left open when the stream stopped there at
    # 20:00, the hopping windows that reach into March 3).
    _arrive(spark, march_3)
    _batches(project, "2024-03-03", "2024-03-04")
    following = {r["seq"]: r for r in _table(spark, "batched_following")}
    before_gap = [r for r in first if r["ts"] >= DAY + timedelta(days=1, hours=14)]
    assert before_gap and all(following[r["seq"]]["is_final"] for r in before_gap)
    count = _table(spark, "batched_count")
    assert {r["k"] for r in count if r["point_at"] < DAY + timedelta(days=2)} == set("abc")
    assert [r for r in count if r["point_at"] < DAY + timedelta(days=2) and not r["is_final"]] == []
    _assert_equal_to_a_rebuild(spark, project, first + march_3)

    # March 4 arrives, with a row of March 2 that arrives late; the run's batch of
    # March 4 fails (before its write), then `dbt retry` runs that batch alone: it
    # rewrites March 3's open rows and its pane across midnight.
    _arrive(spark, rest)
    failed = _batches(project, "2024-03-04", "2024-03-05", expect_success=False, write_json=True,
                      failpoint="batch:20240304")
    # (The merge reads the panes' model: dbt skips it when that fails.)
    statuses = {r.node.name: str(r.status) for r in failed.result.results}
    assert statuses == {**dict.fromkeys(BATCHED, "error"), "batched_merged": "skipped"}
    for name in WINDOWS:
        assert spark.sql(f"select count(*) from {SCHEMA}.batched_{name} "
                         f"where to_date({EVENT_TIME.get(name, 'ts')}) = '2024-03-04'").first()[0] == 0, name
    retried = run_dbt("retry", project_dir=project)
    assert {r.node.name: str(r.status) for r in retried.result.results} == dict.fromkeys(BATCHED, "success")
    late = [r for r in _table(spark, "batched_preceding") if r["v"] == 1000]
    assert late == []  # a late row waits for a batch over its day

    # The backfill a late row needs (docs/incremental.md), in the middle of the history
    # (the proof tier's random arrivals backfill random middle ranges too): its day, and
    # for Fenl's windows, whose rows reach back to their entity's first, every day after.
    fenl = ["batched_fenl", "batched_fenl_days"]
    _batches(project, "2024-03-02", "2024-03-03", models=[m for m in BATCHED if m not in fenl])
    _batches(project, "2024-03-02", "2024-03-05", models=fenl)
    _assert_equal_to_a_rebuild(spark, project, first + second)

    _batches(project, "2024-03-01", "2024-03-05", "--full-refresh")
    _assert_equal_to_a_rebuild(spark, project, first + second)


@pytest.mark.proof
def test_hourly_batches_partition_by_the_hour(project, spark):
    """Hourly batches across the stream's gap: time_partition is the hour (a timestamp),
    each batch's rows are the full rebuild's, and the first batch after the gap rewrites
    the hours whose FOLLOWING windows were open. (In make test, the daily batches of
    test_batches_backfills_and_a_full_refresh_equal_a_full_rebuild guard the same rows.)"""
    first, march_3, rest = _stream()
    second = march_3 + rest
    spark.sql(f"truncate table {RAW}.events")
    _arrive(spark, first + second)
    run_dbt("run", "--select", "hourly_following", "--full-refresh", "--event-time-start", "2024-03-02 18:00:00",
            "--event-time-end", "2024-03-03 11:00:00", project_dir=project)
    run_dbt("run", "--select", "rebuilt_following", project_dir=project)
    hours = [r[0] for r in spark.sql(f"select distinct time_partition from {SCHEMA}.hourly_following "
                                     "order by 1").collect()]
    latest = max(r["ts"] for r in first + second if r["ts"] < datetime(2024, 3, 3, 11))
    assert hours[0] <= datetime(2024, 3, 2, 18) and hours[-1] == latest.replace(minute=0, second=0)
    assert all(h.minute == 0 and h.second == 0 for h in hours)
    hourly = _table(spark, "hourly_following")
    rebuilt = {r["seq"]: r for r in _table(spark, "rebuilt_following")}
    assert hourly == [rebuilt[r["seq"]] for r in hourly]
    wanted = [r for r in rebuilt.values() if datetime(2024, 3, 2, 18) <= r["ts"] < datetime(2024, 3, 3, 11)]
    assert wanted and {r["seq"] for r in wanted} <= {r["seq"] for r in hourly}


@pytest.mark.parametrize("model", sorted(REFUSED))
def test_what_microbatch_cannot_build_fails_its_model_saying_why(project, model, capfd):
    result = run_dbt("run", "--select", model, "--event-time-start", "2024-03-01", "--event-time-end", "2024-03-02",
                     project_dir=project, expect_success=False)
    assert [str(r.status) for r in result.result.results] == ["error"]
    # dbt keeps a batch's compile error for its debug log (the console says ERROR): the
    # macro says it on the console first.
    console = " ".join(capfd.readouterr().out.split())
    assert REFUSED[model][1] in console, console[-2000:]


def _random_stream(rng: random.Random, days: int) -> list[dict]:
    """A week of readings for three keys: random steps (ties included), rows at
    midnight, NULL values and one or two gaps of 6 to 30 hours."""
    gaps = [DAY + timedelta(hours=rng.randint(12, 24 * days - 36)) for _ in range(rng.randint(1, 2))]
    gaps = [(start, start + timedelta(hours=rng.randint(6, 30))) for start in gaps]
    times, t = [], DAY
    while t < DAY + timedelta(days=days):
        if not any(start < t < end for start, end in gaps):
            times.append(t)
        t += timedelta(minutes=rng.choice([0, 5, 19, 37, 60, 111, 240]))
    times += [DAY + timedelta(days=rng.randint(1, days - 1)) for _ in range(3)]
    return [{"k": rng.choice("abc"), "ts": at, "v": None if rng.random() < 0.1 else rng.randint(-20, 40)}
            for at in times]


@pytest.mark.proof
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_arrivals_runs_and_backfills_equal_a_full_rebuild(project, spark, seed):
    """The proof tier's microbatch sequences (in make test,
    test_batches_backfills_and_a_full_refresh_equal_a_full_rebuild guards the same
    property on one sequence): a week arriving in four parts cut at random
    times, each part with late rows of earlier days and its arrival order shuffled (a
    part may hold late rows only); after each arrival the batches from the day of its
    earliest row through the newest (a scheduled run's batches and a late row's
    backfill, which for Fenl's windows reaches the newest batch), and now and then a
    backfill over a random middle range. The end state equals a full rebuild and the
    reference."""
    rng = random.Random(seed)
    rows = _random_stream(rng, days=7)
    cuts = sorted(DAY + timedelta(minutes=rng.randint(60 * 24, 60 * 24 * 6)) for _ in range(3))
    bounds = [DAY, *cuts, DAY + timedelta(days=7)]
    parts = [[r for r in rows if lo <= r["ts"] < hi] for lo, hi in zip(bounds, bounds[1:], strict=False)]
    for index in range(1, len(parts)):  # late rows: a few of each part arrive with the next one
        late = rng.sample(parts[index - 1], k=min(2, len(parts[index - 1])))
        parts[index - 1] = [r for r in parts[index - 1] if r not in late]
        parts[index] += late
    _number_in_arrival_order(rng, parts)
    spark.sql(f"truncate table {RAW}.events")
    arrived: list[dict] = []
    for number, part in enumerate(parts):
        _arrive(spark, part)
        arrived += part
        first = min(r["ts"] for r in part).date()
        last = max(r["ts"] for r in arrived).date() + timedelta(days=1)
        _batches(project, first.isoformat(), last.isoformat(), *(["--full-refresh"] if number == 0 else []))
        if rng.random() < 0.5:
            start = DAY.date() + timedelta(days=rng.randint(0, 5))
            _batches(project, start.isoformat(), (start + timedelta(days=rng.randint(1, 2))).isoformat())
    _assert_equal_to_a_rebuild(spark, project, arrived)


def test_a_session_batch_that_would_be_left_without_sessions_fails_naming_it(project, spark, capfd):
    """One key's views over a midnight: a session [23:20 .. 00:15] and, 40 minutes
    later, one at 00:55, the only session starting on March 2. A late view at 00:35,
    taken in by a backfill of both days, merges them into one session starting on March
    1: the batch of March 2 would write no row, and a batch overwrites only the
    partitions it writes, so it fails, naming the batch, rather than leave the stale
    session there (the incremental mode drops it: tests/incremental/
    test_sessions_in_batches.py). A full refresh gives the merged session."""
    spark.sql(f"truncate table {RAW}.events")
    at = [datetime(2024, 3, 1, 23, 20), datetime(2024, 3, 1, 23, 50), datetime(2024, 3, 2, 0, 15),
          datetime(2024, 3, 2, 0, 55)]
    _arrive(spark, [{"seq": i + 1, "k": "u1", "ts": t, "v": 1} for i, t in enumerate(at)])
    days = ("--event-time-start", "2024-03-01", "--event-time-end", "2024-03-03")
    run_dbt("run", "--select", "daily_sessions", "--full-refresh", *days, project_dir=project)
    assert len(spark.table(f"{SCHEMA}.daily_sessions").collect()) == 2
    _arrive(spark, [{"seq": 5, "k": "u1", "ts": datetime(2024, 3, 2, 0, 35), "v": 1}])
    capfd.readouterr()
    result = run_dbt("run", "--select", "daily_sessions", *days, project_dir=project, expect_success=False)
    # March 1's batch writes the merged session; March 2's fails (dbt: partial success).
    assert str(result.result.results[0].status) == "partial success"
    console = " ".join(capfd.readouterr().out.split())
    assert ("no session starts in the written batch 2024-03-02 any more (a late event merged its sessions into an "
            "earlier one)") in console, console[-3000:]
    run_dbt("run", "--select", "daily_sessions", "--full-refresh", *days, project_dir=project)
    rows = spark.table(f"{SCHEMA}.daily_sessions").collect()
    assert [(r["n"], r["window_start"], r["window_end"]) for r in rows] == \
        [(5, datetime(2024, 3, 1, 23, 20), datetime(2024, 3, 2, 1, 25))]
    # A view with no time fails the next batch, naming it, instead of falling out of its read.
    spark.sql(f"insert into {RAW}.events select 6, 'u1', cast(null as timestamp), 1")
    capfd.readouterr()
    result = run_dbt("run", "--select", "daily_sessions", "--event-time-start", "2024-03-02", "--event-time-end",
                     "2024-03-03", project_dir=project, expect_success=False)
    assert str(result.result.results[0].status) == "error"
    console = " ".join(capfd.readouterr().out.split())
    assert "`time_column` ts is NULL at k=u1, arrival position 6" in console, console[-3000:]
