"""The StreamBase hopping window across window widths (context, no goals): size 70, 700
and 7,000 with advance 10, 100 and 1,000 (every trade in 7 windows at each width) on the
10M-trade stream of the StreamBase benchmark, as the time at each width over the time at
the narrowest, beside Spark's `window()` at the same widths. Flat is expected: the rows
each trade reaches stay 7. (RANGE across widths is the SQLstream benchmark's own table.)

Alternating rounds (bench/rounds.py), judged by the medians."""

from __future__ import annotations

from bench import streambase_field_dimension
from bench.harness import to_noop
from bench.rounds import alternating, paired

WIDTHS = ((70, 10), (700, 100), (7_000, 1_000))
PATH = ".spark/bench/trades_10m"


def run(spark) -> list[dict]:
    trades = streambase_field_dimension.make_trades(spark, 10_000_000, PATH)
    trades.createOrReplaceTempView("bench_trades")

    results, narrowest = [], None
    for size, advance in WIDTHS:
        base, measured = alternating(to_noop(streambase_field_dimension.window_sql(size, advance)),
                                     streambase_field_dimension.engine_action(trades, size, advance))
        print(f"  hopping {size}/{advance}: window() {base.median:.2f}s {base.shown}, engine {measured.median:.2f}s "
              f"{measured.shown}", flush=True)
        if narrowest is None:
            narrowest = (size, advance, base, measured)
            also = "the narrowest width: the others' engine time is given over this one's"
        else:
            also = (f"engine time over its time at {narrowest[0]}/{narrowest[1]}: "
                    f"{measured.median / narrowest[3].median:.2f}; window() over its own: "
                    f"{base.median / narrowest[2].median:.2f} (flat is 1)")
        results.append(paired(f"StreamBase hopping {size}/{advance} (7 windows a trade), 10M trades",
                              f"Spark window(ts, '{size} seconds', '{advance} seconds')", base,
                              "field_dimension_aggregate_spark", measured, None, also=also))
    return results
