"""The Spark layer's tests make their own DataFrames: their `spark` is the run's session
without the whole project's build (so `make test-fast` runs them too)."""

import pytest


@pytest.fixture(scope="session")
def spark(spark_session):
    return spark_session
