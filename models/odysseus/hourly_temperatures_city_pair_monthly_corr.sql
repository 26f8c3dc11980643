-- Real data: per month of 2010, CORR and COV (sample) between Seattle's and San
-- Francisco's hourly temperatures, merged from daily partial aggregates (co-moments per
-- day, combined by Chan's formula): the same numbers a direct GROUP BY month gives.
with paired as (
    select * from {{ ref('int_hourly_temperatures_paired') }}
),

daily_partials as (
    {{ partial_aggregate(
        relation='paired',
        group_by=['reading_month'],
        pane='reading_date',
        aggregates={
            'temp_f_corr': 'corr(seattle_temp_f, san_francisco_temp_f)',
            'temp_f_cov': 'cov(seattle_temp_f, san_francisco_temp_f)',
            'paired_hours': 'count(seattle_temp_f)',
        },
    ) }}
)

{{ merge_partial_aggregates(
    relation='daily_partials',
    group_by=['reading_month'],
    aggregates={
        'temp_f_corr': 'corr(seattle_temp_f, san_francisco_temp_f)',
        'temp_f_cov': 'cov(seattle_temp_f, san_francisco_temp_f)',
        'paired_hours': 'count(seattle_temp_f)',
    },
) }}
