"""A dbt Python model in the form dbt-databricks also runs: dbt.ref, dbt.config,
`session` and DataFrame APIs only. applyInPandas starts Python workers on the
executors, so this model fails if they do not find the driver's interpreter."""

import pandas as pd


def _span(group: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "station": [group["station"].iloc[0]],
            "readings": [len(group)],
            "value_span": [int(group["value"].max() - group["value"].min())],
        }
    )


def model(dbt, session):
    dbt.config(materialized="table")
    readings = dbt.ref("fixture_readings_clean")
    if dbt.config.get("break_models"):
        raise ValueError("fixture_station_spans: broken input")
    return readings.groupBy("station").applyInPandas(
        _span, schema="station string, readings long, value_span long"
    )
