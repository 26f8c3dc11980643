"""The window kinds, each once: the lists the suite used to keep by hand (the models the
cluster builds, the incremental models the replay rebuilds batch by batch, the one per
incremental mechanism the killed run and the read-only commands use, a model per folder
for the Dagster assets) are derived from here. A new window kind is one entry
(docs/development.md, "Adding a window kind"). Plain Python, no pytest: the replay
driver imports it in a process of its own."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class WindowKind:
    name: str
    folder: str  # models/<folder> or python_models/<folder>: the dbt folder (and its tags)
    example: str  # a model over the seeds that shows the kind (the cluster builds it)
    # The kind's incremental models, the first its own (the read-only commands run it).
    incremental: tuple[str, ...] = ()
    # Whether they read the replayed hourly temperatures (tests/incremental/replay.py);
    # the sessions replay the clickstream in tests/incremental/test_sessions_in_batches.py.
    replayed: bool = True
    # The incremental mechanism: the killed run builds one model of each.
    mechanism: str | None = None
    python: bool = False  # a Python model (the engine), not a macro's SQL


KINDS = [
    WindowKind("SQLstream RANGE with rowtime bounds", "sqlstream", "ticker_hourly_volume",
               ("hourly_temperatures_city_stats_24h", "hourly_temperatures_city_stats_next_24h"),
               mechanism="output watermark"),
    WindowKind("SQLstream ROWS", "sqlstream", "hourly_temperatures_city_last_6_readings",
               ("hourly_temperatures_city_last_6_readings",), mechanism="output watermark"),
    WindowKind("StreamBase tumbling", "streambase", "trade_volume_30s",
               ("hourly_temperatures_city_field_6h",), mechanism="Python append", python=True),
    WindowKind("StreamBase value ranges, optional windows 'all'", "streambase", "weekly_temperature_all", python=True),
    WindowKind("StreamBase per-group plan, drain", "streambase", "field_jump_windows", python=True),
    WindowKind("StreamInsight count window", "streaminsight", "point_events_count_window_2",
               ("hourly_temperatures_city_count_window_24",), mechanism="input watermark"),
    WindowKind("StreamInsight user aggregate", "streaminsight", "interval_events_count_window_2_twa", python=True),
    WindowKind("Fenl since", "fenl", "purchase_amount_sum_cumulative", ("hourly_temperatures_city_fenl_daily",),
               mechanism="Fenl state"),
    WindowKind("Fenl sliding", "fenl", "purchase_amount_sum_last_2_valid", ("hourly_temperatures_city_fenl_mild",),
               mechanism="Fenl state"),
    WindowKind("Fenl cron window", "fenl", "stock_price_yearly", ("hourly_temperatures_city_fenl_days",),
               mechanism="Fenl cron entities"),
    WindowKind("Odysseus panes merged", "odysseus", "auction_bidder_max_price",
               ("hourly_temperatures_city_pair_daily_partials",), mechanism="input watermark"),
    WindowKind("Odysseus interval semantics", "odysseus", "validity_events_count",
               ("hourly_temperatures_city_valid_3h",), mechanism="Python overwrite", python=True),
    WindowKind("Session windows", "sessions", "page_view_sessions_30m", ("page_view_sessions_30m",), replayed=False,
               mechanism="written sessions"),
]


def example_models() -> list[str]:
    """One model per window kind."""
    return [kind.example for kind in KINDS]


def replayed_models() -> list[str]:
    """Every incremental model over the replayed hourly temperatures."""
    return [model for kind in KINDS if kind.replayed for model in kind.incremental]


def mechanism_models() -> list[str]:
    """One replayed model per incremental mechanism (its first kind's own)."""
    first: dict[str, str] = {}
    for kind in KINDS:
        if kind.replayed and kind.mechanism:
            first.setdefault(kind.mechanism, kind.incremental[0])
    return list(first.values())


def incremental_sql_models() -> list[str]:
    """Each SQL window kind's own incremental model."""
    return [kind.incremental[0] for kind in KINDS if kind.incremental and not kind.python]


def folder_models() -> dict[str, str]:
    """A model of each folder, SQL or Python: folder (with ' python' for the engine's) -> model."""
    found: dict[str, str] = {}
    for kind in KINDS:
        found.setdefault(f"{kind.folder}{' python' if kind.python else ''}", kind.example)
    return found
