"""Scheduled runs (SEMANTICS.md section 6): the incremental window models, built batch
by batch, end with exactly the rows of a full rebuild over the same input.

The harness replays the real hourly temperatures (the seed table under the staging
view) in batches: it appends to the seed table the rows that have arrived since (seq <=
cut), as new files, or rewrites it when rows must go, runs the models incrementally,
and after the last batch compares every incremental model with a full rebuild of the
same input (`except all`, both ways). Cut points fall inside windows, between the two
cities' readings of one hour (tied times), across a month's partition boundary, and
around gaps of several days. Late rows get each policy of incremental['late_rows'] (chosen by the `late_rows` var).
At the end the seed is restored and the models' full builds are renamed back, so later
tests see the full tables.
"""

from __future__ import annotations

import json
import re
import shutil
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.conftest import PROJECT_DIR, DbtFailure, run_dbt
from tests.incremental.replay import COMPANIONS, FULL, MODELS, SCHEMA, SEED, differing_rows

# The tests replay the whole project's build batch by batch.
pytestmark = pytest.mark.usefixtures("project_build")

COUNT_WINDOW = "hourly_temperatures_city_count_window_24"
FIELD_WINDOW = "hourly_temperatures_city_field_6h"
INTERVALS = "hourly_temperatures_city_valid_3h"

SELECT = ["--select", *MODELS]


ASIDE = "__before_replay"


@pytest.fixture(scope="module")
def replay(spark):
    # The session's full build of each model (and the state it keeps beside it) is set
    # aside and renamed back at the end (2 s a table), instead of rebuilding its
    # partitions (40 s for the four).
    tables = MODELS + [m + suffix for m in MODELS for suffix in COMPANIONS]
    kept = [t for t in tables if spark.catalog.tableExists(f"{SCHEMA}.{t}")]
    for model in kept:
        spark.sql(f"drop table if exists {SCHEMA}.{model}{ASIDE}")
        spark.sql(f"alter table {SCHEMA}.{model} rename to {SCHEMA}.{model}{ASIDE}")
    spark.sql(f"drop table if exists {FULL}")
    spark.sql(f"create table {FULL} using parquet as select * from {SEED}")
    total = spark.sql(f"select max(seq) as n from {FULL}").first()["n"]

    def arrive(condition: str) -> None:
        # As a lakehouse source grows: the rows that arrived since go in as new files,
        # the files already there stay (so a run's input-file record finds the history
        # as the last build saw it). Only when rows must go (a test's edit to undo, a
        # narrower cut) is the table rewritten.
        arrived = f"select * from {FULL} where {condition}"
        gone = spark.sql(f"select count(*) as n from (select * from {SEED} except all {arrived})").first()["n"]
        if gone:
            spark.sql(f"insert overwrite table {SEED} {arrived}")
        else:
            spark.sql(f"insert into {SEED} select * from ({arrived} except all select * from {SEED})")

    yield spark, total, arrive
    spark.sql(f"insert overwrite table {SEED} select * from {FULL}")
    for model in MODELS:  # audits left by a failed test would keep later tests' late rows out
        spark.sql(f"drop table if exists {SCHEMA}.{model}__late_rows")
    schema_location = spark.sql(f"describe schema {SCHEMA}").where("info_name = 'Location'").first()["info_value"]
    for model in tables:
        spark.sql(f"drop table if exists {SCHEMA}.{model}")
        # A run that failed (the OutOfOrder tests) can leave files without a table.
        shutil.rmtree(Path(urlparse(schema_location).path) / model, ignore_errors=True)
    for model in kept:
        spark.sql(f"alter table {SCHEMA}.{model}{ASIDE} rename to {SCHEMA}.{model}")
    missing = [m for m in MODELS if m not in kept]
    if missing:
        run_dbt("run", "--select", *missing, "--full-refresh")
    spark.sql(f"drop table if exists {FULL}")


def snapshot(spark, models: list[str]) -> dict[str, str]:
    """model -> a copy of its table as it is now (sw_harness_<model>)."""
    snapshots = {}
    for model in models:
        snapshots[model] = f"{SCHEMA}.sw_harness_{model}"
        spark.sql(f"drop table if exists {snapshots[model]}")
        spark.sql(f"create table {snapshots[model]} using parquet as select * from {SCHEMA}.{model}")
    return snapshots


def build_in_batches(spark, arrive, cuts: list[int], where: str = "true") -> dict[str, str]:
    """Builds the models batch by batch under the default late-row policy; returns
    model -> a snapshot table of the result. No --vars, as the full rebuild runs: dbt
    parses the whole project again whenever the vars change (about 3 s)."""
    arrive(f"seq <= {cuts[0]} and {where}")
    run_dbt("run", *SELECT, "--full-refresh")
    for cut in cuts[1:]:
        arrive(f"seq <= {cut} and {where}")
        run_dbt("run", *SELECT)
    return snapshot(spark, MODELS)


def assert_equals_full_rebuild(spark, snapshots: dict[str, str], cuts) -> None:
    run_dbt("run", "--select", *snapshots, "--full-refresh")
    for model, snapshot in snapshots.items():
        assert spark.sql(f"select count(*) as n from {snapshot}").first()["n"] > 0
        assert differing_rows(spark, model, snapshot) == 0, (model, cuts)
        spark.sql(f"drop table {snapshot}")


