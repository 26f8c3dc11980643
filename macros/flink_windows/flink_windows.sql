{#- The windows Flink SQL users know by name (docs/semantics.md, "Session windows and
    Flink's window names"): TUMBLE, HOP and CUMULATE aggregated per window and key, and
    window Top-N. Each is one GROUP BY (or one ROW_NUMBER) over the windows an event
    belongs to, computed on the time as a number (microseconds for timestamps), with
    Flink's columns: window_start, window_end (exclusive), window_time (window_end
    minus one tick), plus event_count and is_final (the stream, any key, has reached
    window_end). As in Flink, a window with no event gives no row. -#}

{% macro tumble(relation, time_column, size, aggregates, partition_by=none, offset=none, arrival_order=none) %}
  {{- stream_windows._sw_check_call('tumble', ['relation', 'time_column', 'size', 'aggregates', 'partition_by', 'offset', 'arrival_order'], varargs, kwargs) -}}
  {{ return(adapter.dispatch('tumble', 'stream_windows')(stream_windows._sw_unfiltered(relation), time_column, size, aggregates, partition_by, offset, arrival_order)) }}
{% endmacro %}

{% macro default__tumble(relation, time_column, size, aggregates, partition_by, offset, arrival_order) %}
  {{ return(stream_windows._sw_unsupported_adapter('tumble')) }}
{% endmacro %}

{% macro spark__tumble(relation, time_column, size, aggregates, partition_by, offset, arrival_order) %}
  {{ return(stream_windows._sw_flink_window_aggregate('tumble', relation, time_column, size, none, none, offset, aggregates, partition_by, arrival_order)) }}
{% endmacro %}

{% macro hop(relation, time_column, size, slide, aggregates, partition_by=none, offset=none, arrival_order=none) %}
  {{- stream_windows._sw_check_call('hop', ['relation', 'time_column', 'size', 'slide', 'aggregates', 'partition_by', 'offset', 'arrival_order'], varargs, kwargs) -}}
  {{ return(adapter.dispatch('hop', 'stream_windows')(stream_windows._sw_unfiltered(relation), time_column, size, slide, aggregates, partition_by, offset, arrival_order)) }}
{% endmacro %}

{% macro default__hop(relation, time_column, size, slide, aggregates, partition_by, offset, arrival_order) %}
  {{ return(stream_windows._sw_unsupported_adapter('hop')) }}
{% endmacro %}

{% macro spark__hop(relation, time_column, size, slide, aggregates, partition_by, offset, arrival_order) %}
  {{ return(stream_windows._sw_flink_window_aggregate('hop', relation, time_column, size, slide, none, offset, aggregates, partition_by, arrival_order)) }}
{% endmacro %}

{% macro cumulate(relation, time_column, size, step, aggregates, partition_by=none, offset=none, arrival_order=none) %}
  {{- stream_windows._sw_check_call('cumulate', ['relation', 'time_column', 'size', 'step', 'aggregates', 'partition_by', 'offset', 'arrival_order'], varargs, kwargs) -}}
  {{ return(adapter.dispatch('cumulate', 'stream_windows')(stream_windows._sw_unfiltered(relation), time_column, size, step, aggregates, partition_by, offset, arrival_order)) }}
{% endmacro %}

{% macro default__cumulate(relation, time_column, size, step, aggregates, partition_by, offset, arrival_order) %}
  {{ return(stream_windows._sw_unsupported_adapter('cumulate')) }}
{% endmacro %}

{% macro spark__cumulate(relation, time_column, size, step, aggregates, partition_by, offset, arrival_order) %}
  {{ return(stream_windows._sw_flink_window_aggregate('cumulate', relation, time_column, size, none, step, offset, aggregates, partition_by, arrival_order)) }}
{% endmacro %}

{% macro window_top_n(relation, time_column, size, n, order_by, arrival_order, partition_by=none, slide=none, offset=none) %}
  {{- stream_windows._sw_check_call('window_top_n', ['relation', 'time_column', 'size', 'n', 'order_by', 'arrival_order', 'partition_by', 'slide', 'offset'], varargs, kwargs) -}}
  {{ return(adapter.dispatch('window_top_n', 'stream_windows')(stream_windows._sw_unfiltered(relation), time_column, size, n, order_by, arrival_order, partition_by, slide, offset)) }}
{% endmacro %}

