"""Writes seeds/page_views.csv, a synthetic clickstream for the session-window examples.

The other seeds come from engine documents or public datasets; none has what sessions
are about: many keys, bursts of activity hours apart, and gaps right at a session gap.
So this one is made: 200 users over three days from 2024-03-04, some 5,000 page views.
Users come back a few times a day, hours apart; within a visit views are seconds to
minutes apart. Two habits of real traffic put gaps where the session rules part:
'/cart' reloads itself every 30 minutes (a meta refresh that keeps the reservation), so
a cart left open logs views exactly 1800 s apart, on the boundary where a 30-minute gap's
'inclusive' and 'exclusive' readings differ; and a double click logs two views of one
user in one second, whose order only the arrival column settles.

The generator has a fixed seed and integer seconds only: rerunning the script rewrites
the committed file byte for byte. Run it with `.venv/bin/python scripts/make_clickstream_seed.py`.
"""

from __future__ import annotations

import csv
import datetime as dt
import random
from pathlib import Path

SEEDS = Path(__file__).resolve().parents[1] / "seeds"
START = dt.datetime(2024, 3, 4)
DAYS = 3
END = START + dt.timedelta(days=DAYS)
USERS = 200
CART_REFRESH_S = 30 * 60

# Where a visit goes next from each kind of page: a storefront's funnel, most visits
# leaving before the cart. None ends the visit.
NEXT_PAGE = {
    "/": (["/search", "/product", "/cart", None], [45, 38, 5, 12]),
    "/search": (["/product", "/search", "/", None], [62, 21, 5, 12]),
    "/product": (["/product", "/search", "/cart", "/", None], [33, 20, 17, 10, 20]),
    "/cart": (["/checkout", "/product", "/", None], [45, 25, 10, 20]),
    "/checkout": (["/", None], [15, 85]),
}
LANDING = (["/", "/search", "/product"], [55, 15, 30])
# Seconds a user reads each kind of page before the next click (uniform in the range).
READING_S = {"/": (3, 40), "/search": (5, 60), "/product": (10, 240), "/cart": (5, 90), "/checkout": (30, 300)}
# Visits a user starts on one day: most users come once or twice, some not at all.
VISITS_A_DAY = ([0, 1, 2, 3], [14, 37, 32, 17])


def path(rng: random.Random, page: str) -> str:
    """The page's path; product numbers skewed to the low (popular) ones."""
    if page == "/product":
        return f"/product/{min(rng.randint(1, 60), rng.randint(1, 60))}"
    return page


def visit(rng: random.Random, user: str, at: int) -> list[dict]:
    """The views of one visit starting `at` seconds after START; each view's dwell is the
    time read before the next click, or, for the visit's last view, before leaving."""
    views = []
    page = rng.choices(*LANDING)[0]
    while True:
        low, high = READING_S[page]
        reading = rng.randint(low, high)
        views.append({"user_id": user, "at": at, "page": path(rng, page),
                      "dwell_ms": reading * 1000 - rng.randint(100, 900)})
        if rng.random() < 0.01:
            # A double click: the same page again in the same second; the first load is left at once.
            first = views[-1]
            views.append({**first, "dwell_ms": first["dwell_ms"]})
            first["dwell_ms"] = rng.randint(50, 400)
        if page == "/cart" and rng.random() < 0.07:
            # The cart left open reloads itself every 30 minutes until the user is back.
            for _ in range(rng.choice([1, 1, 2])):
                at += CART_REFRESH_S
                views.append({"user_id": user, "at": at, "page": "/cart", "dwell_ms": rng.randint(800, 3000)})
            if rng.random() < 0.5:
                break
        elif rng.random() < 0.02:
            reading = rng.randint(10 * 60, 50 * 60)  # away from the tab (a call, another site)
        page = rng.choices(*NEXT_PAGE[page])[0]
        if page is None:
            break
        at += reading
    return views


def user_views(rng: random.Random, user: str) -> list[dict]:
    """A user's views over the days: visits from the morning on, 1.5 to 6 hours apart."""
    days = [rng.choices(*VISITS_A_DAY)[0] for _ in range(DAYS)]
    if not any(days):
        days[rng.randrange(DAYS)] = 1  # every user of the seed visits at least once
    views = []
    for day, visits in enumerate(days):
        at = day * 86400 + rng.randint(7 * 3600, 13 * 3600)
        for _ in range(visits):
            if views:
                at = max(at, views[-1]["at"] + 90 * 60)
            views.extend(visit(rng, user, at))
            at = views[-1]["at"] + rng.randint(90 * 60, 6 * 3600)
    return [v for v in views if START + dt.timedelta(seconds=v["at"]) < END]


def page_views() -> list[dict]:
    """Every user's views in arrival order: time, then user (a stable sort keeps a double
    click's two views in the order they were made); view_id is the row number."""
    rng = random.Random(20240304)
    views = [v for u in range(1, USERS + 1) for v in user_views(rng, f"u{u:04d}")]
    views.sort(key=lambda v: (v["at"], v["user_id"]))
    return [{"view_id": i, "user_id": v["user_id"],
             "viewed_at": (START + dt.timedelta(seconds=v["at"])).strftime("%Y-%m-%d %H:%M:%S"),
             "page": v["page"], "dwell_ms": v["dwell_ms"]} for i, v in enumerate(views, start=1)]


def pauses(rows: list[dict]) -> list[int]:
    """Seconds between consecutive views of each user."""
    last, out = {}, []
    for row in rows:
        at = dt.datetime.fromisoformat(row["viewed_at"])
        if row["user_id"] in last:
            out.append(int((at - last[row["user_id"]]).total_seconds()))
        last[row["user_id"]] = at
    return out


def write_csv(rows: list[dict], f) -> None:
    """One writer for the seed and for the test that regenerates it, so both give the same bytes."""
    writer = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)


def main() -> None:
    rows = page_views()
    with (SEEDS / "page_views.csv").open("w", newline="") as f:
        write_csv(rows, f)
    gaps = pauses(rows)
    print(f"page_views.csv: {len(rows)} views, {len({r['user_id'] for r in rows})} users, "
          f"{gaps.count(CART_REFRESH_S)} pauses of exactly 30 minutes, "
          f"{sum(g > CART_REFRESH_S for g in gaps)} longer, {gaps.count(0)} in the same second")


if __name__ == "__main__":
    main()