@pytest.mark.proof
def test_batches_cut_anywhere_and_gaps_of_days_equal_a_full_rebuild(replay):
    """A `proof` test (make test-all). In `make test`, every model crosses a batch
    boundary and meets a late row, each ending equal to a full rebuild, in
    test_reprocess_recomputes_the_late_rows_windows (the SQL models; the count window,
    the field dimension and interval semantics refuse the row there, as their full
    rebuild does) and test_python_models_audit_late_rows_as_the_sql_models_do (the
    Python models, under 'audit').

    Seven batches over a month and four days. The cuts fall inside windows, and the
    odd ones between the two cities' readings of one hour (tied times); the last two
    batches cross into February, the hourly models' next partition. Days 9-10 never arrive,
    and San Francisco's readings stop from Jan 7 noon to Jan 12: the windows after a gap
    start empty again, and San Francisco's provisional last count window (Jan 7) becomes
    final in the run that brings it back, days after the latest time the model had seen
    (Seattle's, Jan 8). (One replay where there were two, random cuts and gaps of days:
    each took about 100 s of the suite's budget, issue 26.)"""
    spark, total, arrive = replay
    gap = ("not ((reading_at >= '2010-01-09' and reading_at < '2010-01-11') or "
           "(city = 'San Francisco' and reading_at >= '2010-01-07 12:00:00' and reading_at < '2010-01-12'))")
    # 450: Seattle up to the gap; 600: both back; 1700: the first run whose plan checks
    # January's recorded fingerprints (the partition below its recomputed span).
    cuts = [301, 340, 450, 600, 1041, 1663, 1700]
    snapshots = build_in_batches(spark, arrive, cuts, where=gap)
    assert_equals_full_rebuild(spark, snapshots, cuts)


def late_reading(spark, total: int, hours_before: int) -> str:
    """A reading that arrives after every other (seq total + 1) but is timed
    hours_before the latest one."""
    return (f"select {total + 1} as seq, (select max(reading_at) from {SEED}) - interval {hours_before} hours "
            f"as reading_at, 'Seattle' as city, 99.5 as temp_f")


def test_a_late_row_fails_the_run_by_default_and_writes_nothing(replay):
    spark, total, arrive = replay
    arrive("seq <= 500")
    run_dbt("run", "--select", "hourly_temperatures_city_stats_24h", "--full-refresh")
    before = spark.sql(f"select count(*) as n from {SCHEMA}.hourly_temperatures_city_stats_24h").first()["n"]
    spark.sql(f"insert into {SEED} {late_reading(spark, total, 30)}")
    with pytest.raises(DbtFailure, match=rf"1 late row\(s\); the first, seq {total + 1} \(city=Seattle\), has "
                                         r"reading_at 2010-01-10 03:00:00, before 2010-01-11 09:00:00, the latest "
                                         r"reading_at this model has processed"):
        run_dbt("run", "--select", "hourly_temperatures_city_stats_24h")
    after = spark.sql(f"select count(*) as n from {SCHEMA}.hourly_temperatures_city_stats_24h").first()["n"]
    assert after == before


# The models that read the readings one by one (the pairs model joins two cities'
# readings of one hour first).
READING_MODELS = [m for m in MODELS if m != "hourly_temperatures_city_pair_daily_partials"]


def test_a_null_time_or_repeated_arrival_in_a_new_batch_fails_every_incremental_run_and_writes_nothing(replay):
    """A scheduled run reads the new rows through filters on the time (key >= X), from
    which Spark infers `time is not null`: a NULL time would fall out unseen. Each
    mechanism's run must fail on it instead, as a full build does, naming the row, and
    leave its table as it was; so must a repeated arrival position where order matters."""
    spark, total, arrive = replay
    arrive("seq <= 500")
    run_dbt("run", "--select", *READING_MODELS, "--full-refresh")
    before = {m: sorted(spark.sql(f"select * from {SCHEMA}.{m}").collect()) for m in READING_MODELS}
    spark.sql(f"insert into {SEED} select * from {FULL} where seq > 500 and seq <= 520")
    spark.sql(f"insert into {SEED} select {total + 1} as seq, cast(null as timestamp) as reading_at, "
              "'Seattle' as city, 50.0 as temp_f")
    result = run_dbt("run", "--select", *READING_MODELS, expect_success=False)
    messages = {r.node.name: " ".join(str(r.message).split()) for r in result.result.results}
    in_sql = rf"\(\) in model {{}}: `time_column` reading_at is NULL at city=Seattle, arrival position {total + 1}\b"
    in_python = (rf"model '{{}}': NULL field: `reading_at` is NULL at arrival position {total + 1} "
                 r"in group \{{'city': 'Seattle'\}}")
    for model in READING_MODELS:
        python = model in (FIELD_WINDOW, INTERVALS)
        assert re.search((in_python if python else in_sql).format(model), messages[model]), (model, messages[model])
        assert sorted(spark.sql(f"select * from {SCHEMA}.{model}").collect()) == before[model], model
    # A new row repeating another new row's arrival position and time: the macros that
    # order by arrival refuse it in a scheduled run as in a full build (their stateful
    # and context-reading queries too), and the engine in its own words.
    arrive("seq <= 520 or seq = 510")
    spark.sql(f"insert into {SEED} select * from {FULL} where seq = 510")
    ordering = ["hourly_temperatures_city_stats_24h", "hourly_temperatures_city_last_6_readings",
                "hourly_temperatures_city_fenl_daily", "hourly_temperatures_city_fenl_mild", FIELD_WINDOW]
    result = run_dbt("run", "--select", *ordering, expect_success=False)
    messages = {r.node.name: " ".join(str(r.message).split()) for r in result.result.results}
    city = spark.sql(f"select city from {FULL} where seq = 510").first()["city"]
    rule = r"must be a column whose values are unique \(each row's arrival position\); got seq 510 twice in "
    macros = {"hourly_temperatures_city_stats_24h": "range_window_aggregate",
              "hourly_temperatures_city_last_6_readings": "rows_window_aggregate"}
    for model in ordering:
        if model == FIELD_WINDOW:
            pattern = (f"model '{model}': field_dimension_aggregate_spark\\(\\): `seq` {rule}"
                       + re.escape(f"group {{'city': '{city}'}}."))
        else:
            pattern = (f"{macros.get(model, 'fenl_aggregate')}\\(\\) in model {model}: `arrival_order` {rule}"
                       + re.escape(f"city={city}."))
        assert re.search(pattern, messages[model]), (model, messages[model])
        assert sorted(spark.sql(f"select * from {SCHEMA}.{model}").collect()) == before[model], model


