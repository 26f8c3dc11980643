{#- RANGE sizes. A timestamp RANGE is given as an interval ("INTERVAL '1' DAY",
    "1 day", "90 minutes") and computed on unix_micros(time), so the tick (the
    smallest step of the time type) is 1 microsecond. A numeric RANGE is a number. -#}

{% macro _sw_interval_units() %}
  {{ return({'microsecond': 1, 'millisecond': 1000, 'second': 1000000, 'minute': 60000000,
             'hour': 3600000000, 'day': 86400000000, 'week': 604800000000}) }}
{% endmacro %}

{% macro _sw_parse_range(macro_name, argument, value) %}
  {#- Returns {'kind': 'interval'|'number', 'size': <micros or number>}. -#}
  {%- set units = stream_windows._sw_interval_units() -%}
  {%- set rule = "a number >= 0 (numeric RANGE) or an interval such as \"INTERVAL '1' DAY\" or '90 minutes' with a unit in " ~ (units.keys() | join(", ")) -%}
  {%- if stream_windows._sw_is_number(value) -%}
    {%- if value < 0 -%}{{ stream_windows._sw_fail(macro_name, argument, rule, value) }}{%- endif -%}
    {{ return({'kind': 'number', 'size': value}) }}
  {%- elif value is string -%}
    {%- set match = modules.re.match("^\\s*(?:interval\\s+)?'?\\s*(\\d+(?:[.]\\d+)?)\\s*'?\\s*([a-z]+?)s?\\s*$", value | lower) -%}
    {%- if not match or match.group(2) not in units -%}
      {{ stream_windows._sw_fail(macro_name, argument, rule, value) }}
    {%- endif -%}
    {%- set micros = (match.group(1) | float) * units[match.group(2)] -%}
    {%- if micros != (micros | int) -%}
      {{ stream_windows._sw_fail(macro_name, argument, "a whole number of microseconds", value) }}
    {%- endif -%}
    {{ return({'kind': 'interval', 'size': micros | int}) }}
  {%- else -%}
    {{ stream_windows._sw_fail(macro_name, argument, rule, value) }}
  {%- endif -%}
{% endmacro %}
