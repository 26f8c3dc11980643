{% macro count_window_aggregate(relation, time_column, n, aggregates, group_by=none, arrival_order=none, tick=none, incremental=none) %}
  {{- stream_windows._sw_check_call('count_window_aggregate', ['relation', 'time_column', 'n', 'aggregates', 'group_by', 'arrival_order', 'tick', 'incremental'], varargs, kwargs) -}}
  {{ return(adapter.dispatch('count_window_aggregate', 'stream_windows')(stream_windows._sw_unfiltered(relation), time_column, n, aggregates, group_by, arrival_order, tick, incremental)) }}
{% endmacro %}

{#- Any adapter but Spark's: the SQL this package writes is Spark SQL. -#}
{% macro default__count_window_aggregate(relation, time_column, n, aggregates, group_by, arrival_order, tick, incremental) %}
  {{ return(stream_windows._sw_unsupported_adapter('count_window_aggregate')) }}
{% endmacro %}

{#- StreamInsight's count window over N distinct start times (docs/semantics.md,
    StreamInsight section), with built-in aggregates, as one Spark SQL SELECT. Per
    group, with distinct start times t1 < ... < tD, window k (k = 1..D-N+1) spans
    [t_k, t_{k+N-1} + 1 tick) and holds every event whose start lies in
    [t_k, t_{k+N-1}] (more than N events when start times repeat). One point row per
    window at t_{k+N-1}; the group's last window is provisional (is_final = false): a
    later event with its last start time would join it.

    Plan: every event gets the dense rank r of its start time in its group; the window
    opening at rank r is the native frame RANGE BETWEEN CURRENT ROW AND N-1 FOLLOWING
    over r, so any aggregate of the vocabulary runs as Spark computes it; one row per
    rank is kept. The same window ordering checks arrival order: start times arrive out
    of order exactly when, for some start time s, an event with an earlier start time
    arrived after the first event with start time s.

    When every aggregate merges from parts (count, min, max, first, last, rate,
    completeness; sum and avg over a ref()/source() column of a non-decimal numeric
    type: _sw_frame_mergeable), a cheaper plan gives the same rows: the events are
    first aggregated per group and start time (their count, the aggregates' parts and
    the arrival range), and the window opening at a start time is the frame ROWS
    BETWEEN CURRENT ROW AND N-1 FOLLOWING over those start rows. With repeated start
    times this windows far fewer rows than there are events.

    incremental={'partition': 'day' | 'month' | a number, 'late_rows': ...} builds it in scheduled
    runs (macros/incremental/_sw_incremental.sql), partitioned by point_at. A run
    recomputes from the partition of the latest start time it has seen, or of an
    earlier last start time of a group that gets new events (its provisional window
    becomes final); each group's N-1 start times before that are read as context.

    Under dbt's microbatch (event_time='point_at') a batch writes the windows whose
    point_at lies in it, and rewrites the batch holding the provisional last window of
    each group that has start times in this batch. -#}
{% macro spark__count_window_aggregate(relation, time_column, n, aggregates, group_by, arrival_order, tick, incremental) %}
  {%- set macro_name = 'count_window_aggregate' -%}
  {%- if not execute -%}{{ return(stream_windows._sw_parse_only(incremental, time_column)) }}{%- endif -%}
  {%- set microbatch = stream_windows._sw_microbatch(macro_name, incremental) -%}
  {#- The reach both modes plan from: counted back, and a group's last window reopens. -#}
  {%- set reach = stream_windows._sw_reach(none, reopen=true) -%}
  {%- if relation is none -%}{{ stream_windows._sw_fail(macro_name, 'relation', 'a relation (ref, source or CTE name)', relation) }}{%- endif -%}
  {%- if time_column is not string or not time_column -%}{{ stream_windows._sw_fail(macro_name, 'time_column', 'a column name', time_column) }}{%- endif -%}
  {%- if not stream_windows._sw_is_number(n) or n != (n | int) or n < 1 -%}
    {{ stream_windows._sw_fail(macro_name, 'n', 'a whole number of distinct start times >= 1', n) }}
  {%- endif -%}
  {%- set n = n | int -%}
  {%- set groups = stream_windows._sw_as_list(macro_name, 'group_by', group_by) -%}
  {%- if arrival_order is not none and (arrival_order is not string or not arrival_order) -%}
    {{ stream_windows._sw_fail(macro_name, 'arrival_order', 'a column name', arrival_order) }}
  {%- endif -%}
  {#- A count window's duration is its own (window_end - window_start): rate() is
      computed per window below. -#}
  {%- set aggs = stream_windows._sw_parse_aggregates(macro_name, aggregates, {'relation': relation, 'duration': 'per window'}) -%}
  {%- for agg in aggs if agg.function in ('first', 'last') and arrival_order is none -%}
    {{ stream_windows._sw_fail(macro_name, 'arrival_order', "a column giving arrival order for " ~ agg.function ~ "()", arrival_order) }}
  {%- endfor -%}
  {%- set reserved = ['point_at', 'window_start', 'window_end', 'event_count', 'is_final'] + groups -%}
  {%- for agg in aggs if agg.name in reserved -%}
    {{ stream_windows._sw_fail(macro_name, "aggregates['" ~ agg.name ~ "']", "named apart from the output's own columns (" ~ reserved | join(', ') ~ ")", agg.name) }}
  {%- endfor -%}
  {%- set wanted = [('time_column', time_column)] -%}
  {%- for column in groups -%}{%- do wanted.append(('group_by', column)) -%}{%- endfor -%}
  {%- if arrival_order -%}{%- do wanted.append(('arrival_order', arrival_order)) -%}{%- endif -%}
  {%- for agg in aggs if agg.column != '*' -%}{%- do wanted.append(("aggregates['" ~ agg.name ~ "']", agg.column)) -%}{%- endfor -%}
  {%- set spec = stream_windows._sw_incremental_spec(macro_name, incremental, time_column, none) -%}
  {%- if spec is not none and arrival_order is none -%}
    {{ stream_windows._sw_fail(macro_name, 'arrival_order', "a column giving arrival order for an incremental build (it tells new rows from processed ones)", arrival_order) }}
  {%- endif -%}
  {#- Read once (one `describe` of a ref()/source(); none for a CTE name): the column
      check, the tick and the per-start plan all need them. -#}
  {%- set types = stream_windows._sw_column_types(relation) -%}
  {{- stream_windows._sw_check_columns_exist(macro_name, relation, wanted, types=types) -}}
  {%- set tick_sql = stream_windows._sw_count_window_tick(macro_name, types, time_column, tick) -%}
  {%- set unmergeable = [] -%}
  {%- for agg in aggs if not stream_windows._sw_frame_mergeable(agg, types) -%}{%- do unmergeable.append(agg.name) -%}{%- endfor -%}
  {%- set per_start = not unmergeable -%}
  {%- set planned = stream_windows._sw_incremental_plan(macro_name, spec, relation, arrival_order, groups, reach, 'input') if spec is not none else none -%}
  {%- set plan = planned if planned is not none and not planned.full and not planned.nothing_new else none -%}
  {%- set newest_first = 'dense_rank() over (' ~ ('partition by ' ~ groups | join(', ') ~ ' ' if groups else '') ~ 'order by ' ~ time_column ~ ' desc)' -%}
  {%- if plan is not none -%}
    {%- set relation = stream_windows._sw_counted_context(relation, plan, spec, groups, n - 1, 'times', newest_first) -%}
  {%- endif -%}
  {%- set batch_rows = none -%}
  {%- if microbatch is not none -%}
    {%- if microbatch.event_time | lower != 'point_at' or tick_sql is not string -%}
      {{ stream_windows._sw_compile_error(macro_name ~ "() in model " ~ model.name ~ " (incremental_strategy='microbatch'): configure event_time='point_at' (a window's row is placed at its last start time) over a timestamp time column (dbt's batches are spans of time); got event_time="
          ~ microbatch.event_time ~ ", time column " ~ time_column ~ (" of an integer type" if tick_sql is not string else "") ~ ".") }}
    {%- endif -%}
    {%- if microbatch.start is not none -%}
      {#- This batch's windows, and the provisional last window (before the batch) of
          each group with start times in it, which becomes final now: read from each
          group's N-1 start times before them, to the group's first start time after
          the batch (which tells whether its last window there is final). -#}
      {%- set key = stream_windows._sw_batch_key(time_column) -%}
      {%- set rewrite_from = stream_windows._sw_batch_plan(microbatch, reach, relation, key, groups).rewrite_from -%}
      {%- set relation = stream_windows._sw_batch_counted_input(microbatch, relation, key, groups, rewrite_from, n - 1, newest_first) -%}
      {#- A plain condition (no NULL check): point_at is NULL where no window opens,
          and those rows are left out by design. -#}
      {%- set point_key = stream_windows._sw_batch_key('point_at') -%}
      {%- set batch_rows = point_key ~ ' >= ' ~ rewrite_from ~ ' and ' ~ point_key ~ ' < ' ~ microbatch.end -%}
    {%- endif -%}
  {%- endif -%}

  {%- set model_name = stream_windows._sw_model_name() -%}
  {%- set group_text = stream_windows._sw_group_sql(groups) -%}
  {%- set where = "concat_ws(', ', " ~ group_text | join(', ') ~ ")" if groups else "'the whole input'" -%}
  {%- set partition = ('partition by ' ~ groups | join(', ') ~ ' ') if groups else '' -%}
  {#- The event plan windows the events ordered by the rank of their start time, the
      per-start plan one row per start time. -#}
  {%- set start = '_sw_start' if per_start else time_column -%}
  {%- set ordered = partition ~ ('order by _sw_start' if per_start else 'order by _sw_rank') -%}
  {%- set outputs = [] -%}
  {#- A window's duration, window_end - window_start: in seconds for a timestamp time
      column, in its unit for an integer one. -#}
  {%- set window_end = ('lead(_sw_start, ' ~ (n - 1) ~ ') over (' ~ ordered ~ ')' if per_start else 'max(' ~ start ~ ') over _sw_window') ~ ' + ' ~ tick_sql -%}
  {%- set duration = ('((unix_micros(' ~ window_end ~ ') - unix_micros(' ~ start ~ ')) / 1000000D)') if tick_sql is string
      else ('cast(' ~ window_end ~ ' - ' ~ start ~ ' as double)') -%}
  {%- set part_columns = [] -%}
  {%- for agg in aggs -%}
    {%- if per_start -%}
      {%- set parts = {} -%}
      {%- for part_name, part_sql in stream_windows._sw_window_parts(agg, stream_windows._sw_input_expr(agg, none), arrival_order) -%}
        {%- do part_columns.append(part_sql ~ ' as _sw_' ~ agg.name ~ '__' ~ part_name) -%}
        {%- do parts.update({part_name: '_sw_' ~ agg.name ~ '__' ~ part_name}) -%}
      {%- endfor -%}
      {%- do outputs.append(stream_windows._sw_merge_parts_over_frame(agg, parts, '_sw_window', duration if agg.function == 'rate' else none) ~ ' as ' ~ agg.name) -%}
    {%- elif agg.function == 'rate' -%}
      {%- do outputs.append('cast(count(' ~ stream_windows._sw_input_expr(agg, none) ~ ') over _sw_window as double) / ' ~ duration ~ ' as ' ~ agg.name) -%}
    {%- else -%}
      {%- do outputs.append(stream_windows._sw_window_expr(agg, stream_windows._sw_input_expr(agg, none), arrival_order, false, '_sw_window') ~ ' as ' ~ agg.name) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set null_message = "concat('" ~ macro_name ~ "() in model " ~ model_name ~ ": `time_column` " ~ time_column ~ " is NULL in ', " ~ where
      ~ (", ', arrival position ', coalesce(cast(" ~ arrival_order ~ " as string), 'NULL')" if arrival_order else '') ~ ")" -%}
  {%- set checked_input -%}
        from {{ relation }}
        where case when {{ time_column }} is null then raise_error({{ null_message }}) else true end
  {%- endset -%}
{%- if planned is not none %}
{{ stream_windows._sw_plan_comment(planned) }}
{{ stream_windows._sw_nothing_new_open(planned) }}
{%- endif %}
select
    {{ (groups | join(', ') ~ ',') if groups }}
    point_at,
    window_start,
    point_at + {{ tick_sql }} as window_end,
    event_count,
    is_final,
    {{ aggs | map(attribute='name') | join(',\n    ') }}
    {%- if spec is not none %},
    {{ stream_windows._sw_incremental_partition_column(spec, 'point_at') }}
    {%- endif %}
    {%- if microbatch is not none %},
    {{ stream_windows._sw_batch_partition_column(microbatch) }}
    {%- endif %}
from (
    {%- if per_start %}
    {#- One row per group and start time: the window opening there covers this row
        and the next N-1. #}
    select
        {{ (groups | join(', ') ~ ',') if groups }}
        _sw_start as window_start,
        {#- NULL where fewer than N start times follow: no window opens here. #}
        lead(_sw_start, {{ n - 1 }}) over ({{ ordered }}) as point_at,
        lead(_sw_start, {{ n }}) over ({{ ordered }}) is not null as is_final,
        coalesce(sum(_sw_events) over _sw_window, 0) as event_count,
        {%- if arrival_order %}
        _sw_first_arrival,
        {#- The latest arrival before this start time, and its start time (the greater
            one on a tie, as the event plan's struct maximum). #}
        max(named_struct('{{ arrival_order }}', _sw_last_arrival, '{{ time_column }}', _sw_start))
            over ({{ ordered }} rows between unbounded preceding and 1 preceding) as _sw_latest_earlier,
        {%- endif %}
        {{ outputs | join(',\n        ') }}
    from (
        select
            {{ (groups | join(', ') ~ ',') if groups }}
            {{ time_column }} as _sw_start,
            count(*) as _sw_events,
            {%- if arrival_order %}
            min({{ arrival_order }}) as _sw_first_arrival,
            {#- Not max(struct(...)): a struct buffer would make Spark sort the events to
                aggregate them. #}
            max({{ arrival_order }}) as _sw_last_arrival,
            {%- endif %}
            {{ part_columns | join(',\n            ') }}
        {%- if groups %}
        {#- Laid out by group first: the aggregation and the window then share one
            exchange (measured faster than aggregating before a second one). #}
        from (select * {{ checked_input }} distribute by {{ groups | join(', ') }}) as _sw_events
        {%- else %}
        {{ checked_input }}
        {%- endif %}
        group by {{ (groups | join(', ') ~ ',') if groups }} {{ time_column }}
    ) as _sw_starts
    window _sw_window as ({{ ordered }} rows between current row and {{ n - 1 }} following)
    {%- else %}
    select
        *,
        {{ time_column }} as window_start,
        max({{ time_column }}) over _sw_window as point_at,
        (max(_sw_rank) over _sw_window) - _sw_rank + 1 as _sw_start_times,
        coalesce(max(_sw_rank) over ({{ ordered }} rows between unbounded preceding and unbounded following) - _sw_rank + 1 > {{ n }}, false) as is_final,
        count(*) over _sw_window as event_count,
        lag(_sw_rank) over ({{ ordered }}) as _sw_previous_rank,
        {%- if arrival_order %}
        min({{ arrival_order }}) over ({{ ordered }} range between current row and current row) as _sw_first_arrival,
        max(struct({{ arrival_order }}, {{ time_column }})) over ({{ ordered }} range between unbounded preceding and 1 preceding) as _sw_latest_earlier,
        {%- endif %}
        {{ outputs | join(',\n        ') }}
    from (
        select
            *,
            dense_rank() over ({{ partition }}order by {{ time_column }}) as _sw_rank
        {{ checked_input }}
    ) as _sw_ranked
    window _sw_window as ({{ ordered }} range between current row and {{ n - 1 }} following)
    {%- endif %}
) as _sw_windows
where
    {%- if arrival_order %}
    {#- First, so that every start time is checked, not only those that open a window. #}
    case
        when _sw_latest_earlier.{{ arrival_order }} > _sw_first_arrival then raise_error(concat(
            '{{ macro_name }}() in model {{ model_name }}: OutOfOrder in ', {{ where }}, ': start time ',
            cast(_sw_latest_earlier.{{ time_column }} as string), ' at arrival position ',
            cast(_sw_latest_earlier.{{ arrival_order }} as string), ' arrived after start time ',
            cast(window_start as string), ' at arrival position ', cast(_sw_first_arrival as string), '.'
        ))
        else true
    end and
    {%- endif %}
    {%- if per_start %}
    point_at is not null
    {%- else %}
    {#- One row per start time (its first event) that opens a window. #}
    (_sw_previous_rank is null or _sw_previous_rank != _sw_rank) and _sw_start_times = {{ n }}
    {%- endif %}
    {%- if plan is not none %}
    and {{ ('unix_micros(cast(point_at as timestamp))' if spec.kind == 'interval' else 'point_at') }} >= {{ plan.from_key }}
    {%- endif %}
    {%- if batch_rows is not none %}
    and {{ batch_rows }}
    {%- endif %}
{{ stream_windows._sw_nothing_new_close(planned) }}
{% endmacro %}

{% macro _sw_count_window_tick(macro_name, types, time_column, tick) %}
  {#- One tick of the time type: 1 microsecond for timestamps, 1 for integers. Read from
      the column's type with a ref()/source() input (`types`: _sw_column_types, none
      otherwise), else from `tick` (a number for an integer time; none means a
      timestamp). -#}
  {%- if tick is not none -%}
    {%- if not stream_windows._sw_is_number(tick) or tick != (tick | int) or tick < 1 -%}
      {{ stream_windows._sw_fail(macro_name, 'tick', 'a whole number >= 1 for an integer time column (a timestamp tick is 1 microsecond)', tick) }}
    {%- endif -%}
    {{ return(tick | int) }}
  {%- endif -%}
  {%- if types is not none and (time_column | lower) in types -%}
    {%- set kind = types[time_column | lower] | lower -%}
    {%- if stream_windows._sw_is_integer_type(kind) -%}
      {{ return(1) }}
    {%- elif not kind.startswith('timestamp') -%}
      {{ stream_windows._sw_fail(macro_name, 'time_column', 'an integer or timestamp column (a count window needs a tick)', time_column ~ ' ' ~ kind) }}
    {%- endif -%}
  {%- endif -%}
  {{ return('interval 1 microsecond') }}
{% endmacro %}