def test_audit_keeps_late_rows_out_of_the_windows_and_records_them(replay):
    spark, total, arrive = replay
    arrive("seq <= 500")
    run_dbt("run", "--select", "hourly_temperatures_city_stats_24h", "--full-refresh", "--vars", "{late_rows: audit}")
    spark.sql(f"drop table if exists {SCHEMA}.hourly_temperatures_city_stats_24h__late_rows")
    spark.sql(f"insert into {SEED} {late_reading(spark, total, 30)}")
    spark.sql(f"insert into {SEED} select * from {FULL} where seq > 500 and seq <= 560")
    run_dbt("run", "--select", "hourly_temperatures_city_stats_24h", "--vars", "{late_rows: audit}")
    audit = spark.sql(f"select seq, late_reason, late_watermark from "
                      f"{SCHEMA}.hourly_temperatures_city_stats_24h__late_rows").collect()
    assert [tuple(r) for r in audit] == [(total + 1, "reading_at before the latest processed time",
                                          "2010-01-11 09:00:00")]
    model = f"{SCHEMA}.hourly_temperatures_city_stats_24h"
    assert spark.sql(f"select count(*) as n from {model} where seq = {total + 1}").first()["n"] == 0
    assert spark.sql(f"select max(seq) as n from {model}").first()["n"] == 560
    # A later run keeps it out too, and does not audit it twice.
    spark.sql(f"insert into {SEED} select * from {FULL} where seq > 560 and seq <= 600")
    run_dbt("run", "--select", "hourly_temperatures_city_stats_24h", "--vars", "{late_rows: audit}")
    assert spark.sql(f"select count(*) as n from {model} where seq = {total + 1}").first()["n"] == 0
    assert spark.sql(f"select count(*) as n from {model}").first()["n"] == 600
    assert spark.sql(f"select count(*) as n from {SCHEMA}.hourly_temperatures_city_stats_24h__late_rows"
                     ).first()["n"] == 1
    # --full-refresh rebuilds from every input row, the audited one included, and forgets
    # the audit with it: the next scheduled run keeps the row in its windows, as a full
    # rebuild of the same input does (the audit used to outlive it and take it out again).
    run_dbt("run", "--select", "hourly_temperatures_city_stats_24h", "--full-refresh", "--vars", "{late_rows: audit}")
    assert not spark.catalog.tableExists(f"{SCHEMA}.hourly_temperatures_city_stats_24h__late_rows")
    assert spark.sql(f"select count(*) as n from {model} where seq = {total + 1}").first()["n"] == 1
    spark.sql(f"insert into {SEED} select {total + 2} as seq, max(reading_at) + interval 1 hour as reading_at, "
              f"'Seattle' as city, 50.0 as temp_f from {SEED}")
    run_dbt("run", "--select", "hourly_temperatures_city_stats_24h", "--vars", "{late_rows: audit}")
    scheduled = sorted(spark.sql(f"select * from {model}").collect())
    assert len(scheduled) == 602 and {total + 1, total + 2} <= {r["seq"] for r in scheduled}
    run_dbt("run", "--select", "hourly_temperatures_city_stats_24h", "--full-refresh", "--vars", "{late_rows: audit}")
    assert sorted(spark.sql(f"select * from {model}").collect()) == scheduled


