"""The document models built in scheduled runs: each seed behind them arrives in three
batches (cut at random arrival positions), the models run incrementally after each, and
every one ends equal to a full rebuild of the whole seeds (SEMANTICS.md section 6). The
mechanisms are replayed at length on real data in test_batch_by_batch_equals_full_rebuild;
this checks the documents' own models (ties, empty periods, gaps, optional windows) and
their configurations. At the end the seeds are restored and the models rebuilt whole."""

from __future__ import annotations

import math
import random

import pytest

from tests.conftest import run_dbt
from tests.incremental.replay import SCHEMA, differing_rows

# seed -> the incremental window models over it
MODELS_BY_SEED = {
    "weather": ["weather_minmax_24h", "weather_city_stats_24h"],
    "ticker_trades": ["ticker_hourly_volume"],
    "point_events": ["point_events_count_window_2"],
    "interval_events": ["interval_events_count_window_2_twa"],
    "field_jump_readings": ["field_jump_windows"],
    "auction_bids": ["auction_bid_partials"],
    "validity_events": ["validity_events_count"],
    "purchases": ["purchase_amount_sum_cumulative", "purchase_amount_sum_last_2_valid",
                  "purchase_amount_sum_then_mean", "purchase_amount_sum_yearly"],
    "monthly_stock_prices": ["stock_price_max_cumulative", "stock_price_mean_last_3_rises", "stock_price_yearly"],
    "trades": ["trade_volume_30s"],
    "seattle_daily_weather": ["weekly_temperature_single", "weekly_temperature_all"],
}
MODELS = [model for models in MODELS_BY_SEED.values() for model in models]


@pytest.fixture
def seeds(spark):
    for seed in MODELS_BY_SEED:
        spark.sql(f"drop table if exists {SCHEMA}.sw_doc_all_{seed}")
        spark.sql(f"create table {SCHEMA}.sw_doc_all_{seed} using parquet as select * from {SCHEMA}.{seed}")

    def arrive(fraction: float) -> None:
        """Every seed holds the rows of its first `fraction` of arrival positions (one at least)."""
        for seed in MODELS_BY_SEED:
            last = spark.sql(f"select max(seq) as n from {SCHEMA}.sw_doc_all_{seed}").first()["n"]
            spark.sql(f"insert overwrite table {SCHEMA}.{seed} select * from {SCHEMA}.sw_doc_all_{seed} "
                      f"where seq <= {max(1, math.ceil(fraction * last))}")

    yield arrive
    arrive(1.0)
    for seed in MODELS_BY_SEED:
        spark.sql(f"drop table {SCHEMA}.sw_doc_all_{seed}")
    run_dbt("run", "--select", *MODELS, "--full-refresh")


def test_document_models_built_in_batches_equal_a_full_rebuild(spark, seeds):
    cuts = sorted(random.Random(23).uniform(0.2, 0.9) for _ in range(2)) + [1.0]
    seeds(cuts[0])
    run_dbt("run", "--select", *MODELS, "--full-refresh")
    for cut in cuts[1:]:
        seeds(cut)
        run_dbt("run", "--select", *MODELS)
    for model in MODELS:
        spark.sql(f"drop table if exists {SCHEMA}.sw_doc_{model}")
        spark.sql(f"create table {SCHEMA}.sw_doc_{model} using parquet as select * from {SCHEMA}.{model}")
    run_dbt("run", "--select", *MODELS, "--full-refresh")
    for model in MODELS:
        snapshot = f"{SCHEMA}.sw_doc_{model}"
        assert spark.sql(f"select count(*) as n from {snapshot}").first()["n"] > 0, model
        assert differing_rows(spark, model, snapshot) == 0, (model, cuts)
        spark.sql(f"drop table {snapshot}")
