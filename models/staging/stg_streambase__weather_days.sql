select
    seq,
    day,
    low_temp,
    average_temp,
    high_temp
from {{ ref('weather_days') }}
