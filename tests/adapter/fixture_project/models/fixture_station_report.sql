select
    station,
    readings,
    value_span,
    value_span > 3 as is_spread
from {{ ref('fixture_station_spans') }}
