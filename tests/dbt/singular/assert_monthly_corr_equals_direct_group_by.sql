-- Merged daily partial aggregates equal the direct computation over each month, both
-- ways: a month missing on either side fails, and so does a value NULL on one side
-- only (two NULLs agree).
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
    merged.temp_f_corr as merged_corr,
    direct.temp_f_corr as direct_corr,
    merged.temp_f_cov as merged_cov,
    direct.temp_f_cov as direct_cov,
    coalesce(direct.reading_month, merged.reading_month) as reading_month
from direct
full outer join merged on direct.reading_month = merged.reading_month
where
    direct.reading_month is null
    or merged.reading_month is null
    or not coalesce(abs(merged.temp_f_corr - direct.temp_f_corr) <= 1e-9, merged.temp_f_corr <=> direct.temp_f_corr)
    or not coalesce(abs(merged.temp_f_cov - direct.temp_f_cov) <= 1e-6, merged.temp_f_cov <=> direct.temp_f_cov)
