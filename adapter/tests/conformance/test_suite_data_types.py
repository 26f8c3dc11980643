"""dbt's data type suites: the type each of dbt's type macros names holds its values."""

from __future__ import annotations

import pytest
from dbt.tests.adapter.utils.data_types.test_type_bigint import BaseTypeBigInt
from dbt.tests.adapter.utils.data_types.test_type_boolean import BaseTypeBoolean
from dbt.tests.adapter.utils.data_types.test_type_float import BaseTypeFloat
from dbt.tests.adapter.utils.data_types.test_type_float import seeds__expected_csv as float_expected_csv
from dbt.tests.adapter.utils.data_types.test_type_int import BaseTypeInt
from dbt.tests.adapter.utils.data_types.test_type_int import seeds__expected_csv as int_expected_csv
from dbt.tests.adapter.utils.data_types.test_type_numeric import BaseTypeNumeric
from dbt.tests.adapter.utils.data_types.test_type_string import BaseTypeString
from dbt.tests.adapter.utils.data_types.test_type_timestamp import BaseTypeTimestamp


def _seed_typed(csv: str, column: str, type_name: str) -> dict[str, str]:
    # Spark infers a seed's 1.2 as DOUBLE and 12 as BIGINT: equal to FLOAT and INT by
    # `=`, but the suite compares with EXCEPT, which needs the same type.
    return {"expected.csv": csv,
            "expected.yml": f"version: 2\nseeds:\n  - name: expected\n    config:\n"
                            f"      column_types:\n        {column}: {type_name}\n"}


class TestTypeBigInt(BaseTypeBigInt):
    pass


class TestTypeFloat(BaseTypeFloat):
    @pytest.fixture(scope="class")
    def seeds(self):
        return _seed_typed(float_expected_csv, "float_col", "float")


class TestTypeInt(BaseTypeInt):
    @pytest.fixture(scope="class")
    def seeds(self):
        return _seed_typed(int_expected_csv, "int_col", "int")


class TestTypeNumeric(BaseTypeNumeric):
    def numeric_fixture_type(self):
        return "decimal(28,6)"


class TestTypeString(BaseTypeString):
    pass


class TestTypeTimestamp(BaseTypeTimestamp):
    pass


class TestTypeBoolean(BaseTypeBoolean):
    pass
