{#- The aggregate vocabulary of the SQL window macros.

    Users write aggregates as a mapping {output_column: "function(column)"}; function
    names are case-insensitive, count also takes "*". Each function is described
    once, here: how it is computed over one window, and how it is computed from two
    disjoint pieces of a window (the `ties='arrival'` plan splits a RANGE window into
    "strictly earlier times" and "same time, arrived at or before the row" and merges
    them; see range_window_aggregate). A function added here is available to every
    window macro. -#}

{% macro _sw_window_function_names() %}
  {{ return(['avg', 'count', 'first', 'last', 'max', 'min', 'sum']) }}
{% endmacro %}

{% macro _sw_parse_aggregates(macro_name, aggregates) %}
  {#- Returns a list of {'name', 'function', 'column'} in the given order. -#}
  {%- set known = _sw_window_function_names() -%}
  {%- set spec_rule = "a mapping of output column to 'function(column)' with function one of " ~ (known | join(", ")) -%}
  {%- if aggregates is not mapping or aggregates | length == 0 -%}
    {{ _sw_fail(macro_name, "aggregates", spec_rule, aggregates) }}
  {%- endif -%}
  {%- set parsed = [] -%}
  {%- for name, spec in aggregates.items() -%}
    {%- if not modules.re.match("^[A-Za-z_][A-Za-z0-9_]*$", name) -%}
      {{ _sw_fail(macro_name, "aggregates", "keyed by plain output column names", name) }}
    {%- endif -%}
    {%- set match = modules.re.match("^\\s*([A-Za-z_]+)\\s*[(]\\s*([*]|[A-Za-z_][A-Za-z0-9_]*)\\s*[)]\\s*$", spec if spec is string else "") -%}
    {%- if not match -%}
      {{ _sw_fail(macro_name, "aggregates['" ~ name ~ "']", "'function(column)' with function one of " ~ (known | join(", ")), spec) }}
    {%- endif -%}
    {%- set function = match.group(1) | lower -%}
    {%- set column = match.group(2) -%}
    {%- if function not in known -%}
      {{ _sw_fail(macro_name, "aggregates['" ~ name ~ "']", "a known function: one of " ~ (known | join(", ")), spec) }}
    {%- endif -%}
    {%- if column == '*' and function != 'count' -%}
      {{ _sw_fail(macro_name, "aggregates['" ~ name ~ "']", "function(column); only count takes *", spec) }}
    {%- endif -%}
    {%- do parsed.append({'name': name, 'function': function, 'column': column}) -%}
  {%- endfor -%}
  {{ return(parsed) }}
{% endmacro %}

{% macro _sw_input_expr(agg, mask) %}
  {#- The aggregate's input; `mask` is a boolean SQL expression that is true on rows
      that carry no data (rowtime bounds), which must not count. -#}
  {%- set column = '1' if agg.column == '*' else agg.column -%}
  {%- if mask -%}
    {{ return('case when not ' ~ mask ~ ' then ' ~ column ~ ' end') }}
  {%- else -%}
    {{ return(column) }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_single_window_expr(agg, x, arrival, integer_avg) %}
  {#- The aggregate over one window frame, as a SQL aggregate expression. -#}
  {%- set f = agg.function -%}
  {%- if f == 'avg' and integer_avg -%}
    {{ return('cast(sum(' ~ x ~ ') / count(' ~ x ~ ') as bigint)') }}
  {%- elif f == 'first' -%}
    {{ return('min_by(' ~ x ~ ', ' ~ arrival ~ ')') }}
  {%- elif f == 'last' -%}
    {{ return('max_by(' ~ x ~ ', ' ~ arrival ~ ')') }}
  {%- else -%}
    {{ return(f ~ '(' ~ x ~ ')') }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_window_parts(agg, x, arrival) %}
  {#- The mergeable parts of the aggregate over one piece of a window:
      a list of [part_name, SQL aggregate expression]. -#}
  {%- set f = agg.function -%}
  {%- if f in ('min', 'max', 'sum', 'count') -%}
    {{ return([[f, f ~ '(' ~ x ~ ')']]) }}
  {%- elif f == 'avg' -%}
    {{ return([['sum', 'sum(' ~ x ~ ')'], ['count', 'count(' ~ x ~ ')']]) }}
  {%- elif f == 'first' -%}
    {{ return([['value', 'min_by(' ~ x ~ ', ' ~ arrival ~ ')'], ['arrival', 'min(' ~ arrival ~ ')']]) }}
  {%- elif f == 'last' -%}
    {{ return([['value', 'max_by(' ~ x ~ ', ' ~ arrival ~ ')'], ['arrival', 'max(' ~ arrival ~ ')']]) }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_merge_parts(agg, a, b, integer_avg) %}
  {#- Combine the parts of two disjoint pieces. `a` and `b` map part names to column
      references; piece `b` always holds the current row, piece `a` may be empty. -#}
  {%- set f = agg.function -%}
  {%- if f == 'min' -%}
    {{ return('least(' ~ a.min ~ ', ' ~ b.min ~ ')') }}
  {%- elif f == 'max' -%}
    {{ return('greatest(' ~ a.max ~ ', ' ~ b.max ~ ')') }}
  {%- elif f == 'count' -%}
    {{ return(a['count'] ~ ' + ' ~ b['count']) }}
  {%- elif f == 'sum' -%}
    {{ return('case when ' ~ a.sum ~ ' is null then ' ~ b.sum ~ ' when ' ~ b.sum ~ ' is null then ' ~ a.sum ~ ' else ' ~ a.sum ~ ' + ' ~ b.sum ~ ' end') }}
  {%- elif f == 'avg' -%}
    {%- set total = '(coalesce(' ~ a.sum ~ ', 0) + coalesce(' ~ b.sum ~ ', 0)) / nullif(' ~ a['count'] ~ ' + ' ~ b['count'] ~ ', 0)' -%}
    {{ return('cast(' ~ total ~ ' as bigint)' if integer_avg else total) }}
  {%- elif f == 'first' -%}
    {{ return('case when ' ~ a.arrival ~ ' < ' ~ b.arrival ~ ' then ' ~ a.value ~ ' else ' ~ b.value ~ ' end') }}
  {%- elif f == 'last' -%}
    {{ return('case when ' ~ a.arrival ~ ' > ' ~ b.arrival ~ ' then ' ~ a.value ~ ' else ' ~ b.value ~ ' end') }}
  {%- endif -%}
{% endmacro %}
