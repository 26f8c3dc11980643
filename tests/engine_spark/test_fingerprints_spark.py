"""The input fingerprints' checksum: the sum of the rows' 64-bit hashes per partition, as
an exact decimal(38, 0). Both builders (the SQL macros' `_sw_hash_sum` and the Python
models' `fingerprints.hash_sum`) sum the hash in bigint pieces; their value must be the
exact integer sum (checked here against Python's integers) and equal to Spark's own
decimal sum, which the records written before the pieces hold."""

from __future__ import annotations

import random
from decimal import Decimal

from streamwindows.spark.fingerprints import hash_sum
from tests.conftest import run_dbt

LOW, HIGH = -(2**63), 2**63 - 1


def hashes_by_group() -> dict[str, list[int | None]]:
    draw = random.Random(20261127)
    return {
        "extremes": [LOW, HIGH, LOW, LOW, HIGH, 0, -1, 1],
        "random": [draw.randint(LOW, HIGH) for _ in range(5000)],
        "negative": [draw.randint(LOW, -1) for _ in range(3000)],
        "one": [draw.randint(LOW, HIGH)],
        "no value": [None, None],
    }


def test_both_checksums_are_the_exact_sum_and_spark_decimal_sum(spark):
    groups = hashes_by_group()
    frame = spark.createDataFrame([(g, h) for g, values in groups.items() for h in values], "g string, h bigint")
    frame.createOrReplaceTempView("sw_test_hashes")
    macro_sum = run_dbt("compile", "--inline", "{{ stream_windows._sw_hash_sum('h') }}").result.results[0] \
        .node.compiled_code.strip()
    rows = spark.sql(f"select g, {macro_sum} as by_macro, sum(cast(h as decimal(38, 0))) as by_spark "
                     "from sw_test_hashes group by g").collect()
    by_python = {r["g"]: r["s"] for r in frame.groupBy("g").agg(hash_sum(frame["h"]).alias("s")).collect()}
    assert len(rows) == len(groups)
    for row in rows:
        values = [h for h in groups[row["g"]] if h is not None]
        exact = Decimal(sum(values)) if values else None
        assert row["by_macro"] == row["by_spark"] == by_python[row["g"]] == exact, row
    schema = spark.sql(f"select {macro_sum} as s from sw_test_hashes").schema
    assert schema["s"].dataType.simpleString() == "decimal(38,0)"
    assert frame.groupBy("g").agg(hash_sum(frame["h"]).alias("s")).schema["s"].dataType.simpleString() == \
        "decimal(38,0)"
