-- Merged daily partial aggregates equal the direct computation over each month.
with merged as (
    select * from {{ ref('hourly_temperatures_city_pair_monthly_corr') }}
),

direct as (
    select
        reading_month,
        corr(seattle_temp_f, san_francisco_temp_f) as temp_f_corr,
        covar_samp(seattle_temp_f, san_francisco_temp_f) as temp_f_cov
    from {{ ref('int_hourly_temperatures_paired') }}
    group by reading_month
)

select
    direct.reading_month,
    merged.temp_f_corr as merged_corr,
    direct.temp_f_corr as direct_corr,
    merged.temp_f_cov as merged_cov,
    direct.temp_f_cov as direct_cov
from direct
left join merged on direct.reading_month = merged.reading_month
where
    merged.reading_month is null
    or abs(merged.temp_f_corr - direct.temp_f_corr) > 1e-9
    or abs(merged.temp_f_cov - direct.temp_f_cov) > 1e-6
