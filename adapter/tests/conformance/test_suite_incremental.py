"""dbt's incremental suites: microbatch, on_schema_change under append and
insert_overwrite, and the strategies that need a table format parquet is not."""

from __future__ import annotations

import pytest
from dbt.tests.adapter.incremental.test_incremental_merge_exclude_columns import BaseMergeExcludeColumns
from dbt.tests.adapter.incremental.test_incremental_microbatch import BaseMicrobatch
from dbt.tests.adapter.incremental.test_incremental_on_schema_change import BaseIncrementalOnSchemaChangeSetup
from dbt.tests.adapter.incremental.test_incremental_predicates import BaseIncrementalPredicates
from dbt.tests.adapter.incremental.test_incremental_unique_id import BaseIncrementalUniqueKey
from dbt.tests.util import run_dbt

NEEDS_MERGE = ("merge (unique_key, incremental_predicates, merge_exclude_columns) needs Delta, Iceberg or Hudi, "
               "whose jars open-source Spark lacks; on parquet: append, insert_overwrite, microbatch")


class TestMicrobatch(BaseMicrobatch):
    @pytest.fixture(scope="class")
    def microbatch_model_sql(self) -> str:
        # dbt-spark's microbatch is an insert_overwrite of each batch's partitions: a
        # partition_by is required (the suite's model has none).
        return """
{{ config(materialized='incremental', incremental_strategy='microbatch', event_time='event_time', batch_size='day',
          begin=modules.datetime.datetime(2020, 1, 1, 0, 0, 0), partition_by=['date_day']) }}
select *, cast(event_time as date) as date_day from {{ ref('input_model') }}
"""


class _OnSchemaChangeIgnoreAndFail(BaseIncrementalOnSchemaChangeSetup):
    # append_new_columns and sync_all_columns rewrite columns a parquet table's insert
    # cannot: dbt-spark runs these two policies on its append and insert_overwrite too.
    def test_run_incremental_ignore(self, project):
        self.run_twice_and_assert("model_a incremental_ignore incremental_ignore_target",
                                  "incremental_ignore", "incremental_ignore_target", project)

    def test_run_incremental_fail_on_schema_change(self, project):
        run_dbt(["run", "--models", "model_a incremental_fail", "--full-refresh"])
        results = run_dbt(["run", "--models", "model_a incremental_fail"], expect_pass=False)
        assert "Compilation Error" in results[1].message


class TestOnSchemaChangeAppend(_OnSchemaChangeIgnoreAndFail):
    @pytest.fixture(scope="class")
    def project_config_update(self):
        return {"models": {"+incremental_strategy": "append"}}


class TestOnSchemaChangeInsertOverwrite(_OnSchemaChangeIgnoreAndFail):
    @pytest.fixture(scope="class")
    def project_config_update(self):
        return {"models": {"+partition_by": "id", "+incremental_strategy": "insert_overwrite"}}


@pytest.mark.skip(reason=NEEDS_MERGE)
class TestIncrementalUniqueKey(BaseIncrementalUniqueKey):
    pass


@pytest.mark.skip(reason=NEEDS_MERGE)
class TestIncrementalPredicates(BaseIncrementalPredicates):
    pass


@pytest.mark.skip(reason=NEEDS_MERGE)
class TestMergeExcludeColumns(BaseMergeExcludeColumns):
    pass
