{#- fenl_aggregate under dbt's microbatch (macros/incremental/_sw_microbatch.sql).

    Per-row windows (cumulative, fenl_sliding, fenl_since(predicate)), event_time the
    time column: a row's output holds its entity's rows up to it in time then arrival
    order, so it is final when emitted, and reaches back to the entity's first row. A
    batch reads every row before its end and writes its own rows.

    Cron windows (fenl_since(period=...)), event_time period_start: a batch writes the
    periods that start in it, computed over the whole input (a period's later stages
    reach back over the entity's earlier periods, and the periods reported span the
    whole input's oldest to newest event, for every entity). It also rewrites what its
    rows change in earlier batches: the period open across its start, the periods after
    the last event before it (now inside the reported span, empty for every entity),
    and, when an entity has its first event in the batch, every period back to the
    oldest (that entity's empty periods are reported too). -#}

{% macro _sw_fenl_microbatch(macro_name, relation, checked, entities, time_column, arrival_order, pipelines, spec, passthrough, time_zone, microbatch) %}
  {%- set cron = spec.fenl_window == 'cron' -%}
  {%- set event_time = 'period_start' if cron else time_column -%}
  {%- if microbatch.event_time | lower != event_time | lower -%}
    {%- set why = "a cron window's row is placed at the start of its period" if cron else "a per-row window's row is placed at its time column" -%}
    {{ stream_windows._sw_compile_error(macro_name ~ "() in model " ~ model.name ~ " (incremental_strategy='microbatch'): configure event_time='"
        ~ event_time ~ "' (" ~ why ~ "); got event_time=" ~ microbatch.event_time ~ ".") }}
  {%- endif -%}
  {%- if passthrough -%}{{ stream_windows._sw_batch_output(macro_name, microbatch, passthrough) }}{%- endif -%}
  {%- set key = stream_windows._sw_batch_key(time_column) -%}
  {%- set rows = none -%}
  {%- if cron -%}
    {%- if microbatch.start is not none -%}
      {%- set rewrite_from = stream_windows._sw_fenl_cron_rewrite_from(microbatch, relation, entities, key, spec.period, time_zone) -%}
      {%- set rows = stream_windows._sw_batch_rows(macro_name, microbatch, rewrite_from, none) -%}
    {%- endif -%}
    {%- set windows = stream_windows._sw_fenl_cron(checked, entities, time_column, arrival_order, pipelines, spec.period, time_zone) -%}
  {%- else -%}
    {%- set source = checked -%}
    {%- if microbatch.start is not none -%}
      {#- A NULL time passes, to fail the query (_sw_checked_time). -#}
      {%- set batch = stream_windows._sw_batch_plan(microbatch, stream_windows._sw_reach('all'), checked, key) -%}
      {%- set source = '(select * from ' ~ checked ~ ' as _sw_all where ' ~ batch.read ~ ')' -%}
      {%- set rows = stream_windows._sw_batch_rows(macro_name, microbatch, microbatch.start, arrival_order) -%}
    {%- endif -%}
    {%- set windows = stream_windows._sw_fenl_per_row(source, entities, time_column, arrival_order, pipelines, spec, passthrough) -%}
  {%- endif -%}
select
    *,
    {{ stream_windows._sw_batch_partition_column(microbatch) }}
from ({{ windows }}) as _sw_windows
{%- if rows is not none %}
where {{ rows }}
{%- endif %}
{% endmacro %}

{% macro _sw_fenl_cron_rewrite_from(microbatch, relation, entities, key, period, time_zone) %}
  {#- The first key a cron window's batch rewrites: the earliest batch holding the start
      of the period open at the batch's start, of the last event before it, or (when an
      entity has its first event in the batch) of the oldest event. One query: the
      instants, then their periods' starts. -#}
  {%- set bounds = stream_windows._sw_fenl_period_sql(period, time_zone) -%}
  {%- set on = [] -%}
  {%- for column in entities -%}{%- do on.append('_sw_new.' ~ column ~ ' <=> _sw_old.' ~ column) -%}{%- endfor -%}
  {%- set facts -%}
    select
        max(case when {{ key }} < {{ microbatch.start }} then {{ key }} end) as _sw_last_before,
        min({{ key }}) as _sw_oldest,
        (select count(*)
         from (
             select distinct {{ entities | join(', ') }}
             from {{ relation }} as _sw_input
             where {{ key }} >= {{ microbatch.start }} and {{ key }} < {{ microbatch.end }}
         ) as _sw_new
         left anti join (
             select distinct {{ entities | join(', ') }}
             from {{ relation }} as _sw_input
             where {{ key }} < {{ microbatch.start }}
         ) as _sw_old
         on {{ on | join(' and ') }}) as _sw_new_entities
    from {{ relation }} as _sw_input
  {%- endset -%}
  {%- set instants -%}
    select {{ microbatch.start }} as _sw_instant
    union all select _sw_last_before from _sw_facts where _sw_last_before is not null
    union all select _sw_oldest from _sw_facts where _sw_new_entities > 0 and _sw_oldest is not null
  {%- endset -%}
  {%- set earliest_start -%}
    with _sw_facts as ({{ facts }})
    select min(unix_micros({{ bounds.start }})) as k
    from (
        select {{ bounds.key }} as _sw_period
        from (select timestamp_micros(_sw_instant) as _sw_time from ({{ instants }}) as _sw_instants) as _sw_timed
    ) as _sw_periods
  {%- endset -%}
  {%- set starts = run_query(earliest_start).rows[0]['k'] -%}
  {{ return(stream_windows._sw_batch_start(microbatch, [starts | int, microbatch.start] | min)) }}
{% endmacro %}