def test_reprocess_recomputes_the_late_rows_windows(replay):
    """The late reading lands 30 hours back: its day and the following are recomputed,
    and each per-row window model (and the Fenl cron window) equals a full rebuild that
    includes it. The count window needs start times in order per city (SEMANTICS.md
    section 3), the field dimension a field that never decreases in arrival order
    (section 2), interval semantics starts in order per city (section 5): there the run
    fails with OutOfOrder, as a full rebuild of the same input does."""
    spark, total, arrive = replay
    spark.sql(f"drop table if exists {SCHEMA}.hourly_temperatures_city_stats_24h__late_rows")  # audited rows stay out
    arrive("seq <= 500")
    run_dbt("run", *SELECT, "--full-refresh", "--vars", "{late_rows: reprocess}")
    spark.sql(f"insert into {SEED} {late_reading(spark, total, 30)}")
    spark.sql(f"insert into {SEED} select * from {FULL} where seq > 500 and seq <= 540")
    reprocessed = [m for m in MODELS if m not in (COUNT_WINDOW, FIELD_WINDOW, INTERVALS)]
    run_dbt("run", "--select", *reprocessed, "--vars", "{late_rows: reprocess}")
    model = f"{SCHEMA}.hourly_temperatures_city_stats_24h"
    late = spark.sql(f"select max_temp_f_24h, readings_24h from {model} where seq = {total + 1}").first()
    assert late["max_temp_f_24h"] == 99.5
    assert_equals_full_rebuild(spark, snapshot(spark, reprocessed), "late row, reprocess")

    out_of_order = (rf"OutOfOrder in city=Seattle: start time 2010-01-10 03:00:00 at arrival position {total + 1} "
                    r"arrived after start time 2010-01-10 04:00:00")
    for full_refresh in ([], ["--full-refresh"]):
        with pytest.raises(DbtFailure, match=out_of_order):
            run_dbt("run", "--select", COUNT_WINDOW, *full_refresh, "--vars", "{late_rows: reprocess}")
    # The late reading (seq total + 1) arrives after seq 540: the error names it by its seq.
    backwards = rf"OutOfOrder: field `reading_at` went backwards at arrival position {total + 1} "
    for full_refresh in ([], ["--full-refresh"]):
        with pytest.raises(DbtFailure, match=backwards):
            run_dbt("run", "--select", FIELD_WINDOW, *full_refresh)
    # Interval semantics needs starts in order across the whole stream (docs/semantics.md,
    # Odysseus section): the check on the distinct starts raises it on the driver, naming
    # both events' groups, with Spark's UTC timestamps.
    before_late = (rf"OutOfOrder: field `reading_at` went backwards at arrival position {total + 1} "
                   r"in group \{[^}]*Seattle[^}]*\}: value 2010-01-10T03:00:00(\+00:00)? is less than the previous "
                   r"value 2010-01-12T05:00:00(\+00:00)? \(arrival position \d+, group \{[^}]*\}\)")
    for full_refresh in ([], ["--full-refresh"]):
        with pytest.raises(DbtFailure, match=before_late):
            run_dbt("run", "--select", INTERVALS, *full_refresh)


def test_python_models_audit_late_rows_as_the_sql_models_do(replay):
    """The same `late_rows` var picks the Python models' policy: under 'audit' the late
    reading goes to <model>__late_rows, in the SQL models' audit shape, and stays out of
    the windows, in later runs and in a full build under 'audit' (which audits it
    afresh). A full build under the default 'error' takes it in again and fails."""
    spark, total, arrive = replay
    python = [FIELD_WINDOW, INTERVALS]
    arrive("seq <= 500")
    run_dbt("run", "--select", *python, "--full-refresh", "--vars", "{late_rows: audit}")
    spark.sql(f"insert into {SEED} {late_reading(spark, total, 30)}")
    spark.sql(f"insert into {SEED} select * from {FULL} where seq > 500 and seq <= 540")
    run_dbt("run", "--select", *python, "--vars", "{late_rows: audit}")
    latest_before = spark.sql(f"select cast(max(reading_at) as string) as t from {SEED} where seq <= {total}"
                              ).first()["t"]
    sql_shape = ["seq", "reading_at", "city", "temp_f", "late_reason", "late_watermark", "audited_at"]
    for model in python:
        audited = spark.table(f"{SCHEMA}.{model}__late_rows")
        assert [c for c in audited.columns if c != "valid_to"] == sql_shape, model  # valid_to: the model's input
        assert [tuple(r) for r in audited.select("seq", "late_reason", "late_watermark").collect()] == [
            (total + 1, "reading_at before the latest processed time", latest_before)], model
    spark.sql(f"insert into {SEED} select * from {FULL} where seq > 540 and seq <= 600")
    run_dbt("run", "--select", *python, "--vars", "{late_rows: audit}")
    snapshots = snapshot(spark, python)
    run_dbt("run", "--select", *python, "--full-refresh", "--vars", "{late_rows: audit}")
    for model, copy in snapshots.items():
        assert differing_rows(spark, model, copy) == 0, model
        assert spark.sql(f"select count(*) as n from {SCHEMA}.{model}__late_rows").first()["n"] == 1, model
        spark.sql(f"drop table {copy}")
    result = run_dbt("run", "--select", *python, "--full-refresh", expect_success=False)
    for r in result.result.results:
        assert re.search(rf"OutOfOrder: field `reading_at` went backwards at arrival position {total + 1}",
                         str(r.message)), (r.node.name, r.message)
        assert not spark.catalog.tableExists(f"{SCHEMA}.{r.node.name}__late_rows")


DAY_MICROS = 86_400_000_000


def month_start(key: int) -> int:
    """The start of the month (UTC) holding `key` (microseconds): the hourly models'
    partitions are months."""
    t = datetime.fromtimestamp(key / 1_000_000, tz=UTC)
    return int(datetime(t.year, t.month, 1, tzinfo=UTC).timestamp()) * 1_000_000


# The arrival floor's horizon per mechanism: a RANGE window reads its range back, a
# ROWS window's counted context searches 16 days back first, a UTC daily cron window
# reads from the day it recomputes.
FLOOR_HORIZONS = {"hourly_temperatures_city_stats_24h": DAY_MICROS,
                  "hourly_temperatures_city_last_6_readings": 16 * DAY_MICROS,
                  "hourly_temperatures_city_fenl_days": 0}


def recorded_watermark(spark, model: str) -> list[str]:
    properties = {r["key"]: r["value"] for r in spark.sql(f"show tblproperties {SCHEMA}.{model}").collect()}
    return properties["stream_windows.watermark"].split("|")


def first_arrival_from(spark, key: int) -> int:
    return spark.sql(f"select min(seq) as a from {SEED} where unix_micros(reading_at) >= {key}").first()["a"]


