-- Real data: per month of 2010, CORR and COV (sample) between Seattle's and San
-- Francisco's hourly temperatures, merged from the daily partial aggregates (co-moments
-- per day, combined by Chan's formula): the same numbers a direct GROUP BY month gives.
-- It reads 365 day states, not 8,760 hours: a full build after each scheduled run of the
-- daily partials costs O(panes).
{{ merge_partial_aggregates(
    relation=ref('hourly_temperatures_city_pair_daily_partials'),
    group_by=['reading_month'],
    aggregates={
        'temp_f_corr': 'corr(seattle_temp_f, san_francisco_temp_f)',
        'temp_f_cov': 'cov(seattle_temp_f, san_francisco_temp_f)',
        'paired_hours': 'count(seattle_temp_f)',
    },
) }}
