"""dbt's docs generate suites (the catalog of seeds, tables and views) and the
store-failures suites (a failing test's rows kept as a table or a view)."""

from __future__ import annotations

import copy
import getpass

import pytest
from dbt.tests.adapter.basic import expected_catalog
from dbt.tests.adapter.basic.test_docs_generate import BaseDocsGenerate, BaseDocsGenReferences
from dbt.tests.adapter.store_test_failures_tests import basic
from dbt.tests.adapter.store_test_failures_tests.test_store_test_failures import (
    TEST_AUDIT_SCHEMA_SUFFIX,
    StoreTestFailuresBase,
)

# dbt-spark's catalog names a type as Spark's schema tree does (`long` for bigint) and
# numbers a table's columns from 0 (dbt's own suite expects the SQL name and 1): the
# adapter keeps dbt-spark's catalog, so the docs site reads as it does with dbt-spark.
SPARK_TYPES = dict(id_type="long", text_type="string", time_type="timestamp", view_type="view", table_type="table")


def _numbered_from_0(catalog: dict) -> dict:
    catalog = copy.deepcopy(catalog)
    columns = {id(c): c for kind in ("nodes", "sources") for node in catalog[kind].values()
               for c in node.get("columns", {}).values()}  # the nodes share column dicts: each once
    for column in columns.values():
        if isinstance(column["index"], int):
            column["index"] -= 1
    return catalog


@pytest.fixture(scope="class")
def profile_user():
    return getpass.getuser()  # an embedded Spark's tables are owned by the user running it


class TestDocsGenerate(BaseDocsGenerate):
    @pytest.fixture(scope="class")
    def expected_catalog(self, project, profile_user):
        return _numbered_from_0(expected_catalog.base_expected_catalog(
            project, role=profile_user, model_stats=expected_catalog.no_stats(), **SPARK_TYPES))


class TestDocsGenReferences(BaseDocsGenReferences):
    @pytest.fixture(scope="class")
    def expected_catalog(self, project, profile_user):
        return _numbered_from_0(expected_catalog.expected_references_catalog(
            project, role=profile_user, bigint_type="long", model_stats=expected_catalog.no_stats(), **SPARK_TYPES))


class TestStoreTestFailures(StoreTestFailuresBase):
    @pytest.fixture(scope="class")
    def project_config_update(self):
        return {"seeds": {"quote_columns": True},
                "tests": {"+schema": TEST_AUDIT_SCHEMA_SUFFIX, "+store_failures": True}}

    def test_store_and_assert(self, project):
        self.run_tests_store_one_failure(project)
        self.run_tests_store_failures_and_assert(project)


class TestStoreTestFailuresAsInteractions(basic.StoreTestFailuresAsInteractions):
    pass


class TestStoreTestFailuresAsProjectLevelOff(basic.StoreTestFailuresAsProjectLevelOff):
    pass


class TestStoreTestFailuresAsProjectLevelView(basic.StoreTestFailuresAsProjectLevelView):
    pass


class TestStoreTestFailuresAsGeneric(basic.StoreTestFailuresAsGeneric):
    pass


class TestStoreTestFailuresAsProjectLevelEphemeral(basic.StoreTestFailuresAsProjectLevelEphemeral):
    pass


class TestStoreTestFailuresAsExceptions(basic.StoreTestFailuresAsExceptions):
    pass
