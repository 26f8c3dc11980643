-- The hourly partial states merged into one row per city.
{{ stream_windows.merge_partial_aggregates(
    relation=ref('readings_hourly_partials'),
    group_by=['city'],
    aggregates={'temp_max': 'max(temp)', 'temp_avg': 'avg(temp)', 'readings': 'count(*)'},
) }}
