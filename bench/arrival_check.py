"""What a repeated-arrival check would cost the macros that leave it to the
arrival_unique test (count_window_aggregate, partial_aggregate): their SQL over the
input as it is, against the same SQL over the input behind the check, in alternating
rounds. A context row: it is the measured reason for leaving the check out."""

from __future__ import annotations

from collections.abc import Callable

from bench.harness import to_noop
from bench.rounds import alternating, paired


def arrival_checked(view: str, partition: str, arrival_order: str = "seq") -> str:
    """`view`'s rows behind the check a macro would need where no window of its own
    sorts by arrival: a lag over the partition in arrival order, failing the query on a
    repeat."""
    return f"""
        select * except (_sw_repeated) from (
            select *, lag({arrival_order}) over (partition by {partition} order by {arrival_order}) = {arrival_order}
                      as _sw_repeated
            from {view}
        ) where case when _sw_repeated then raise_error('repeated arrival position') else true end
    """


def check_cost(spark, benchmark: str, macro: str, view: str, partition: str, sql_over: Callable[[str], str]) -> dict:
    """The result row: `sql_over(view)` against `sql_over` of `view` behind the check."""
    checked = f"{view}_arrival_checked"
    spark.sql(arrival_checked(view, partition)).createOrReplaceTempView(checked)
    base, measured = alternating(to_noop(sql_over(view)), to_noop(sql_over(checked)))
    print(f"  {macro}: as it is {base.median:.2f}s {base.shown}, behind a repeated-arrival check "
          f"{measured.median:.2f}s {measured.shown}", flush=True)
    return paired(f"{benchmark}, with a repeated-arrival check", macro, base,
                  f"the same over its input behind a lag over ({partition}, seq) failing on a repeat (context: the "
                  "check's cost)", measured, None)
