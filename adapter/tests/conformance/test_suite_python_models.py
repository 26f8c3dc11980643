"""dbt's Python model suites: a table model over refs, versions and a source; pandas,
PySpark and pandas-on-Spark frames; an incremental model. dbt-spark runs them only
through Databricks; this plugin runs them in the models' own Spark session, with no
file_format set (the session's default source, parquet)."""

from __future__ import annotations

import pytest
from dbt.tests.adapter.python_model.test_python_model import BasePythonIncrementalTests, BasePythonModelTests
from dbt.tests.adapter.python_model.test_spark import BasePySparkTests
from dbt.tests.util import run_dbt

pytestmark = pytest.mark.python_models


class TestPythonModel(BasePythonModelTests):
    pass


class TestPySparkFrames(BasePySparkTests):
    def test_different_dataframes(self, project):
        # koalas_df imports databricks.koalas, the pandas API before Spark 3.2 took it
        # in as pyspark.pandas (which pandas_on_spark_df uses).
        results = run_dbt(["run", "--exclude", "koalas_df"])
        assert len(results) == 3


class TestPythonIncremental(BasePythonIncrementalTests):
    @pytest.fixture(scope="class")
    def project_config_update(self):
        # The suite's merge needs Delta, Iceberg or Hudi; append is this model's strategy on parquet.
        return {}