def test_runs_read_the_history_from_its_arrival_floor(replay):
    """Every build records with W and S an arrival floor (F, A): the rows with key >= F
    arrived at or after A. F is the next run's first read (the start of W's partition, a
    month here, minus the window's reach back), and the next run adds `seq >= A` to its
    reads from F on, which Parquet prunes the older files by (a filter on the time through
    unix_micros prunes none). The rows reach into February (seq 1600 is Feb 3), so F lies
    in January's second half or at Feb 1, and the floor leaves most of the history out."""
    spark, total, arrive = replay
    models = list(FLOOR_HORIZONS)
    arrive("seq <= 1600")
    run_dbt("run", "--select", *models, "--full-refresh")
    floors = {}
    for model, horizon in FLOOR_HORIZONS.items():
        w, s, f, a = recorded_watermark(spark, model)
        assert int(f) == month_start(int(w)) - horizon, model
        assert int(a) == first_arrival_from(spark, int(f)) > 500, model
        floors[model] = (int(w), a)
    arrive("seq <= 1660")
    run_dbt("run", "--select", *models)
    for model, horizon in FLOOR_HORIZONS.items():
        compiled = next((PROJECT_DIR / "target" / "compiled").rglob(f"{model}.sql")).read_text()
        assert f"seq >= {floors[model][1]}" in compiled, model
        w_before = floors[model][0]
        w, s, f, a = recorded_watermark(spark, model)
        assert (int(w), int(s)) > (w_before, 1600), model
        assert int(f) == month_start(w_before) - horizon, model
        assert int(a) == first_arrival_from(spark, int(f)), model


# One model per family of the SQL macros' protocol (plan at compile, write, commit in
# the hooks): RANGE, ROWS, count window, Fenl state, Fenl cron, panes. The Python models
# keep no state beside their table, so their only fault points are before and during
# dbt's write (test_interrupted_run.py kills them there).
PROTOCOL_MODELS = ["hourly_temperatures_city_stats_24h", "hourly_temperatures_city_last_6_readings", COUNT_WINDOW,
                   "hourly_temperatures_city_fenl_daily", "hourly_temperatures_city_fenl_days",
                   "hourly_temperatures_city_pair_daily_partials"]
# (failpoint, full refresh): where a run fails, then the next run (with a new batch)
# must leave no lost, duplicated or stale row. 'in_prepare' stops a Fenl run after its
# state at the new cut is written and before the older cut is dropped; 'after_prepare'
# just before the write; 'before_commit' after the write, with no watermark, audit or
# entity recorded; 'in_commit' after the first commit statement. A full refresh that
# fails before its write keeps the old table without its Fenl state and cron entities;
# one that fails after it, a new table without watermark, state or entities.
FAULTS = [("in_prepare", False), ("after_prepare", False), ("before_commit", False), ("in_commit", False),
          ("after_prepare", True), ("in_commit", True)]
# The models whose hooks have a statement at that point (the others pass it).
FAILING = {"in_prepare": {"hourly_temperatures_city_fenl_daily"}}


def table_rows(spark, model: str) -> list:
    return sorted(spark.sql(f"select * from {SCHEMA}.{model}").collect())


def test_a_run_failing_in_its_commit_then_rerun_equals_a_full_rebuild(replay):
    """One fault of the sequence below, the one with the most to undo: the run fails
    after its first commit statement, the table written, the rest of its record not."""
    runs_failing_then_rerun(replay, [("in_commit", False)])


@pytest.mark.proof
def test_a_run_failing_at_any_point_of_its_protocol_then_rerun_equals_a_full_rebuild(replay):
    """A `proof` test (make test-all): every fault point, in and out of a full refresh.
    Guarded in `make test` by one point of the same sequence:
    test_a_run_failing_in_its_commit_then_rerun_equals_a_full_rebuild."""
    runs_failing_then_rerun(replay, FAULTS)


def runs_failing_then_rerun(replay, faults) -> None:
    spark, total, arrive = replay
    arrive("seq <= 300")
    run_dbt("run", "--select", *PROTOCOL_MODELS, "--full-refresh")
    # Eight days on: the next run's cut is then more than a week past the Fenl state's
    # (the full build's newest day), so its prepare hook advances the state.
    cut = 700
    arrive(f"seq <= {cut}")
    run_dbt("run", "--select", *PROTOCOL_MODELS)
    for point, full_refresh in faults:
        before = {m: table_rows(spark, m) for m in PROTOCOL_MODELS}
        cut += 70
        arrive(f"seq <= {cut}")
        result = run_dbt("run", "--select", *PROTOCOL_MODELS, *(["--full-refresh"] if full_refresh else []),
                         failpoint=point, expect_success=False)
        failed = {r.node.name for r in result.result.results if f"failpoint '{point}' reached" in str(r.message)}
        expected = FAILING.get(point, set(PROTOCOL_MODELS)) if not full_refresh else set(PROTOCOL_MODELS)
        assert failed == expected, (point, full_refresh, failed)
        if point in ("in_prepare", "after_prepare"):
            # Failed before its write: every failed model still holds its rows.
            for model in failed:
                assert table_rows(spark, model) == before[model], (point, full_refresh, model)
        cut += 70
        arrive(f"seq <= {cut}")
        run_dbt("run", "--select", *PROTOCOL_MODELS)
    # The plan reached the hooks in each model's compiled SQL, not through session
    # settings (a mailbox that any other statement of the session could change).
    assert [r["key"] for r in spark.sql("set").collect() if r["key"].startswith("stream_windows")] == []
    for model in PROTOCOL_MODELS:
        compiled = next((PROJECT_DIR / "target" / "compiled").rglob(f"{model}.sql")).read_text()
        assert "/* stream_windows.plan {" in compiled, model
    assert_equals_full_rebuild(spark, snapshot(spark, PROTOCOL_MODELS), faults)


