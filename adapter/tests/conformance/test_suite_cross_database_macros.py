"""dbt's cross-database macros (dbt.dateadd, dbt.listagg, ...): every one dbt-tests-
adapter has a suite for, with dbt-spark's adjustments where Spark SQL differs by
design (listagg has no ORDER BY; split_part's empty parts)."""

from __future__ import annotations

import pytest
from dbt.tests.adapter.utils.fixture_get_intervals_between import models__test_get_intervals_between_yml
from dbt.tests.adapter.utils.fixture_listagg import models__test_listagg_yml
from dbt.tests.adapter.utils.test_any_value import BaseAnyValue
from dbt.tests.adapter.utils.test_array_append import BaseArrayAppend
from dbt.tests.adapter.utils.test_array_concat import BaseArrayConcat
from dbt.tests.adapter.utils.test_array_construct import BaseArrayConstruct
from dbt.tests.adapter.utils.test_bool_or import BaseBoolOr
from dbt.tests.adapter.utils.test_cast import BaseCast
from dbt.tests.adapter.utils.test_cast_bool_to_text import BaseCastBoolToText
from dbt.tests.adapter.utils.test_concat import BaseConcat
from dbt.tests.adapter.utils.test_current_timestamp import BaseCurrentTimestampNaive
from dbt.tests.adapter.utils.test_date import BaseDate
from dbt.tests.adapter.utils.test_date_spine import BaseDateSpine
from dbt.tests.adapter.utils.test_date_trunc import BaseDateTrunc
from dbt.tests.adapter.utils.test_dateadd import BaseDateAdd
from dbt.tests.adapter.utils.test_datediff import BaseDateDiff
from dbt.tests.adapter.utils.test_equals import BaseEquals
from dbt.tests.adapter.utils.test_escape_single_quotes import BaseEscapeSingleQuotesBackslash
from dbt.tests.adapter.utils.test_except import BaseExcept
from dbt.tests.adapter.utils.test_generate_series import BaseGenerateSeries
from dbt.tests.adapter.utils.test_get_intervals_between import BaseGetIntervalsBetween
from dbt.tests.adapter.utils.test_get_powers_of_two import BaseGetPowersOfTwo
from dbt.tests.adapter.utils.test_hash import BaseHash
from dbt.tests.adapter.utils.test_intersect import BaseIntersect
from dbt.tests.adapter.utils.test_last_day import BaseLastDay
from dbt.tests.adapter.utils.test_length import BaseLength
from dbt.tests.adapter.utils.test_listagg import BaseListagg
from dbt.tests.adapter.utils.test_null_compare import BaseMixedNullCompare, BaseNullCompare
from dbt.tests.adapter.utils.test_position import BasePosition
from dbt.tests.adapter.utils.test_replace import BaseReplace
from dbt.tests.adapter.utils.test_right import BaseRight
from dbt.tests.adapter.utils.test_safe_cast import BaseSafeCast
from dbt.tests.adapter.utils.test_split_part import BaseSplitPart
from dbt.tests.adapter.utils.test_string_literal import BaseStringLiteral
from dbt.tests.adapter.utils.test_timestamps import BaseCurrentTimestamps
from dbt.tests.adapter.utils.test_validate_sql import BaseValidateSqlMethod


class TestAnyValue(BaseAnyValue):
    pass


class TestArrayAppend(BaseArrayAppend):
    pass


class TestArrayConcat(BaseArrayConcat):
    pass


class TestArrayConstruct(BaseArrayConstruct):
    pass


class TestBoolOr(BaseBoolOr):
    pass


class TestCast(BaseCast):
    pass


class TestCastBoolToText(BaseCastBoolToText):
    pass


class TestConcat(BaseConcat):
    pass


class TestCurrentTimestamp(BaseCurrentTimestampNaive):
    pass


class TestCurrentTimestamps(BaseCurrentTimestamps):
    @pytest.fixture(scope="class")
    def models(self):
        return {"get_current_timestamp.sql": "select {{ current_timestamp() }} as current_timestamp"}

    @pytest.fixture(scope="class")
    def expected_schema(self):
        return {"current_timestamp": "timestamp"}

    @pytest.fixture(scope="class")
    def expected_sql(self):
        return "select current_timestamp() as current_timestamp"