{#- Any adapter but Spark's: the SQL this package writes is Spark SQL. -#}
{% macro default__window_top_n(relation, time_column, size, n, order_by, arrival_order, partition_by, slide, offset) %}
  {{ return(stream_windows._sw_unsupported_adapter('window_top_n')) }}
{% endmacro %}

{% macro _sw_flink_window(macro_name, relation, time_column, size, slide, step, offset) %}
  {#- The checked window shape, as numbers of the time's unit (microseconds for an
      interval): {'kind', 'size', 'slide', 'step', 'offset', 'key': the time as a number,
      'starts': a SQL array of the start keys of the windows an event belongs to (for
      cumulate, of their end keys: every window of a cumulate shares its start),
      'as_time': a macro-side function turning a key expression into the output's time}. -#}
  {%- if relation is none -%}{{ stream_windows._sw_fail(macro_name, 'relation', 'a relation (ref, source or CTE name)', relation) }}{%- endif -%}
  {%- if time_column is not string or not time_column -%}{{ stream_windows._sw_fail(macro_name, 'time_column', 'a column name', time_column) }}{%- endif -%}
  {%- set window_size = stream_windows._sw_parse_range(macro_name, 'size', size) -%}
  {%- if window_size.size <= 0 -%}{{ stream_windows._sw_fail(macro_name, 'size', 'greater than zero', size) }}{%- endif -%}
  {%- set shape = {'kind': window_size.kind, 'size': window_size.size, 'slide': none, 'step': none, 'offset': 0} -%}
  {%- for argument, value in [('slide', slide), ('step', step), ('offset', offset)] if value is not none -%}
    {%- set parsed = stream_windows._sw_parse_range(macro_name, argument, value) -%}
    {%- if parsed.kind != window_size.kind -%}
      {{ stream_windows._sw_fail(macro_name, argument, ('an interval, as `size` is' if window_size.kind == 'interval' else 'a number, as `size` is'), value) }}
    {%- endif -%}
    {%- if argument != 'offset' and parsed.size <= 0 -%}{{ stream_windows._sw_fail(macro_name, argument, 'greater than zero', value) }}{%- endif -%}
    {%- do shape.update({argument: parsed.size}) -%}
  {%- endfor -%}
  {%- if shape.step is not none and (shape.size % shape.step != 0) -%}
    {{ stream_windows._sw_fail(macro_name, 'step', 'a step that divides `size` (a cumulate window grows by whole steps up to its size, as in Flink)', step) }}
  {%- endif -%}
  {%- set key = ('unix_micros(cast(' ~ time_column ~ ' as timestamp))') if window_size.kind == 'interval' else time_column -%}
  {%- set every = shape.slide if shape.slide is not none else shape.size -%}
  {#- The latest window start at or before the event. -#}
  {%- set last_start = '(' ~ key ~ ' - pmod(' ~ key ~ ' - ' ~ shape.offset ~ ', ' ~ every ~ '))' -%}
  {%- if shape.slide is not none -%}
    {#- Every start s with s <= t < s + size: back from the latest by whole slides. -#}
    {%- set count = ((shape.size + shape.slide - 1) // shape.slide) | int -%}
    {%- set starts = 'filter(sequence(' ~ last_start ~ ' - ' ~ (count - 1) * shape.slide ~ ', ' ~ last_start ~ ', ' ~ shape.slide ~ '), _sw_s -> _sw_s + ' ~ shape.size ~ ' > ' ~ key ~ ')' -%}
  {%- elif shape.step is not none -%}
    {#- The ends base + j * step after the event, j up to size / step. -#}
    {%- set starts = 'sequence(' ~ last_start ~ ' + (floor((' ~ key ~ ' - ' ~ last_start ~ ') / ' ~ shape.step ~ ') + 1) * ' ~ shape.step ~ ', ' ~ last_start ~ ' + ' ~ shape.size ~ ', ' ~ shape.step ~ ')' -%}
  {%- else -%}
    {%- set starts = 'array(' ~ last_start ~ ')' -%}
  {%- endif -%}
  {%- do shape.update({'key': key, 'starts': starts}) -%}
  {{ return(shape) }}
{% endmacro %}

{% macro _sw_flink_time(shape, key_sql) %}
  {{ return(('timestamp_micros(' ~ key_sql ~ ')') if shape.kind == 'interval' else key_sql) }}
{% endmacro %}

{% macro _sw_flink_window_columns(shape, start, end) %}
  {{ return([stream_windows._sw_flink_time(shape, start) ~ ' as window_start', stream_windows._sw_flink_time(shape, end) ~ ' as window_end',
             stream_windows._sw_flink_time(shape, end ~ ' - 1') ~ ' as window_time']) }}
{% endmacro %}

{% macro _sw_flink_window_aggregate(kind, relation, time_column, size, slide, step, offset, aggregates, partition_by, arrival_order) %}
  {%- if not execute -%}{{ return('select 1 as parsed') }}{%- endif -%}
  {%- set shape = stream_windows._sw_flink_window(kind, relation, time_column, size, slide, step, offset) -%}
  {%- set aggs = stream_windows._sw_parse_aggregates(kind, aggregates, {'relation': relation, 'duration': (shape.size / 1000000) if shape.kind == 'interval' else shape.size}) -%}
  {%- set keys = stream_windows._sw_as_list(kind, 'partition_by', partition_by) -%}
  {{- stream_windows._sw_check_grouped_call(kind, relation, time_column, shape.kind, keys, arrival_order, aggs,
      ['window_start', 'window_end', 'window_time', 'event_count', 'is_final']) -}}
  {%- set source = stream_windows._sw_checked_time(kind, relation, keys, time_column, arrival_order) -%}
  {#- A cumulate window's duration is its own (it grows by steps). -#}
  {%- set seconds = '(' ~ ('(_sw_end - _sw_start)' if kind == 'cumulate' else shape.size) ~ ' / ' ~ ('1000000D' if shape.kind == 'interval' else '1D') ~ ')' -%}
  {%- set outputs = [] -%}
  {%- for agg in aggs -%}{%- do outputs.append(stream_windows._sw_grouped_expr(agg, arrival_order, seconds)) -%}{%- endfor -%}
  {%- if kind == 'cumulate' -%}
    {%- set start = shape.key ~ ' - pmod(' ~ shape.key ~ ' - ' ~ shape.offset ~ ', ' ~ shape.size ~ ')' -%}
    {%- set bounds = [start ~ ' as _sw_start', 'explode(' ~ shape.starts ~ ') as _sw_end'] -%}
  {%- else -%}
    {%- set bounds = ['explode(' ~ shape.starts ~ ') as _sw_start'] -%}
  {%- endif -%}
  {%- set end = '_sw_end' if kind == 'cumulate' else '_sw_start + ' ~ shape.size -%}
select
    {{ (keys | join(', ') ~ ',') if keys }}
    {{ stream_windows._sw_flink_window_columns(shape, '_sw_start', end) | join(',\n    ') }},
    count(*) as event_count,
    coalesce((select max({{ shape.key }}) from {{ source }} as _sw_stream) >= {{ end }}, false) as is_final,
    {{ outputs | join(',\n    ') }}
from (
    select *, {{ bounds | join(', ') }}
    from {{ source }} as _sw_input
) as _sw_assigned
group by {{ (keys | join(', ') ~ ',') if keys }} _sw_start{{ ', _sw_end' if kind == 'cumulate' }}
{% endmacro %}

{#- Flink's window Top-N: per window (tumbling, or hopping with `slide`) and key, the
    first n rows by `order_by`, ties broken by arrival order (the earlier first), NULL
    values of the order last. Each kept row with its window's columns and `rank`
    (1..n, a row number, as Flink's ROW_NUMBER() <= n). -#}
{% macro spark__window_top_n(relation, time_column, size, n, order_by, arrival_order, partition_by, slide, offset) %}
  {%- set macro_name = 'window_top_n' -%}
  {%- if not execute -%}{{ return('select 1 as parsed') }}{%- endif -%}
  {%- set shape = stream_windows._sw_flink_window(macro_name, relation, time_column, size, slide, none, offset) -%}
  {%- if not stream_windows._sw_is_number(n) or n != (n | int) or n < 1 -%}
    {{ stream_windows._sw_fail(macro_name, 'n', 'a whole number of rows >= 1', n) }}
  {%- endif -%}
  {%- if arrival_order is not string or not arrival_order -%}
    {{ stream_windows._sw_fail(macro_name, 'arrival_order', 'a column giving arrival order (it breaks ties in the order)', arrival_order) }}
  {%- endif -%}
  {%- set keys = stream_windows._sw_as_list(macro_name, 'partition_by', partition_by) -%}
  {%- set orders = [] -%}
  {%- set order_columns = [] -%}
  {%- for item in stream_windows._sw_as_list(macro_name, 'order_by', order_by) -%}
    {%- set match = modules.re.match('^\\s*([A-Za-z_][A-Za-z0-9_]*)(?:\\s+(asc|desc))?\\s*$', item, modules.re.IGNORECASE) -%}
    {%- if not match -%}{{ stream_windows._sw_fail(macro_name, 'order_by', "a column, or a list of columns, each optionally followed by asc or desc", item) }}{%- endif -%}
    {%- do orders.append(match.group(1) ~ ' ' ~ (match.group(2) or 'asc') | lower ~ ' nulls last') -%}
    {%- do order_columns.append(('order_by', match.group(1))) -%}
  {%- endfor -%}
  {%- if not orders -%}{{ stream_windows._sw_fail(macro_name, 'order_by', 'at least one column', order_by) }}{%- endif -%}
  {%- set wanted = [('time_column', time_column), ('arrival_order', arrival_order)] + order_columns -%}
  {%- for column in keys -%}{%- do wanted.append(('partition_by', column)) -%}{%- endfor -%}
  {{- stream_windows._sw_check_columns_exist(macro_name, relation, wanted, {'column': time_column, 'kind': shape.kind}) -}}
  {%- set source = stream_windows._sw_checked_time(macro_name, relation, keys, time_column, arrival_order) -%}
  {%- set window = (keys + ['_sw_start']) | join(', ') -%}
select * except (_sw_start)
from (
    select
        *,
        {{ stream_windows._sw_flink_window_columns(shape, '_sw_start', '_sw_start + ' ~ shape.size) | join(',\n        ') }},
        row_number() over (partition by {{ window }} order by {{ orders | join(', ') }}, {{ arrival_order }}) as rank
    from (
        select *, explode({{ shape.starts }}) as _sw_start
        from {{ source }} as _sw_input
    ) as _sw_assigned
) as _sw_ranked
where rank <= {{ n | int }}
{% endmacro %}
