"""Stream-engine windowing semantics, replayed in batch with pandas and numpy."""

from streamwindows.errors import (
    InvalidParameterError,
    NullFieldError,
    OutOfOrderError,
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
from streamwindows.range_aggregates import Aggregate, parse_aggregates

__version__ = "0.1.0"

__all__ = [
    "Aggregate",
    "FieldDimensionParams",
    "InvalidParameterError",
    "NullFieldError",
    "OutOfOrderError",
    "StreamWindowsError",
    "__version__",
    "check_arrival_order",
    "field_coordinates",
    "field_dimension_aggregate",
    "group_windows",
    "order_emissions",
    "parse_aggregates",
    "resolve_emissions",
    "validate_parameters",
]