class TestDate(BaseDate):
    pass


class TestDateSpine(BaseDateSpine):
    pass


class TestDateTrunc(BaseDateTrunc):
    pass


class TestDateAdd(BaseDateAdd):
    pass


class TestDateDiff(BaseDateDiff):
    @pytest.fixture(scope="class")
    def project_config_update(self):
        # The suite's model is a view of some 50,000 characters; the embedded Derby
        # metastore keeps a view's text in at most 32,700 (docs/adapter.md), so the
        # model is a table here (a PostgreSQL metastore holds the view).
        return {"models": {"+materialized": "table"}}


class TestEquals(BaseEquals):
    pass


class TestEscapeSingleQuotes(BaseEscapeSingleQuotesBackslash):
    pass


class TestExcept(BaseExcept):
    pass


class TestGenerateSeries(BaseGenerateSeries):
    pass


class TestGetIntervalsBetween(BaseGetIntervalsBetween):
    @pytest.fixture(scope="class")
    def models(self):
        # Spark reads a date string in ISO form only: the suite's '09/01/2023' is NULL.
        sql = ("select {{ get_intervals_between(\"'2023-09-01'\", \"'2023-09-12'\", 'day') }} as intervals, "
               "11 as expected")
        return {"test_get_intervals_between.yml": models__test_get_intervals_between_yml,
                "test_get_intervals_between.sql": self.interpolate_macro_namespace(sql, "get_intervals_between")}


class TestGetPowersOfTwo(BaseGetPowersOfTwo):
    pass


class TestHash(BaseHash):
    pass


class TestIntersect(BaseIntersect):
    pass


class TestLastDay(BaseLastDay):
    pass


class TestLength(BaseLength):
    pass


# Spark's collect_list takes no ORDER BY: the ordered and limited variants are left out
# (dbt-spark's own suite does the same).
LISTAGG_WITHOUT_ORDER = """
with data as (select * from {{ ref('data_listagg') }}),
data_output as (select * from {{ ref('data_listagg_output') }}),
calculate as (
    select group_col, {{ listagg('string_text', "', '") }} as actual, 'comma_whitespace_unordered' as version
    from data where group_col = 3 group by group_col
    union all
    select group_col, {{ listagg('DISTINCT string_text', "','") }} as actual, 'distinct_comma' as version
    from data where group_col = 3 group by group_col
    union all
    select group_col, {{ listagg('string_text') }} as actual, 'no_params' as version
    from data where group_col = 3 group by group_col
)
select calculate.actual, data_output.expected
from calculate
left join data_output on calculate.group_col = data_output.group_col and calculate.version = data_output.version
"""


class TestListagg(BaseListagg):
    @pytest.fixture(scope="class")
    def models(self):
        return {"test_listagg.yml": models__test_listagg_yml,
                "test_listagg.sql": self.interpolate_macro_namespace(LISTAGG_WITHOUT_ORDER, "listagg")}


class TestNullCompare(BaseNullCompare):
    pass


class TestMixedNullCompare(BaseMixedNullCompare):
    pass


class TestPosition(BasePosition):
    pass


class TestReplace(BaseReplace):
    pass


class TestRight(BaseRight):
    pass


class TestSafeCast(BaseSafeCast):
    pass


class TestSplitPart(BaseSplitPart):
    @pytest.fixture(scope="class")
    def seeds(self):
        # A seed's empty field is NULL on Spark, not an empty string: dbt-spark's rows.
        return {"data_split_part.csv": "parts,split_on,result_1,result_2,result_3,result_4\n"
                                       "a|b|c,|,a,b,c,c\n1|2|3,|,1,2,3,3\nEMPTY|EMPTY|EMPTY,|,EMPTY,EMPTY,EMPTY,EMPTY\n"}


class TestStringLiteral(BaseStringLiteral):
    pass


class TestValidateSql(BaseValidateSqlMethod):
    pass