# Where a Python model's run fails (the adapter's incremental materialization):
# 'after_prepare' once the model ran (late rows audited, fingerprints staged, its rows in
# __dbt_tmp) and before its table is written; 'before_commit' after that write, before
# the fingerprints are committed; 'in_commit' between the commit's drop and rename.
PYTHON_FAULTS = ["after_prepare", "before_commit", "in_commit"]


def test_a_python_models_run_failing_in_its_commit_then_rerun_equals_a_full_rebuild(replay):
    """One fault of the sequence below: the run fails between its commit's drop and
    rename, a late row arriving in it."""
    python_runs_failing_then_rerun(replay, ["in_commit"])


@pytest.mark.proof
def test_a_python_models_run_failing_at_any_point_then_rerun_equals_a_full_rebuild(replay):
    """A `proof` test (make test-all): every fault point of the Python models. Guarded
    in `make test` by one point of the same sequence:
    test_a_python_models_run_failing_in_its_commit_then_rerun_equals_a_full_rebuild."""
    python_runs_failing_then_rerun(replay, PYTHON_FAULTS)


def python_runs_failing_then_rerun(replay, faults: list[str]) -> None:
    """The Python models write beside their table before its write (the late-row
    audit, the staged fingerprints) and after it (the commit). A run failing at each
    point, a late row arriving in the first failing run, and a rerun with a new batch
    each time: under 'audit' the tables then equal a full build's, the late row audited
    once, and the committed fingerprints still agree with the input."""
    spark, total, arrive = replay
    python = [FIELD_WINDOW, INTERVALS]
    audit = "late_rows: audit"
    arrive("seq <= 500")
    run_dbt("run", "--select", *python, "--full-refresh", "--vars", f"{{{audit}}}")
    cut = 500

    def next_batch() -> None:
        nonlocal cut
        spark.sql(f"insert into {SEED} select * from {FULL} where seq > {cut} and seq <= {cut + 70}")
        cut += 70

    for point in faults:
        before = {m: table_rows(spark, m) for m in python}
        next_batch()
        if point == faults[0]:
            spark.sql(f"insert into {SEED} {late_reading(spark, total, 30)}")
        result = run_dbt("run", "--select", *python, "--vars", f"{{{audit}}}", failpoint=point,
                         expect_success=False)
        failed = {r.node.name for r in result.result.results if f"failpoint '{point}' reached" in str(r.message)}
        assert failed == set(python), (point, [str(r.message)[:300] for r in result.result.results])
        if point == "after_prepare":
            for model in python:
                assert table_rows(spark, model) == before[model], (point, model)
        next_batch()
        run_dbt("run", "--select", *python, "--vars", f"{{{audit}}}")
    # A run under the default policy compares the committed fingerprints and passes:
    # no fault left them describing rows the input no longer has.
    next_batch()
    run_dbt("run", "--select", *python)
    snapshots = snapshot(spark, python)
    run_dbt("run", "--select", *python, "--full-refresh", "--vars", f"{{{audit}}}")
    for model, copy in snapshots.items():
        assert differing_rows(spark, model, copy) == 0, model
        assert spark.sql(f"select seq from {SCHEMA}.{model}__late_rows").collect() == [(total + 1,)], model
        spark.sql(f"drop table {copy}")


STAGING = f"{SCHEMA}.stg_vega__hourly_temperatures"
COMPARISON = "_sw_changed_part"  # in the fingerprints' comparison query, and nowhere else


def input_file_record(spark, model: str) -> dict | None:
    properties = {r["key"]: r["value"] for r in spark.sql(f"show tblproperties {SCHEMA}.{model}").collect()}
    record = properties.get("stream_windows.input_files")
    return json.loads(record) if record is not None else None


def committed_fingerprints(spark, model: str) -> list:
    """A Python model's committed fingerprints: its partitions, header and group rows."""
    table = f"{SCHEMA}.{model}__input_fingerprints"
    spark.catalog.refreshTable(table)
    return sorted(spark.table(table).where("committed").collect(), key=lambda r: (
        str(r["input_partition"]), str(r["group_key"])))


def table_files(spark, model: str) -> list[tuple]:
    """The files of a model's table, with their modification times."""
    spark.catalog.refreshTable(f"{SCHEMA}.{model}")
    return sorted(spark.sql(f"select distinct _metadata.file_path, _metadata.file_modification_time "
                            f"from {SCHEMA}.{model}").collect())


def run_logged(*args: str, expect_success: bool = True) -> tuple[object, str]:
    """(dbt's result, what it wrote to its debug log: every query it ran). dbt rotates
    the log at 10 MB (dbt.log becomes dbt.log.1): then the rest of the old file is read
    too."""
    log = PROJECT_DIR / "logs" / "dbt.log"
    before = log.stat() if log.exists() else None
    result = run_dbt(*args, expect_success=expect_success)
    parts = []
    if before is not None and log.stat().st_ino != before.st_ino:
        parts.append((log.with_name("dbt.log.1"), before.st_size))
        parts.append((log, 0))
    else:
        parts.append((log, before.st_size if before is not None else 0))
    text = ""
    for path, start in parts:
        with path.open(encoding="utf-8", errors="replace") as written:
            written.seek(start)
            text += written.read()
    assert "_sw_files_n0" in text, "the log holds the run's plan query, with the input-file record's counts"
    return result, text


