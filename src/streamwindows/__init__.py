"""Stream-engine windowing semantics, replayed in batch with pandas and numpy."""

from streamwindows.count_window import count_window_aggregate, time_weighted_average
from streamwindows.errors import (
    ChangedInputError,
    InvalidIntervalError,
    InvalidParameterError,
    NullFieldError,
    OutOfOrderError,
    RepeatedArrivalError,
    StreamWindowsError,
)
from streamwindows.field_dimension import (
    FieldDimensionParams,
    check_arrival_order,
    field_coordinates,
    field_dimension_aggregate,
    group_windows,
    order_emissions,
    resolve_emissions,
    validate_parameters,
)
from streamwindows.interval_semantics import interval_aggregate
from streamwindows.range_aggregates import (
    AGGREGATE_FUNCTIONS,
    Aggregate,
    AggregateFunction,
    parse_aggregates,
    register_aggregate,
)

__version__ = "0.1.0"

__all__ = [
    "AGGREGATE_FUNCTIONS",
    "Aggregate",
    "AggregateFunction",
    "FieldDimensionParams",
    "ChangedInputError",
    "InvalidIntervalError",
    "InvalidParameterError",
    "NullFieldError",
    "OutOfOrderError",
    "RepeatedArrivalError",
    "StreamWindowsError",
    "__version__",
    "check_arrival_order",
    "count_window_aggregate",
    "field_coordinates",
    "field_dimension_aggregate",
    "group_windows",
    "interval_aggregate",
    "order_emissions",
    "parse_aggregates",
    "register_aggregate",
    "resolve_emissions",
    "time_weighted_average",
    "validate_parameters",
]
