select
    seq,
    day_number,
    observed_on,
    city,
    low_temp_c,
    avg_temp_c,
    high_temp_c
from {{ ref('seattle_daily_weather') }}
