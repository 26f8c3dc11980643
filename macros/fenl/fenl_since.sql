{#- Fenl's `since(...)` window generator, for fenl_aggregate's `window`. Give one of:
    - `predicate`: at every row, the aggregate over the rows since the last row where
      the predicate was true (that row closes the old window; the next row opens a
      new one);
    - `period` (hourly, daily, monthly, yearly): a cron window, one row per entity at
      every period boundary with the aggregate over the period that just ended,
      empty periods included (docs/semantics.md, Kaskada Fenl section). -#}
{% macro fenl_since(predicate=none, period=none) %}
  {{- stream_windows._sw_check_call('fenl_since', ['predicate', 'period'], varargs, kwargs) -}}
  {%- set periods = ['hourly', 'daily', 'monthly', 'yearly'] -%}
  {%- if (predicate is none) == (period is none) -%}
    {{ stream_windows._sw_fail('fenl_since', 'predicate', "given alone, or replaced by `period` (one of " ~ (periods | join(', ')) ~ "), not both", predicate) }}
  {%- endif -%}
  {%- if period is not none -%}
    {{ stream_windows._sw_check_choice('fenl_since', 'period', period | lower if period is string else period, periods) }}
    {{ return({'fenl_window': 'cron', 'period': period | lower}) }}
  {%- endif -%}
  {%- if predicate is not string or not predicate | trim -%}
    {{ stream_windows._sw_fail('fenl_since', 'predicate', 'a boolean SQL expression over the row (such as is_reset)', predicate) }}
  {%- endif -%}
  {{ return({'fenl_window': 'since', 'predicate': predicate}) }}
{% endmacro %}
