select
    seq,
    rowtime,
    city,
    temp
from {{ ref('weather') }}
