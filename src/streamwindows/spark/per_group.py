"""Run a per-group pandas engine on Spark: each group's rows go to one
``applyInPandas`` call, groups in parallel.

For the engines whose groups are independent (StreamInsight count windows, Odysseus
interval semantics). Parameters are checked on the driver by running the engine on an
empty frame of the input's schema (no Spark job), so a bad parameter fails before any
work starts; the same run gives the output columns and their types.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

from streamwindows.spark.field_dimension import _PANDAS_TYPES, _quote, _spark_type_for

# The engines' emit_seq orders rows across groups; one applyInPandas call sees one
# group, so it is left out here.
PER_CALL_ONLY = ("emit_seq",)


def apply_per_group(
    df,
    engine: Callable[..., pd.DataFrame],
    options: Mapping[str, Any],
    *,
    group_by: Sequence[str],
    time_columns: Sequence[str],
    time_source: str,
    declared_types: Mapping[str, str] | None = None,
):
    """``engine(frame, **options)`` for every group of ``df``. Output columns in
    ``time_columns`` take the Spark type of the input column ``time_source``; columns in
    ``declared_types`` the type given; group columns keep theirs; the rest follow the
    pandas dtype the engine gives on an empty input."""
    from streamwindows.spark.shipping import ship_package

    declared = dict(declared_types or {})
    empty = pd.DataFrame({f.name: pd.Series(dtype=_PANDAS_TYPES.get(f.dataType.simpleString(), "object"))
                          for f in df.schema.fields})
    probe = engine(empty, **options)  # validates; raises before any Spark job
    names = [c for c in probe.columns if c not in PER_CALL_ONLY]
    fields = []
    for column in names:
        if column in declared:
            spark_type = declared[column]
        elif column in group_by:
            spark_type = df.schema[column].dataType.simpleString()
        elif column in time_columns:
            spark_type = df.schema[time_source].dataType.simpleString()
        else:
            spark_type = _spark_type_for(probe[column].dtype)
        fields.append(f"{_quote(column)} {spark_type}")

    def run(events: pd.DataFrame) -> pd.DataFrame:
        return engine(events, **options)[names]

    ship_package(df.sparkSession)
    grouped = df.groupBy(*group_by) if group_by else df.groupBy()
    return grouped.applyInPandas(run, schema=", ".join(fields))
