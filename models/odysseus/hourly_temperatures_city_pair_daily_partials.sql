-- Real data, Odysseus PRE_AGG (outputPA = true) as the state of scheduled runs: per day
-- of 2010, the partial aggregates (co-moments) of Seattle's and San Francisco's hourly
-- temperatures. A day closes once readings pass its end, so a run recomputes only the
-- days from the one holding the latest reading it had seen; the monthly merge reads
-- these days, never the readings.
{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['time_partition']) }}
{{ partial_aggregate(
    relation=ref('int_hourly_temperatures_paired'),
    group_by=['reading_month'],
    pane={'time_column': 'reading_at', 'size': '1 day'},
    arrival_order='seq',
    aggregates={
        'temp_f_corr': 'corr(seattle_temp_f, san_francisco_temp_f)',
        'temp_f_cov': 'cov(seattle_temp_f, san_francisco_temp_f)',
        'paired_hours': 'count(seattle_temp_f)',
    },
    incremental={'partition': 'month', 'late_rows': var('late_rows', 'error')},
) }}
