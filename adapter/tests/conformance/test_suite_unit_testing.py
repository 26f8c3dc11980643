"""dbt's unit testing suites: given rows of every Spark type, case-insensitive names,
and input that does not match its model."""

from __future__ import annotations

import pytest
from dbt.tests.adapter.unit_testing.test_case_insensitivity import BaseUnitTestCaseInsensivity
from dbt.tests.adapter.unit_testing.test_invalid_input import BaseUnitTestInvalidInput
from dbt.tests.adapter.unit_testing.test_quoted_reserved_word_column_names import (
    BaseUnitTestQuotedReservedWordColumnNames,
    my_model_sql,
    test_my_model_csv_fixtures_yml,
)
from dbt.tests.adapter.unit_testing.test_types import BaseUnitTestingTypes


class TestUnitTestingTypes(BaseUnitTestingTypes):
    @pytest.fixture
    def data_types(self):
        # (SQL value, its YAML): Spark's literals for the suite's Postgres ones.
        return [["1", "1"], ["2.0", "2.0"], ["'12345'", "12345"], ["'string'", "string"], ["true", "true"],
                ["date '2011-11-11'", "2011-11-11"],
                ["timestamp '2013-11-03 00:00:00-0'", "2013-11-03 00:00:00-0"],
                ["array(1, 2, 3)", "'array(1, 2, 3)'"],
                ["map('10', 't', '15', 'f', '20', NULL)", """'map("10", "t", "15", "f", "20", NULL)'"""],
                ['named_struct("a", 1, "b", 2, "c", 3)', """'named_struct("a", 1, "b", 2, "c", 3)'"""]]


class TestUnitTestCaseInsensitivity(BaseUnitTestCaseInsensivity):
    pass


class TestUnitTestInvalidInput(BaseUnitTestInvalidInput):
    pass


class TestUnitTestQuotedReservedWordColumnNames(BaseUnitTestQuotedReservedWordColumnNames):
    @pytest.fixture(scope="class")
    def models(self):
        # Spark quotes a name with backticks; the suite's upstream model writes "GROUP".
        return {"my_model.sql": my_model_sql, "my_upstream_model.sql": "select 1 as `GROUP`",
                "unit_tests.yml": test_my_model_csv_fixtures_yml}