def test_the_input_file_record_skips_the_history_until_it_changes(replay):
    """A run compares the fingerprints of the history (a pass over every input row)
    only when the input-file record cannot show the history as the last build saw it:
    after rows were appended as new files it skips the comparison; a corrected copy of
    an old row in a new file, a rewritten table and a changed view definition each
    bring the comparison back, which names the changed partition. Both forms of input:
    the staging view as dbt builds it (its plan is the seed table itself) and a view
    that computes (a filter), whose rows are counted by arrival position."""
    spark, total, arrive = replay
    models = ["hourly_temperatures_city_stats_24h", COUNT_WINDOW]
    arrive("seq <= 1600")
    run_dbt("run", "--select", *models, "--full-refresh")
    for model in models:
        record = input_file_record(spark, model)
        assert record["direct"] is True and len(record["files"]) == 1 and record["files"][0][1] == 1600, (model, record)
    arrive("seq <= 1660")  # appended: one new file
    _, log = run_logged("run", "--select", *models)
    assert COMPARISON not in log
    assert [input_file_record(spark, m)["files"][0][1] for m in models] == [1660, 1660]
    # Nothing new since: the run finds it in its plan query and writes nothing, neither
    # rows nor its table's properties nor fingerprints.
    before = {m: (table_files(spark, m), input_file_record(spark, m)) for m in models}
    _, log = run_logged("run", "--select", *models)
    for model in models:
        assert f"stream_windows: {model}: nothing new in" in log, model
        assert (table_files(spark, model), input_file_record(spark, model)) == before[model], model
        compiled = next((PROJECT_DIR / "target" / "compiled").rglob(f"{model}.sql")).read_text()
        assert compiled.rstrip().endswith(") as _sw_nothing_new where false"), (model, compiled[-300:])
    assert COMPARISON not in log and "set tblproperties" not in log
    # dbt's own insert, of no row, is the only write: no fingerprints, no audit.
    written = sorted(re.findall(r"insert (?:overwrite table|into) (\S+)", log))
    assert written == [f"{SCHEMA}.{m}" for m in sorted(models)], written
    day = spark.sql(f"select cast(trunc(to_date(reading_at), 'MM') as string) as d from {FULL} "
                    "where seq = 100").first()["d"]
    changed = (f"the input's rows with reading_at in the partition starting {day} changed after this model "
               "processed them")

    def fails_naming_the_change() -> None:
        result, log = run_logged("run", "--select", *models, expect_success=False)
        assert COMPARISON in log
        for r in result.result.results:
            assert changed in " ".join(str(r.message).split()), (r.node.name, r.message)

    # A corrected copy of an old row, appended in a new file beside the old one.
    spark.sql(f"insert into {SEED} select seq, reading_at, city, temp_f + 40 from {FULL} where seq = 100")
    fails_naming_the_change()
    arrive("seq <= 1660")  # the copy goes: the table is rewritten, the history as processed
    _, log = run_logged("run", "--select", *models)
    assert COMPARISON in log and "nothing new" not in log  # rewritten files are not nothing new
    # A view that computes: its rows are counted by arrival position.
    spark.sql(f"create or replace view {STAGING} as select seq, reading_at, city, temp_f from {SEED} "
              "where temp_f > -500")
    try:
        run_logged("run", "--select", *models)
        assert all(input_file_record(spark, m)["direct"] is False for m in models)
        arrive("seq <= 1700")
        _, log = run_logged("run", "--select", *models)
        assert COMPARISON not in log
        spark.sql(f"insert into {SEED} select seq, reading_at, city, temp_f + 40 from {FULL} where seq = 100")
        fails_naming_the_change()
        arrive("seq <= 1700")
        run_dbt("run", "--select", *models)
        # The view's definition changes: its rows below the watermark with it.
        spark.sql(f"create or replace view {STAGING} as select seq, reading_at, city, "
                  f"case when seq = 100 then temp_f + 40 else temp_f end as temp_f from {SEED} where temp_f > -500")
        fails_naming_the_change()
        # A view that only projects the table (reworks a column, passes seq through)
        # has its rows one for one: checked by its newer files, as the table is.
        spark.sql(f"create or replace view {STAGING} as select seq, reading_at, trim(city) as city, temp_f "
                  f"from {SEED}")
        run_logged("run", "--select", *models)  # another plan: compared once, equal
        assert all(input_file_record(spark, m)["direct"] is True for m in models)
        arrive("seq <= 1740")
        _, log = run_logged("run", "--select", *models)
        # Neither the comparison nor a count of the view's rows: its newer files' alone.
        assert COMPARISON not in log and "_sw_files_view" not in log and "_sw_files_old0" in log
        spark.sql(f"insert into {SEED} select seq, reading_at, city, temp_f + 40 from {FULL} where seq = 100")
        fails_naming_the_change()
    finally:
        run_dbt("run", "--select", "stg_vega__hourly_temperatures")
    arrive("seq <= 1740")
    assert_equals_full_rebuild(spark, snapshot(spark, models), "the input-file record")


