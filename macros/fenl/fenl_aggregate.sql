{% macro fenl_aggregate(relation, entity, time_column, aggregates, arrival_order=none, window=none, columns=none, time_zone='UTC', incremental=none) %}
  {{- stream_windows._sw_check_call('fenl_aggregate', ['relation', 'entity', 'time_column', 'aggregates', 'arrival_order', 'window', 'columns', 'time_zone', 'incremental'], varargs, kwargs) -}}
  {{ return(adapter.dispatch('fenl_aggregate', 'stream_windows')(stream_windows._sw_unfiltered(relation), entity, time_column, aggregates, arrival_order, window, columns, time_zone, incremental)) }}
{% endmacro %}

{#- Any adapter but Spark's: the SQL this package writes is Spark SQL. -#}
{% macro default__fenl_aggregate(relation, entity, time_column, aggregates, arrival_order, window, columns, time_zone, incremental) %}
  {{ return(stream_windows._sw_unsupported_adapter('fenl_aggregate')) }}
{% endmacro %}

{#- Kaskada Fenl's aggregations over an event relation, per entity in time then
    arrival order, as one Spark SQL SELECT (docs/semantics.md, Kaskada Fenl section).

    `window` (default cumulative) decides what is aggregated and when:
      cumulative         one row per input, the entity's rows so far;
      fenl_sliding(n, p) one row per input, the n most recent rows where p holds;
      fenl_since(p)      one row per input, the rows since the last row where p held;
      fenl_since(period=...) one row per entity and period (cron window).
    Every aggregate is a pipeline 'f(column) | g() | ...': the first function runs
    over the window, each later one over the output sequence of the one before
    (Fenl's repeated aggregation), cumulatively.
    `incremental` (per-row windows): build batch by batch, carrying each entity's
    state between runs (fenl_incremental.sql). Under dbt's microbatch:
    fenl_microbatch.sql. -#}
{% macro spark__fenl_aggregate(relation, entity, time_column, aggregates, arrival_order, window, columns, time_zone, incremental) %}
  {%- set macro_name = 'fenl_aggregate' -%}
  {%- if not execute -%}{{ return(stream_windows._sw_parse_only(incremental, time_column)) }}{%- endif -%}
  {%- set microbatch = stream_windows._sw_microbatch(macro_name, incremental) -%}
  {%- if relation is none -%}{{ stream_windows._sw_fail(macro_name, 'relation', 'a relation (ref, source or CTE name)', relation) }}{%- endif -%}
  {%- set entities = stream_windows._sw_as_list(macro_name, 'entity', entity) -%}
  {%- if not entities -%}{{ stream_windows._sw_fail(macro_name, 'entity', 'a column name or a list of column names', entity) }}{%- endif -%}
  {%- if time_column is not string or not time_column -%}{{ stream_windows._sw_fail(macro_name, 'time_column', 'a column name', time_column) }}{%- endif -%}
  {%- set spec = stream_windows._sw_fenl_window(macro_name, window) -%}
  {%- set pipelines = stream_windows._sw_fenl_parse_pipelines(macro_name, aggregates) -%}
  {%- set passthrough = stream_windows._sw_as_list(macro_name, 'columns', columns) -%}
  {%- if arrival_order is not none and (arrival_order is not string or not arrival_order) -%}
    {{ stream_windows._sw_fail(macro_name, 'arrival_order', 'a column name', arrival_order) }}
  {%- endif -%}
  {%- if arrival_order is none and spec.fenl_window != 'cron' -%}
    {{ stream_windows._sw_fail(macro_name, 'arrival_order', "a column giving arrival order (such as seq), which orders rows of equal time", arrival_order) }}
  {%- endif -%}
  {%- for p in pipelines if p.stages[0].function in ('first', 'last') and arrival_order is none -%}
    {{ stream_windows._sw_fail(macro_name, 'arrival_order', "a column giving arrival order for " ~ p.stages[0].function ~ "()", arrival_order) }}
  {%- endfor -%}
  {%- if spec.fenl_window == 'cron' and passthrough -%}
    {{ stream_windows._sw_fail(macro_name, 'columns', "none with a cron window (its rows are entity periods, not input rows)", passthrough) }}
  {%- endif -%}
  {%- if time_zone is not string or time_zone not in modules.pytz.all_timezones -%}
    {{ stream_windows._sw_fail(macro_name, 'time_zone', "an IANA time zone name such as 'UTC' or 'Europe/Berlin'", time_zone) }}
  {%- endif -%}
  {%- if time_zone != 'UTC' and spec.fenl_window != 'cron' -%}
    {{ stream_windows._sw_fail(macro_name, 'time_zone', "'UTC' unless the window is a cron window (fenl_since(period=...)), the only one that reads clock boundaries", time_zone) }}
  {%- endif -%}
  {%- set wanted = [('time_column', time_column)] -%}
  {%- for column in entities -%}{%- do wanted.append(('entity', column)) -%}{%- endfor -%}
  {%- if arrival_order -%}{%- do wanted.append(('arrival_order', arrival_order)) -%}{%- endif -%}
  {%- for p in pipelines if p.stages[0].column != '*' -%}{%- do wanted.append(("aggregates['" ~ p.name ~ "']", p.stages[0].column)) -%}{%- endfor -%}
  {%- for column in passthrough -%}{%- do wanted.append(('columns', column)) -%}{%- endfor -%}
  {{- stream_windows._sw_check_columns_exist(macro_name, relation, wanted, {'column': time_column, 'kind': 'interval' if spec.fenl_window == 'cron' else 'any'}) -}}

  {%- set inc = stream_windows._sw_incremental_spec(macro_name, incremental, time_column, none) -%}
  {%- if inc is not none and passthrough and (time_column not in passthrough or arrival_order not in passthrough) -%}
    {{ stream_windows._sw_fail(macro_name, 'columns', 'a list holding the time column and the arrival order for an incremental build (' ~ time_column ~ ', ' ~ arrival_order ~ ')', passthrough) }}
  {%- endif -%}
  {%- set checked = stream_windows._sw_checked_time(macro_name, relation, entities, time_column, arrival_order) -%}
  {%- if microbatch is not none -%}
    {{ return(stream_windows._sw_fenl_microbatch(macro_name, relation, checked, entities, time_column, arrival_order, pipelines, spec, passthrough, time_zone, microbatch)) }}
  {%- endif -%}
  {%- if inc is not none -%}
    {{ return(stream_windows._sw_fenl_incremental(macro_name, relation, checked, entities, time_column, arrival_order, pipelines, spec, passthrough, inc, incremental, time_zone)) }}
  {%- endif -%}
  {%- if spec.fenl_window == 'cron' -%}
    {{ return(stream_windows._sw_fenl_cron(checked, entities, time_column, arrival_order, pipelines, spec.period, time_zone)) }}
  {%- else -%}
    {{ return(stream_windows._sw_fenl_per_row(checked, entities, time_column, arrival_order, pipelines, spec, passthrough)) }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_fenl_window(macro_name, window) %}
  {#- The window argument: none or 'cumulative', or what fenl_sliding / fenl_since return. -#}
  {%- if window is none or (window is string and window | lower == 'cumulative') -%}
    {{ return({'fenl_window': 'cumulative'}) }}
  {%- elif window is mapping and window.fenl_window in ('sliding', 'since', 'cron') -%}
    {{ return(window) }}
  {%- else -%}
    {{ stream_windows._sw_fail(macro_name, 'window', "'cumulative' (default), fenl_sliding(n, predicate), fenl_since(predicate) or fenl_since(period=...)", window) }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_fenl_parse_pipelines(macro_name, aggregates) %}
  {#- {output: 'f(column) | g() | ...'} -> [{'name', 'stages': [{'function', 'column'}, ...]}].
      The first stage is checked by the shared vocabulary; Fenl's `mean` is avg. -#}
  {%- set known = stream_windows._sw_window_function_names() -%}
  {%- if aggregates is not mapping or aggregates | length == 0 -%}
    {{ stream_windows._sw_fail(macro_name, 'aggregates', "a mapping of output column to 'function(column)', optionally followed by '| function()' stages, with function one of mean, " ~ (known | join(', ')), aggregates) }}
  {%- endif -%}
  {%- set pipelines = [] -%}
  {%- for name, spec in aggregates.items() -%}
    {%- set parts = spec.split('|') if spec is string else [spec] -%}
    {%- set first = modules.re.sub('(?i)^\\s*mean\\s*[(]', 'avg(', parts[0]) if parts[0] is string else parts[0] -%}
    {%- set stages = stream_windows._sw_parse_aggregates(macro_name, {name: first}) -%}
    {%- for part in parts[1:] -%}
      {%- set match = modules.re.match('^\\s*([A-Za-z_]+)\\s*[(]\\s*[)]\\s*$', part) -%}
      {%- set function = (match.group(1) | lower) if match else none -%}
      {%- set function = 'avg' if function == 'mean' else function -%}
      {%- if function not in known -%}
        {{ stream_windows._sw_fail(macro_name, "aggregates['" ~ name ~ "']", "a pipeline 'function(column) | function() ...' whose later stages are function() with function one of mean, " ~ (known | join(', ')), spec) }}
      {%- endif -%}
      {%- do stages.append({'name': name, 'function': function, 'column': none}) -%}
    {%- endfor -%}
    {%- do pipelines.append({'name': name, 'stages': stages}) -%}
  {%- endfor -%}
  {{ return(pipelines) }}
{% endmacro %}

{% macro _sw_fenl_stage_expr(agg, value, over) %}
  {#- A cumulative stage over an ordered window: FIRST is the first row's value and
      LAST the current row's, both NULL-keeping as the vocabulary's arrival order asks. -#}
  {%- if agg.function == 'first' -%}
    {{ return('first_value(' ~ value ~ ') over ' ~ over) }}
  {%- elif agg.function == 'last' -%}
    {{ return(value) }}
  {%- else -%}
    {{ return(stream_windows._sw_single_window_expr(agg, value, none, false) ~ ' over ' ~ over) }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_fenl_later_stages(pipelines, from_sql, order_by, entities, keep) %}
  {#- Repeated aggregation: stage k aggregates stage k-1's output sequence per entity,
      cumulatively, one nested SELECT per stage. Returns the SELECT of the last stage;
      each pipeline's result is in column _sw_<name>_<last stage>. -#}
  {%- set depth = pipelines | map(attribute='stages') | map('length') | max -%}
  {%- set sql = namespace(text=from_sql) -%}
  {%- set over = '(partition by ' ~ entities | join(', ') ~ ' order by ' ~ order_by ~ ' rows between unbounded preceding and current row)' -%}
  {%- for k in range(2, depth + 1) -%}
    {%- set exprs = [] -%}
    {%- for p in pipelines if p.stages | length >= k -%}
      {%- do exprs.append(stream_windows._sw_fenl_stage_expr(p.stages[k - 1], '_sw_' ~ p.name ~ '_' ~ (k - 1), over) ~ ' as _sw_' ~ p.name ~ '_' ~ k) -%}
    {%- endfor -%}
    {%- set sql.text = 'select _sw_stage_' ~ (k - 1) ~ '.*, ' ~ exprs | join(', ') ~ ' from (' ~ sql.text ~ ') as _sw_stage_' ~ (k - 1) -%}
  {%- endfor -%}
  {{ return(sql.text) }}
{% endmacro %}

{% macro _sw_fenl_outputs(pipelines, entities=none, arrival_order=none) %}
  {#- The pipelines' results as the output columns. With `entities` and `arrival_order`
      (per-row windows, whose rows hold _sw_repeated_arrival) the first one fails the
      query on a repeated arrival position: two rows of an entity at one time and
      position have no order between them. -#}
  {%- set outputs = [] -%}
  {%- for p in pipelines -%}
    {%- set expr = '_sw_' ~ p.name ~ '_' ~ (p.stages | length) -%}
    {%- if loop.first and arrival_order is not none -%}
      {%- set expr = stream_windows._sw_refuse_repeated_arrival('fenl_aggregate', '_sw_repeated_arrival', expr, entities, arrival_order) -%}
    {%- endif -%}
    {%- do outputs.append(expr ~ ' as ' ~ p.name) -%}
  {%- endfor -%}
  {{ return(outputs) }}
{% endmacro %}

{% macro _sw_fenl_internal_columns(pipelines, extra) %}
  {%- set internal = extra | list -%}
  {%- for p in pipelines -%}
    {%- for k in range(1, (p.stages | length) + 1) -%}{%- do internal.append('_sw_' ~ p.name ~ '_' ~ k) -%}{%- endfor -%}
  {%- endfor -%}
  {{ return(internal) }}
{% endmacro %}

{% macro _sw_fenl_first_stage(source, entities, time_column, arrival_order, pipelines, spec) %}
  {#- One output row per input row. The first stage:
      cumulative - ROWS UNBOUNDED PRECEDING per entity (Spark's running frame);
      since(p)   - the same, per entity and window number, where a row's window number
                   counts the rows with p true strictly before it (so the row with p
                   true still closes the old window);
      sliding    - ROWS n-1 PRECEDING over the entity's rows with p true (ordered
                   first), NULL until n such rows exist; each row with p false then
                   carries the latest such row's results forward. -#}
  {%- set order_by = time_column ~ ', ' ~ arrival_order -%}
  {%- set partition = 'partition by ' ~ entities | join(', ') -%}
  {%- set running = partition ~ ' order by ' ~ order_by ~ ' rows between unbounded preceding and current row' -%}
  {%- set kind = spec.fenl_window -%}
  {%- set helpers = [] -%}
  {%- set first = [] -%}
  {#- _sw_repeated_arrival, true on a row whose arrival position the row before it in
      its entity holds too, is computed beside a window of the same ordering (time,
      arrival), so it adds no sort; the outputs refuse it (_sw_fenl_outputs). -#}
  {%- set repeated = stream_windows._sw_repeated_arrival(arrival_order, entities, order_by) ~ ' as _sw_repeated_arrival' -%}
  {%- do helpers.append('_sw_repeated_arrival') -%}
  {%- if kind == 'cumulative' -%}
    {%- set prepared = 'select * from ' ~ source ~ ' as _sw_input' -%}
    {%- set over = '(' ~ running ~ ')' -%}
    {%- do first.append(repeated) -%}
    {%- for p in pipelines -%}
      {%- set agg = p.stages[0] -%}
      {%- do first.append(stream_windows._sw_fenl_stage_expr(agg, '1' if agg.column == '*' else agg.column, over) ~ ' as _sw_' ~ p.name ~ '_1') -%}
    {%- endfor -%}
    {%- set staged = 'select _sw_prepared.*, ' ~ first | join(', ') ~ ' from (' ~ prepared ~ ') as _sw_prepared' -%}
  {%- elif kind == 'since' -%}
    {%- do helpers.extend(['_sw_is_closing', '_sw_since_window']) -%}
    {%- set prepared = 'select *, coalesce(count(case when _sw_is_closing then 1 end) over (' ~ partition ~ ' order by ' ~ order_by
        ~ ' rows between unbounded preceding and 1 preceding), 0) as _sw_since_window, ' ~ repeated ~ ' from (select *, coalesce(' ~ spec.predicate
        ~ ', false) as _sw_is_closing from ' ~ source ~ ' as _sw_input) as _sw_flagged' -%}
    {%- set over = '(' ~ partition ~ ', _sw_since_window order by ' ~ order_by ~ ' rows between unbounded preceding and current row)' -%}
    {%- for p in pipelines -%}
      {%- set agg = p.stages[0] -%}
      {%- do first.append(stream_windows._sw_fenl_stage_expr(agg, '1' if agg.column == '*' else agg.column, over) ~ ' as _sw_' ~ p.name ~ '_1') -%}
    {%- endfor -%}
    {%- set staged = 'select _sw_prepared.*, ' ~ first | join(', ') ~ ' from (' ~ prepared ~ ') as _sw_prepared' -%}
  {%- else -%}
    {%- do helpers.extend(['_sw_is_counted', '_sw_counted_rank', '_sw_counted_cell']) -%}
    {#- Ordering each entity's counted rows first (then by time and arrival) makes the
        plain ROWS frame n-1 PRECEDING of a counted row hold exactly the n most recent
        counted rows; the other rows' frames are never read. Both windows share the
        entity partitioning, so Spark shuffles once and only re-sorts in place. -#}
    {%- set counted_first = partition ~ ' order by _sw_is_counted desc, ' ~ order_by -%}
    {%- set over = '(' ~ counted_first ~ ' rows between ' ~ (spec.n - 1) ~ ' preceding and current row)' -%}
    {%- set raw = ['row_number() over (' ~ counted_first ~ ') as _sw_counted_rank'] -%}
    {%- set cell_fields = [] -%}
    {%- for p in pipelines -%}
      {%- set agg = p.stages[0] -%}
      {%- if agg.function == 'first' -%}
        {%- set expr = 'first_value(' ~ agg.column ~ ') over ' ~ over -%}
      {%- elif agg.function == 'last' -%}
        {%- set expr = agg.column -%}
      {%- else -%}
        {%- set expr = stream_windows._sw_single_window_expr(agg, '1' if agg.column == '*' else agg.column, none, false) ~ ' over ' ~ over -%}
      {%- endif -%}
      {%- do raw.append(expr ~ ' as _sw_' ~ p.name ~ '_raw') -%}
      {%- do cell_fields.append("'" ~ p.name ~ "', case when _sw_counted_rank >= " ~ spec.n ~ ' then _sw_' ~ p.name ~ '_raw end') -%}
      {%- do first.append('_sw_counted_cell.' ~ p.name ~ ' as _sw_' ~ p.name ~ '_1') -%}
      {%- do helpers.append('_sw_' ~ p.name ~ '_raw') -%}
    {%- endfor -%}
    {#- A row whose predicate is false repeats the latest counted row's results: the
        results travel as one struct, which is non-NULL even when its fields are NULL,
        so `ignore nulls` skips exactly the rows that are not counted. -#}
    {%- set prepared = 'select *, coalesce(' ~ spec.predicate ~ ', false) as _sw_is_counted from ' ~ source ~ ' as _sw_input' -%}
    {%- set windowed = 'select _sw_prepared.*, ' ~ raw | join(', ') ~ ' from (' ~ prepared ~ ') as _sw_prepared' -%}
    {%- set carried = 'select _sw_windowed.*, last_value(case when _sw_is_counted then named_struct(' ~ cell_fields | join(', ')
        ~ ') end, true) over (' ~ running ~ ') as _sw_counted_cell, ' ~ repeated ~ ' from (' ~ windowed ~ ') as _sw_windowed' -%}
    {%- set staged = 'select _sw_carried.*, ' ~ first | join(', ') ~ ' from (' ~ carried ~ ') as _sw_carried' -%}
  {%- endif -%}
  {{ return({'sql': staged, 'helpers': helpers}) }}
{% endmacro %}

{% macro _sw_fenl_per_row(source, entities, time_column, arrival_order, pipelines, spec, passthrough) %}
  {%- set first = stream_windows._sw_fenl_first_stage(source, entities, time_column, arrival_order, pipelines, spec) -%}
  {%- set internal = stream_windows._sw_fenl_internal_columns(pipelines, first.helpers) -%}
select
    {{ (passthrough | join(', ')) if passthrough else '* except (' ~ internal | join(', ') ~ ')' }},
    {{ stream_windows._sw_fenl_outputs(pipelines, entities, arrival_order) | join(',\n    ') }}
from ({{ stream_windows._sw_fenl_later_stages(pipelines, first.sql, time_column ~ ', ' ~ arrival_order, entities, none) }}) as _sw_result
{% endmacro %}

{% macro _sw_fenl_period_sql(period, time_zone) %}
  {#- How a cron period is keyed (`key`, in terms of the event's time _sw_time), how
      the span of keys is stepped through (`step`), and the UTC instants where the
      period with key _sw_period starts and ends.
      Days and months are the zone's wall-clock ones (from_utc_timestamp, with the
      session in UTC as the project's profiles set it): a day is 23 or 25 hours long
      across a DST change. Hours are the instants whose local minute and second are
      zero (a wall-clock hour repeats when clocks go back). Hours and days are keyed
      by integer arithmetic on microseconds, cheaper than date_trunc's calendar;
      months and years by date_trunc.
      `grid` (none unless hours in a zone other than UTC) is a condition on a key
      _sw_p that the keys stepped through must meet: there an hour starts at a UTC
      quarter hour (every zone's offset is a whole number of quarter hours) whose local
      minute is zero, so the keys step by quarter hours and keep those. An hour then
      lasts from one such instant to the next: 30, 60 or 90 minutes where an offset
      moves by half an hour (Australia/Lord_Howe's DST, America/Caracas on 2016-05-01),
      and no period overlaps another. -#}
  {%- set ts = 'cast(_sw_time as timestamp)' -%}
  {%- set utc_us = 'unix_micros(' ~ ts ~ ')' -%}
  {%- set local_us = utc_us if time_zone == 'UTC' else 'unix_micros(from_utc_timestamp(' ~ ts ~ ", '" ~ time_zone ~ "'))" -%}
  {%- if period == 'hourly' and time_zone != 'UTC' -%}
    {%- set quarter = 900000000 -%}
    {%- set on_the_hour = "minute(from_utc_timestamp(timestamp_micros(%s), '" ~ time_zone ~ "')) = 0" -%}
    {#- The latest hour start at or before the event: its quarter hour or one of the
        seven before (an hour is at most 2 hours long here); the next after a start:
        one of the eight quarter hours after it. -#}
    {%- set back = [] -%}
    {%- for j in range(8) -%}
      {%- set candidate = '(' ~ utc_us ~ ' - pmod(' ~ utc_us ~ ', ' ~ quarter ~ ') - ' ~ (j * quarter) ~ ')' -%}
      {%- do back.append('case when ' ~ (on_the_hour | format(candidate)) ~ ' then ' ~ candidate ~ ' end') -%}
    {%- endfor -%}
    {%- set ahead = [] -%}
    {%- for j in range(1, 9) -%}
      {%- set candidate = '(_sw_period + ' ~ (j * quarter) ~ ')' -%}
      {%- do ahead.append('case when ' ~ (on_the_hour | format(candidate)) ~ ' then ' ~ candidate ~ ' end') -%}
    {%- endfor -%}
    {{ return({'key': 'coalesce(' ~ back | join(', ') ~ ')', 'step': quarter, 'grid': on_the_hour | format('_sw_p'),
               'start': 'timestamp_micros(_sw_period)', 'end': 'timestamp_micros(coalesce(' ~ ahead | join(', ') ~ '))'}) }}
  {%- endif -%}
  {%- if period in ('hourly', 'daily') -%}
    {%- set unit_us = 3600000000 if period == 'hourly' else 86400000000 -%}
    {%- if period == 'hourly' or time_zone == 'UTC' -%}
      {#- The key is the period's start instant in microseconds. -#}
      {{ return({'key': '(' ~ utc_us ~ ' - pmod(' ~ local_us ~ ', ' ~ unit_us ~ '))', 'grid': none, 'step': unit_us,
                 'start': 'timestamp_micros(_sw_period)', 'end': 'timestamp_micros(_sw_period + ' ~ unit_us ~ ')'}) }}
    {%- else -%}
      {#- The key is the local midnight's wall-clock microseconds. -#}
      {{ return({'key': '(' ~ local_us ~ ' - pmod(' ~ local_us ~ ', ' ~ unit_us ~ '))', 'grid': none, 'step': unit_us,
                 'start': "to_utc_timestamp(timestamp_micros(_sw_period), '" ~ time_zone ~ "')",
                 'end': "to_utc_timestamp(timestamp_micros(_sw_period + " ~ unit_us ~ "), '" ~ time_zone ~ "')"}) }}
    {%- endif -%}
  {%- endif -%}
  {%- set unit = {'monthly': 'month', 'yearly': 'year'}[period] -%}
  {%- set step = 'interval 1 ' ~ unit -%}
  {%- if time_zone == 'UTC' -%}
    {{ return({'key': "date_trunc('" ~ unit ~ "', " ~ ts ~ ")", 'grid': none, 'step': step,
               'start': '_sw_period', 'end': '_sw_period + ' ~ step}) }}
  {%- else -%}
    {{ return({'key': "date_trunc('" ~ unit ~ "', from_utc_timestamp(" ~ ts ~ ", '" ~ time_zone ~ "'))", 'grid': none, 'step': step,
               'start': "to_utc_timestamp(_sw_period, '" ~ time_zone ~ "')",
               'end': "to_utc_timestamp(_sw_period + " ~ step ~ ", '" ~ time_zone ~ "')"}) }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_fenl_period_keys(bounds, first, last) %}
  {#- The array of the period keys from `first` to `last` (SQL expressions). -#}
  {%- set keys = 'sequence(' ~ first ~ ', ' ~ last ~ ', ' ~ bounds.step ~ ')' -%}
  {{ return(('filter(' ~ keys ~ ', _sw_p -> ' ~ bounds.grid ~ ')') if bounds.grid else keys) }}
{% endmacro %}

{% macro _sw_fenl_cron_cells(pipelines, time_column, arrival_order) %}
  {#- [{'column', 'expr': the aggregate over one entity's period, 'empty': its value
      over an empty period}] of a cron window's (single-stage) pipelines. -#}
  {%- set order_key = 'struct(' ~ time_column ~ (', ' ~ arrival_order if arrival_order else '') ~ ')' -%}
  {%- set cells = [] -%}
  {%- for p in pipelines -%}
    {%- set agg = p.stages[0] -%}
    {%- if agg.function == 'first' -%}
      {%- set expr = 'min_by(' ~ agg.column ~ ', ' ~ order_key ~ ')' -%}
    {%- elif agg.function == 'last' -%}
      {%- set expr = 'max_by(' ~ agg.column ~ ', ' ~ order_key ~ ')' -%}
    {%- else -%}
      {%- set expr = stream_windows._sw_single_window_expr(agg, '1' if agg.column == '*' else agg.column, none, false) -%}
    {%- endif -%}
    {%- set empty = '0' if agg.function in ('sum', 'count') else 'null' -%}
    {#- A period whose rows are all NULL in the column gives the empty value too, as
        a period without rows does (SUM over no value is NULL in SQL, 0 here). -#}
    {%- if agg.function == 'sum' -%}{%- set expr = 'coalesce(' ~ expr ~ ', 0)' -%}{%- endif -%}
    {%- do cells.append({'column': '_sw_' ~ p.name ~ '_1', 'expr': expr, 'empty': empty}) -%}
  {%- endfor -%}
  {{ return(cells) }}
{% endmacro %}

{% macro _sw_fenl_cron(source, entities, time_column, arrival_order, pipelines, period, time_zone) %}
  {#- One row per entity and period, for every period from the one holding the oldest
      event to the one holding the newest (those that begin at or before the newest
      event and end after the oldest), empty ones included. The events are grouped per
      entity and period once; each entity's filled periods are then gathered (one row
      per entity), and the periods of the span an entity lacks are added as empty cells.
      (A grid of entities x periods joined back to the grouped rows makes Spark scan
      and group the input two or three times: it pushes the span's min/max and the
      distinct entities down to the scan.) -#}
  {%- set bounds = stream_windows._sw_fenl_period_sql(period, time_zone) -%}
  {%- set entity_sql = entities | join(', ') -%}
  {%- set per_period = [] -%}
  {%- set filled_fields = ["'_sw_period', _sw_period"] -%}
  {%- set empty_fields = ["'_sw_period', _sw_empty"] -%}
  {%- for cell in stream_windows._sw_fenl_cron_cells(pipelines, time_column, arrival_order) -%}
    {%- do per_period.append(cell.expr ~ ' as ' ~ cell.column) -%}
    {%- do filled_fields.append("'" ~ cell.column ~ "', " ~ cell.column) -%}
    {%- do empty_fields.append("'" ~ cell.column ~ "', " ~ cell.empty) -%}
  {%- endfor -%}
  {#- A cell is one flat struct (period, then the aggregates), filled or empty, so the
      inline below yields the output columns as they are (a nested cell struct with a
      NULL for an empty period, unpacked by CASE per column, cost 4-10% more of the
      whole query on the bench). Spark widens the empty cells' constants (0, NULL) to the
      aggregates' types, as a CASE would. -#}
  {%- set grid -%}
select
    {{ entity_sql }},
    inline(concat(
        _sw_filled,
        transform(
            array_except({{ stream_windows._sw_fenl_period_keys(bounds, '_sw_first_period', '_sw_last_period') }}, transform(_sw_filled, _sw_filled_cell -> _sw_filled_cell._sw_period)),
            _sw_empty -> named_struct({{ empty_fields | join(', ') }})
        )
    ))
from (
    {#- The span is a scalar subquery over the gathered cells themselves: Spark
        reuses their shuffles, so it costs one pass over the (entity, period) cells,
        not a second scan of the input (a period key never decreases as time grows,
        so the oldest and newest events' periods are the smallest and largest keys;
        NULL times fail the main query). It reads the gathered arrays on purpose: a
        min/max of the key over _sw_by_period is rewritten into a scan of the raw
        input, and a window over () would move every entity's cells into one task. #}
    select *, _sw_span._sw_first_period, _sw_span._sw_last_period
    from (
        select *, (
            select named_struct(
                '_sw_first_period', min(array_min(transform(_sw_spanned_filled, _sw_c -> _sw_c._sw_period))),
                '_sw_last_period', max(array_max(transform(_sw_spanned_filled, _sw_c -> _sw_c._sw_period)))
            )
            from (select _sw_filled as _sw_spanned_filled from _sw_by_entity) as _sw_all_entities
        ) as _sw_span
        from _sw_by_entity
    ) as _sw_with_span
) as _sw_spanned
  {%- endset -%}
with _sw_events as (
    select *, {{ bounds.key }} as _sw_period
    from (select *, {{ time_column }} as _sw_time from {{ source }} as _sw_input) as _sw_timed
),

_sw_by_period as (
    select {{ entity_sql }}, _sw_period, {{ per_period | join(', ') }}
    from _sw_events
    group by {{ entity_sql }}, _sw_period
),

_sw_by_entity as (
    select
        {{ entity_sql }},
        collect_list(named_struct({{ filled_fields | join(', ') }})) as _sw_filled
    from _sw_by_period
    group by {{ entity_sql }}
)

select
    {{ entity_sql }},
    {{ bounds.start }} as period_start,
    {{ bounds.end }} as period_end,
    {{ stream_windows._sw_fenl_outputs(pipelines) | join(',\n    ') }}
from ({{ stream_windows._sw_fenl_later_stages(pipelines, grid, '_sw_period', entities, none) }}) as _sw_result
{% endmacro %}
