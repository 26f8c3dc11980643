"""dbt adapter `spark_session`: dbt-spark plus Python models run in-session.

dbt-spark submits Python models only to Databricks (dbt-spark #415, #1062). This
plugin subclasses dbt-spark's adapter and adds the `session` submission method,
which executes the compiled model in the SparkSession that already runs the SQL
models, on a local master or a standalone cluster alike.
"""

from dbt.adapters.base import AdapterPlugin
from dbt.adapters.spark_session.connections import (
    SparkSessionConnectionManager,
    SparkSessionCredentials,
)
from dbt.adapters.spark_session.impl import SparkSessionAdapter
from dbt.include import spark_session

Plugin = AdapterPlugin(
    adapter=SparkSessionAdapter,  # type: ignore[arg-type]
    credentials=SparkSessionCredentials,
    include_path=spark_session.PACKAGE_PATH,
    dependencies=["spark"],
)

__all__ = ["Plugin", "SparkSessionAdapter", "SparkSessionConnectionManager", "SparkSessionCredentials"]