def test_a_row_changed_below_the_watermark_is_seen(replay):
    """A row corrected in place (same arrival position, another value) below the
    watermark: its input partition's recorded count and checksum no longer match. By
    default the run fails naming the partition; 'reprocess' recomputes from it, to the
    full rebuild's rows. The rows reach into February (seq 1600 is Feb 3): the run
    recomputes February's partition and checks January's, where seq 100 lies (a row
    changed in the recomputed partition is simply read again)."""
    spark, total, arrive = replay
    models = ["hourly_temperatures_city_stats_24h", COUNT_WINDOW, "hourly_temperatures_city_fenl_daily"]
    arrive("seq <= 1600")
    run_dbt("run", "--select", *models, "--full-refresh")
    spark.sql(f"insert overwrite table {SEED} select seq, reading_at, city, "
              f"case when seq = 100 then temp_f + 40 else temp_f end as temp_f from {FULL} where seq <= 1660")
    # The hourly models' partitions are months: the message names the month's first day.
    day = spark.sql(f"select cast(trunc(to_date(reading_at), 'MM') as string) as d from {FULL} "
                    "where seq = 100").first()["d"]
    result = run_dbt("run", "--select", *models, expect_success=False)
    for r in result.result.results:
        message = " ".join(str(r.message).split())
        assert (f"the input's rows with reading_at in the partition starting {day} changed after this model "
                f"processed them") in message, (r.node.name, message)
        assert "Set incremental['late_rows'] to 'reprocess'" in message, (r.node.name, message)
    run_dbt("run", "--select", *models, "--vars", "{late_rows: reprocess}")
    edited = spark.sql(f"select max_temp_f_24h from {SCHEMA}.hourly_temperatures_city_stats_24h "
                       "where seq = 100").first()["max_temp_f_24h"]
    assert edited == spark.sql(f"select temp_f + 40 as t from {FULL} where seq = 100").first()["t"]
    assert_equals_full_rebuild(spark, snapshot(spark, models), "a row changed in place")
    # The next runs find the partition as recorded after the reprocess: nothing to report.
    arrive("seq <= 1700")
    spark.sql(f"insert overwrite table {SEED} select seq, reading_at, city, "
              f"case when seq = 100 then temp_f + 40 else temp_f end as temp_f from {FULL} where seq <= 1700")
    run_dbt("run", "--select", *models)


def test_a_row_changed_below_what_a_python_model_processed_fails_it_or_is_reprocessed(replay):
    """The Python models' table is their only state, so a row corrected in place below
    what it holds fails a scheduled run under 'error' and 'audit', naming the input
    partition, and the table keeps its rows; under 'reprocess' the run recomputes the
    whole table and the adapter swaps it in. The fingerprints are committed only after
    the model's write: a full build that stages the edited input's fingerprints and then
    fails (a NULL time) leaves the committed ones, so the next run still sees the edit."""
    spark, total, arrive = replay
    models = [FIELD_WINDOW, INTERVALS]
    arrive("seq <= 1600")
    run_dbt("run", "--select", *models, "--full-refresh")
    before = {m: table_rows(spark, m) for m in models}
    # Nothing new since (the input-file record shows it): each function returns no row
    # and stages nothing, so the table's files and the committed set stay as they were.
    fingerprints = {m: (table_files(spark, m), committed_fingerprints(spark, m)) for m in models}
    run_dbt("run", "--select", *models)
    for model in models:
        assert (table_files(spark, model), committed_fingerprints(spark, model)) == fingerprints[model], model
        header = [r for r in committed_fingerprints(spark, model) if r["input_partition"] is None
                  and r["group_key"] is None]
        assert len(header) == 1 and header[0]["input_files"] is not None, model  # the header's record
    edited = (f"select seq, reading_at, city, case when seq = 100 then temp_f + 40 else temp_f end as temp_f "
              f"from {FULL} where seq <= 1660")
    spark.sql(f"insert overwrite table {SEED} {edited} union all "
              "select 1661, cast(null as timestamp), 'Seattle', 50.0")
    result = run_dbt("run", "--select", *models, "--full-refresh", expect_success=False)
    assert {r.node.name for r in result.result.results if "NULL" in str(r.message)} == set(models)
    spark.sql(f"insert overwrite table {SEED} {edited}")
    # The field windows' fingerprints go by day, the intervals' by the model's months.
    day, month = spark.sql(f"select cast(to_date(reading_at) as string) as d, "
                           f"cast(trunc(to_date(reading_at), 'MM') as string) as m from {FULL} where seq = 100").first()
    for policy in ("error", "audit"):
        result = run_dbt("run", "--select", *models, "--vars", f"{{late_rows: {policy}}}", expect_success=False)
        messages = {r.node.name: " ".join(str(r.message).split()) for r in result.result.results}
        for model, partition in ((FIELD_WINDOW, day), (INTERVALS, month)):
            assert (f"the input's rows with reading_at in the partition starting {partition} changed after this "
                    "model processed them") in messages[model], (policy, messages[model])
            assert "rebuild the model with --full-refresh, or run it with late_rows='reprocess'" in messages[model]
            assert table_rows(spark, model) == before[model], (policy, model)
    # 'reprocess' recomputes the whole table: the field windows are appended, the
    # intervals written by partition, yet each table is now a full build's.
    run_dbt("run", "--select", *models, "--vars", "{late_rows: reprocess}")
    avg = spark.sql(f"select max(max_temp_f) as t from {SCHEMA}.{INTERVALS} where readings_valid > 0 and "
                    f"window_start <= (select reading_at from {FULL} where seq = 100) and "
                    f"window_end > (select reading_at from {FULL} where seq = 100) and city = "
                    f"(select city from {FULL} where seq = 100)").first()["t"]
    assert avg == spark.sql(f"select temp_f + 40 as t from {FULL} where seq = 100").first()["t"]
    # The next run, under 'error', finds the partitions as the reprocessing run recorded
    # them, and the table it builds on is a full build's.
    arrive("seq <= 1700")
    spark.sql(f"insert overwrite table {SEED} {edited.replace('1660', '1700')}")
    run_dbt("run", "--select", *models)
    assert_equals_full_rebuild(spark, snapshot(spark, models), "a row changed in place, reprocessed")
