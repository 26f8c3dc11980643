"""The adapter's tests build their own fixture project: their `spark` is the run's
session without the whole project's build."""

import pytest


@pytest.fixture(scope="session")
def spark(spark_session):
    return spark_session
