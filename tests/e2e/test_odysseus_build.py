"""End to end: the Odysseus PRE_AGG -> AGG pipeline over auction_bids, as built by
`dbt build`: partial aggregates per bidder and 10-minute pane, merged per bidder
(the document's `MAX(price) GROUP BY bidder`), checked by the project's equality tests
(against the expected seed and against the direct GROUP BY) and read back here."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.conftest import rows

# The tests read the tables of the whole project's build.
pytestmark = pytest.mark.usefixtures("project_build")

SCHEMA = "stream_windows"
ODYSSEUS_NODES = ("auction_bid_partials", "auction_bidder_max_price", "auction_bidder_stats_direct")


def test_odysseus_models_and_their_tests_pass(project_build):
    results = [r for r in project_build.result.results
               if any(name in r.node.unique_id for name in ODYSSEUS_NODES)]
    statuses = {r.node.unique_id: str(r.status) for r in results}
    assert len([uid for uid in statuses if uid.startswith("model.")]) == 3
    assert any("direct_group_by" in uid for uid in statuses), "the merged-equals-direct check is not in the build"
    assert all(status in ("success", "pass") for status in statuses.values()), statuses


def test_partials_hold_one_row_per_bidder_and_pane(spark):
    got = rows(spark, f"select bidder, pane_start, pane_end, bid_count__count, max_price__max "
                      f"from {SCHEMA}.auction_bid_partials order by bidder, pane_start")
    assert len(got) == 15
    first = got[0]
    assert (first["bidder"], first["pane_start"], first["pane_end"]) == (
        1001, dt.datetime(2024, 1, 1, 12, 0), dt.datetime(2024, 1, 1, 12, 10))
    # 1001 bids at 12:00:05, 12:03 and 12:09:59 (one pane), 12:13, 12:20, 12:31.
    assert [(r["bid_count__count"], r["max_price__max"]) for r in got if r["bidder"] == 1001] == [
        (3, 160), (1, 320), (1, 55), (1, 70)]


def test_merged_max_price_per_bidder_is_the_documents_query(spark):
    got = rows(spark, f"select bidder, max_price, bid_count, auctions from {SCHEMA}.auction_bidder_max_price "
                      "order by bidder")
    assert [(r["bidder"], r["max_price"], r["bid_count"]) for r in got] == [
        (1001, 320, 6), (1002, 330, 5), (1003, 310, 5), (1004, 345, 4)]
    # DISTINCTNEST: distinct auctions in order of the bidder's first bid on each.
    assert [r["auctions"] for r in got] == [
        [2001, 2002, 2003, 2004], [2001, 2002, 2003, 2004], [2001, 2003, 2002, 2004], [2003, 2002, 2004]]
