-- Kaskada Fenl: sum(temp, window = sliding(2, temp >= 10)) per city.
{{ stream_windows.fenl_aggregate(
    relation=ref('readings'),
    entity='city',
    time_column='reading_at',
    arrival_order='seq',
    window=stream_windows.fenl_sliding(2, 'temp >= 10'),
    aggregates={'temp_sum_last_2_warm': 'sum(temp)'},
) }}
