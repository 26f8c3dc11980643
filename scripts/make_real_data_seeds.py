"""Writes the real-data seeds from the CSV files the `vega-datasets` wheel ships.

Run by `make seeds-data` (the CSVs are committed; rerun only to regenerate them).
Arrival order (`seq`) is time order with city as the tie-break, as a feed merging
the two stations' hourly readings would deliver them.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from vega_datasets import data

SEEDS = Path(__file__).resolve().parents[1] / "seeds"


def hourly_temperatures() -> pd.DataFrame:
    seattle = data.seattle_temps().assign(city="Seattle")
    san_francisco = data.sf_temps().assign(city="San Francisco")
    readings = pd.concat([seattle, san_francisco], ignore_index=True)
    readings = readings.rename(columns={"date": "reading_at", "temp": "temp_f"})
    readings = readings.sort_values(["reading_at", "city"], kind="stable", ignore_index=True)
    readings.insert(0, "seq", range(1, len(readings) + 1))
    readings["reading_at"] = readings["reading_at"].dt.strftime("%Y-%m-%d %H:%M:%S")
    return readings[["seq", "reading_at", "city", "temp_f"]]


def seattle_daily_weather() -> pd.DataFrame:
    """Daily Seattle weather 2012-2015 in the shape of StreamBase's weekly moving-average
    example ({Day int, City string, Low double, Average double, High double}): Day is the
    day number (2012-01-01 = 1), Average the mid-range of the day's low and high."""
    daily = data.seattle_weather()
    out = pd.DataFrame({
        "seq": range(1, len(daily) + 1),
        "day_number": (daily["date"] - daily["date"].iloc[0]).dt.days + 1,
        "observed_on": daily["date"].dt.strftime("%Y-%m-%d"),
        "city": "Seattle",
        "low_temp_c": daily["temp_min"],
        "avg_temp_c": ((daily["temp_min"] + daily["temp_max"]) / 2).round(2),
        "high_temp_c": daily["temp_max"],
    })
    return out


def monthly_stock_prices() -> pd.DataFrame:
    """Monthly closing prices of five tickers, 2000-01 to 2010-03 (GOOG from 2004-08),
    in time order with the ticker as the tie-break."""
    prices = data.stocks().rename(columns={"symbol": "ticker", "date": "priced_on"})
    prices = prices.sort_values(["priced_on", "ticker"], kind="stable", ignore_index=True)
    prices.insert(0, "seq", range(1, len(prices) + 1))
    prices["priced_on"] = prices["priced_on"].dt.strftime("%Y-%m-%d")
    return prices[["seq", "ticker", "priced_on", "price"]]


def main() -> None:
    for name, frame in {"hourly_temperatures": hourly_temperatures(),
                        "seattle_daily_weather": seattle_daily_weather(),
                        "monthly_stock_prices": monthly_stock_prices()}.items():
        frame.to_csv(SEEDS / f"{name}.csv", index=False)
        print(f"{name}.csv: {len(frame)} rows")


if __name__ == "__main__":
    main()
