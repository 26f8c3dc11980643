{% macro session_window_aggregate(relation, time_column, gap, aggregates, partition_by=none, arrival_order=none, gap_boundary='inclusive', incremental=none) %}
  {{- stream_windows._sw_check_call('session_window_aggregate', ['relation', 'time_column', 'gap', 'aggregates', 'partition_by', 'arrival_order', 'gap_boundary', 'incremental'], varargs, kwargs) -}}
  {{ return(adapter.dispatch('session_window_aggregate', 'stream_windows')(stream_windows._sw_unfiltered(relation), time_column, gap, aggregates, partition_by, arrival_order, gap_boundary, incremental)) }}
{% endmacro %}

{#- Any adapter but Spark's: the SQL this package writes is Spark SQL. -#}
{% macro default__session_window_aggregate(relation, time_column, gap, aggregates, partition_by, arrival_order, gap_boundary, incremental) %}
  {{ return(stream_windows._sw_unsupported_adapter('session_window_aggregate')) }}
{% endmacro %}

{#- Session windows (docs/semantics.md, "Session windows"): per key, in time then
    arrival order, a session is a run of events each at most `gap` after the one before
    it (gap_boundary 'inclusive', as Spark's session_window) or less than `gap` after it
    ('exclusive'). One row per session: window_start (its first event's time),
    window_end (its last event's time + gap), window_time (window_end minus one tick,
    as Flink), event_count, is_final and the aggregates.

    Plan: one sort per key by (time, arrival) gives each event, by lag(), whether it
    opens a session, and a running sum of those flags numbers the sessions; a GROUP BY
    (key, session number) computes every aggregate, as one aggregate call each (nest,
    distinctnest and nth from an arrival-sorted collect_list). The same window checks
    that no two events of a key share a time and an arrival position.

    incremental={'partition': 'day' | 'month' | a number, 'late_rows': ...} builds it in
    scheduled runs, partitioned by window_start (docs/incremental.md, "Sessions"). A
    session can last any time, so no fixed lookback bounds what a run reads. The plan
    reads the model's own rows instead: a new event at time t can only join a session
    whose end (last event + gap) is at or after t, so the run recomputes from the
    earliest start among the sessions whose last event is at or after the incremental
    plan's first partition (W - gap, or an earlier late or changed row's time - gap).
    It reads the input from there and leaves out the events of the sessions that
    started before it: those are final and stay as written. A late event under
    'reprocess' can merge two written sessions, leaving a partition with none: the
    run's pre-hook drops the partitions it recomputes first (recording where it
    started, so a run that dies after the drop is redone from there by the next).

    Under dbt's microbatch (event_time='window_start') a batch does the same from its
    start minus the gap and writes the sessions from that point's batch to its end. It
    cannot drop partitions (dbt runs hooks once per model, not per batch), so a batch
    whose span holds a written partition no session starts in any more fails, naming
    it (the model is then rebuilt with --full-refresh). -#}
{% macro spark__session_window_aggregate(relation, time_column, gap, aggregates, partition_by, arrival_order, gap_boundary, incremental) %}
  {%- set macro_name = 'session_window_aggregate' -%}
  {%- if not execute -%}{{ return(stream_windows._sw_parse_only(incremental, time_column)) }}{%- endif -%}
  {%- if relation is none -%}{{ stream_windows._sw_fail(macro_name, 'relation', 'a relation (ref, source or CTE name)', relation) }}{%- endif -%}
  {%- if time_column is not string or not time_column -%}{{ stream_windows._sw_fail(macro_name, 'time_column', 'a column name', time_column) }}{%- endif -%}
  {%- set gap_boundary = gap_boundary | lower if gap_boundary is string else gap_boundary -%}
  {{- stream_windows._sw_check_choice(macro_name, 'gap_boundary', gap_boundary, ['inclusive', 'exclusive']) -}}
  {%- set session_gap = stream_windows._sw_parse_range(macro_name, 'gap', gap) -%}
  {%- if session_gap.size <= 0 -%}
    {{ stream_windows._sw_fail(macro_name, 'gap', "greater than zero (a session ends a gap after its last event)", gap) }}
  {%- endif -%}
  {%- set aggs = stream_windows._sw_parse_aggregates(macro_name, aggregates, {'relation': relation, 'duration': 'per session'}) -%}
  {%- set keys = stream_windows._sw_as_list(macro_name, 'partition_by', partition_by) -%}
  {{- stream_windows._sw_check_grouped_call(macro_name, relation, time_column, session_gap.kind, keys, arrival_order, aggs,
      ['window_start', 'window_end', 'window_time', 'event_count', 'is_final', 'time_partition']) -}}
  {%- set microbatch = stream_windows._sw_microbatch(macro_name, incremental) -%}
  {%- set spec = stream_windows._sw_incremental_spec(macro_name, incremental, time_column, session_gap.kind) -%}
  {%- if spec is not none and arrival_order is none -%}
    {{ stream_windows._sw_fail(macro_name, 'arrival_order', 'a column giving arrival order (such as seq) for an incremental build (it tells new rows from processed ones)', arrival_order) }}
  {%- endif -%}

  {%- set interval = session_gap.kind == 'interval' -%}
  {%- set key = ('unix_micros(cast(' ~ time_column ~ ' as timestamp))') if interval else time_column -%}
  {%- set size = session_gap.size -%}
  {%- set source = stream_windows._sw_checked_time(macro_name, relation, keys, time_column, arrival_order) -%}
  {%- set planned = none -%}
  {%- set rewrite = none -%}
  {%- if spec is not none -%}
    {%- set planned = stream_windows._sw_incremental_plan(macro_name, spec, relation, arrival_order, keys, stream_windows._sw_reach(none, future=size), 'input') -%}
    {%- if not planned.full and not planned.nothing_new -%}
      {%- set rewrite = stream_windows._sw_session_rewrite(planned, spec, keys, size) -%}
      {%- set source = '(select * from ' ~ source ~ ' as _sw_all where ' ~ stream_windows._sw_key_from(planned, rewrite.from_key)
          ~ (' and not ' ~ planned.exclude if planned.exclude else '') ~ ')' -%}
    {%- endif -%}
  {%- endif -%}
  {%- set batch_rows = none -%}
  {%- set emptied = none -%}
  {%- if microbatch is not none -%}
    {%- if not interval or microbatch.event_time | lower != 'window_start' -%}
      {{ stream_windows._sw_compile_error(macro_name ~ "() in model " ~ model.name ~ " (incremental_strategy='microbatch'): configure event_time='window_start' (a session's row is placed in the batch of its first event) over a timestamp time column (dbt's batches are spans of time); got event_time="
          ~ microbatch.event_time ~ ", gap " ~ gap ~ ".") }}
    {%- endif -%}
    {%- if microbatch.start is not none -%}
      {#- The batch's sessions, and the written sessions its events can extend or merge;
          a batch that starts the table (the first, or a full refresh's) reads every
          event and keeps the sessions starting in it. -#}
      {%- set rewrite_from = microbatch.start -%}
      {%- if is_incremental() -%}
        {%- set rewrite = stream_windows._sw_session_batch_rewrite(microbatch, keys, time_column, size) -%}
        {%- set rewrite_from = rewrite.from_key -%}
        {%- set emptied = rewrite.written_partitions -%}
        {#- A NULL time passes, to fail the check below it (a plain bound would let Spark
            infer `is not null` and drop the row unseen). -#}
        {%- set source = '(select * from ' ~ source ~ ' as _sw_all where ' ~ key ~ ' is null or ' ~ key ~ ' >= ' ~ rewrite_from ~ ')' -%}
      {%- endif -%}
      {%- set batch_rows = stream_windows._sw_batch_rows(macro_name, microbatch, rewrite_from, none) -%}
    {%- endif -%}
  {%- endif -%}
  {%- if rewrite is not none and rewrite.straddling is not none -%}
    {%- set source = '(select * from ' ~ source ~ ' as _sw_events left anti join (' ~ rewrite.straddling ~ ') as _sw_written on '
        ~ rewrite.on ~ ')' -%}
  {%- endif -%}

  {%- set over = ('partition by ' ~ keys | join(', ') ~ ' ') if keys else '' -%}
  {%- set order = 'order by _sw_key' ~ (', ' ~ arrival_order if arrival_order else '') -%}
  {#- An event opens a session unless the one before it (same key) is within the gap. -#}
  {%- set joins = '_sw_key - lag(_sw_key) over _sw_by_time ' ~ ('<=' if gap_boundary == 'inclusive' else '<') ~ ' ' ~ size -%}
  {%- set opens = 'case when ' ~ joins ~ ' then 0 else 1 end' -%}
  {%- if arrival_order -%}
    {%- set repeated = 'lag(_sw_key) over _sw_by_time = _sw_key and lag(' ~ arrival_order ~ ') over _sw_by_time = ' ~ arrival_order -%}
    {%- set opens = stream_windows._sw_refuse_repeated_arrival(macro_name, repeated, opens, keys, arrival_order) -%}
  {%- endif -%}
  {%- set duration = '((max(_sw_key) - min(_sw_key) + ' ~ size ~ ') / ' ~ ('1000000D' if interval else '1D') ~ ')' -%}
  {%- set outputs = [] -%}
  {%- for agg in aggs -%}{%- do outputs.append(stream_windows._sw_grouped_expr(agg, arrival_order, duration)) -%}{%- endfor -%}
  {%- if interval -%}
    {%- set window_start = 'timestamp_micros(_sw_first)' -%}
    {%- set window_end = 'timestamp_micros(_sw_last + ' ~ size ~ ')' -%}
    {%- set window_time = 'timestamp_micros(_sw_last + ' ~ (size - 1) ~ ')' -%}
  {%- else -%}
    {%- set window_start = '_sw_first' -%}
    {%- set window_end = '_sw_last + ' ~ size -%}
    {%- set window_time = '_sw_last + ' ~ size ~ ' - 1' -%}
  {%- endif -%}
  {#- Final once the stream (any key) is past the point where the session could still
      grow: after its end ('inclusive'), at or after it ('exclusive'). -#}
  {%- set stream_time = '(select max(_sw_stream_key) from (select ' ~ key ~ ' as _sw_stream_key from ' ~ source ~ ' as _sw_stream) as _sw_stream_keys)' -%}
  {%- set is_final = stream_time ~ (' > ' if gap_boundary == 'inclusive' else ' >= ') ~ '_sw_last + ' ~ size -%}

  {#- Every event with _sw_opens: 1 where it opens a session (its key's first event,
      or the first after a pause longer than the gap). -#}
  {%- set flagged -%}
            select *, {{ opens }} as _sw_opens
            from (select *, {{ key }} as _sw_key from {{ source }} as _sw_input) as _sw_keyed
            window _sw_by_time as ({{ over }}{{ order }})
  {%- endset -%}
  {%- set missing = none -%}
  {%- if emptied -%}
    {#- A written partition of this batch's span in which no session starts any more (a
        late event merged its sessions into an earlier one) would keep its rows: a
        batch overwrites only the partitions it writes rows to. The sessions' starts
        are the events that open one. -#}
    {%- set missing -%}
      (select min(_sw_written_partition) from (select explode(array({{ emptied | join(', ') }})) as _sw_written_partition) as _sw_written
       where _sw_written_partition not in (
           select {{ stream_windows._sw_batch_partition_column(microbatch, 'timestamp_micros(_sw_key)').split(' as time_partition')[0] }}
           from ({{ flagged }}) as _sw_starts where _sw_opens = 1))
    {%- endset -%}
  {%- endif -%}

{%- if planned is not none %}
{{ stream_windows._sw_plan_comment(planned) }}
{{ stream_windows._sw_nothing_new_open(planned) }}
{%- endif %}
{%- if batch_rows is not none %}
select * from (
{%- endif %}
select
    {{ (keys | join(', ') ~ ',') if keys }}
    {{ window_start }} as window_start,
    {{ window_end }} as window_end,
    {{ window_time }} as window_time,
    event_count,
    coalesce({{ is_final }}, false) as is_final,
    {{ aggs | map(attribute='name') | join(',\n    ') }}
    {%- if spec is not none %},
    {{ stream_windows._sw_incremental_partition_column(spec, 'window_start') }}
    {%- endif %}
    {%- if microbatch is not none %},
    {{ stream_windows._sw_batch_partition_column(microbatch, window_start) }}
    {%- endif %}
from (
    select
        {{ (keys | join(', ') ~ ',') if keys }}
        min(_sw_key) as _sw_first,
        max(_sw_key) as _sw_last,
        count(*) as event_count,
        {{ outputs | join(',\n        ') }}
    from (
        select
            *,
            sum(_sw_opens) over ({{ over }}{{ order }} rows between unbounded preceding and current row) as _sw_session
        from (
{{ flagged }}
        ) as _sw_flagged
    ) as _sw_numbered
    group by {{ (keys | join(', ') ~ ',') if keys }} _sw_session
) as _sw_sessions
{%- if batch_rows is not none %}
) as _sw_batch
where {{ batch_rows }}
{%- if missing is not none %}
    and case when {{ missing }} is not null then raise_error(concat('{{ macro_name }}() in model {{ model.name }}: no session starts in the written batch ',
        cast({{ missing }} as string), ' any more (a late event merged its sessions into an earlier one), and a batch cannot empty a partition it does not write: rebuild the model with --full-refresh.'))
        else true end
{%- endif %}
{%- endif %}
{{ stream_windows._sw_nothing_new_close(planned) }}
{% endmacro %}

{% macro _sw_session_rewrite(plan, spec, keys, gap) %}
  {#- What a scheduled run of a session model rewrites, from the model's own rows:
      {'from_key': the first recomputed partition's start, and the written sessions
      reaching into it (_sw_straddling_sessions)}; adds to the plan's prepare the drop
      of the partitions it rewrites and to its commit the end of the rewrite (see
      spark__session_window_aggregate). -#}
  {%- set from_key = stream_windows._sw_sessions_still_open(spec.kind, gap, plan.from_key) -%}
  {%- set recorded = stream_windows._sw_session_rewrite_from(spec) -%}
  {%- if recorded is not none -%}{%- set from_key = [from_key, recorded] | min -%}{%- endif -%}
  {%- set from_key = stream_windows._sw_partition_start(spec, from_key) -%}
  {%- set first_day = modules.datetime.datetime.utcfromtimestamp(from_key / 1000000).strftime('%Y-%m-%d') if spec.kind == 'interval' else none -%}
  {#- Drop every written partition from there on before the write: each is rewritten
      whole, and one whose sessions a late event merged into an earlier one gets no row
      to overwrite it with. The start is recorded first and cleared after the write. -#}
  {%- do plan.prepare.append("alter table " ~ this ~ " set tblproperties ('stream_windows.sessions_from' = '" ~ from_key ~ "')") -%}
  {%- for value in stream_windows._sw_written_partitions() -%}
    {%- if (spec.kind == 'interval' and value >= first_day) or (spec.kind != 'interval' and (value | float) >= from_key) -%}
      {%- do plan.prepare.append('alter table ' ~ this ~ ' drop if exists partition (time_partition = ' ~ ("'" ~ value ~ "'" if spec.kind == 'interval' else value) ~ ')') -%}
    {%- endif -%}
  {%- endfor -%}
  {%- do plan.commit.append("alter table " ~ this ~ " unset tblproperties if exists ('stream_windows.sessions_from')") -%}
  {{ return(stream_windows._sw_straddling_sessions(keys, spec.time_column, spec.kind, gap, from_key)) }}
{% endmacro %}

{% macro _sw_session_batch_rewrite(microbatch, keys, time_column, gap) %}
  {#- What one of dbt's batches of a session model rewrites, from the sessions earlier
      batches wrote: from the batch holding the earliest start of a session its events
      can join (last event a gap or less before the batch), as
      _sw_straddling_sessions says, with 'written_partitions': the partitions written
      in its span, as SQL literals (a batch checks that each still gets a row). -#}
  {%- set from_key = stream_windows._sw_sessions_still_open('interval', gap, microbatch.start - gap) -%}
  {%- set from_key = stream_windows._sw_batch_start(microbatch, [from_key, microbatch.start] | min) -%}
  {%- set fmt = '%Y-%m-%d %H:%M:%S' if microbatch.size == 'hour' else '%Y-%m-%d' -%}
  {%- set low = modules.datetime.datetime.utcfromtimestamp(from_key / 1000000).strftime(fmt) -%}
  {%- set high = modules.datetime.datetime.utcfromtimestamp(microbatch.end / 1000000).strftime(fmt) -%}
  {%- set written = [] -%}
  {%- for value in stream_windows._sw_written_partitions() if value >= low and value < high -%}
      {%- do written.append(("timestamp'" if microbatch.size == 'hour' else "date'") ~ value ~ "'") -%}
  {%- endfor -%}
  {%- set rewrite = stream_windows._sw_straddling_sessions(keys, time_column, 'interval', gap, from_key) -%}
  {%- do rewrite.update({'written_partitions': written}) -%}
  {{ return(rewrite) }}
{% endmacro %}

{% macro _sw_sessions_still_open(kind, gap, since) %}
  {#- The earliest start (as a key) among the model's written sessions whose last event
      is at or after `since`, the sessions an event a gap or less after `since` can
      still join; `since` when there is none (or it is earlier). -#}
  {%- set written = stream_windows._sw_written_session_keys(kind, gap) -%}
  {%- set question -%}
    select cast(min({{ written.first }}) as string) as k
    from {{ this }}
    where {{ written.last }} >= {{ since }}
  {%- endset -%}
  {%- set earliest = run_query(question).rows[0]['k'] -%}
  {%- if earliest is none -%}{{ return(since) }}{%- endif -%}
  {{ return([since, earliest | int if kind == 'interval' else earliest | float] | min) }}
{% endmacro %}

{% macro _sw_straddling_sessions(keys, time_column, kind, gap, from_key) %}
  {#- {'from_key', 'straddling': a query of the written sessions that started before
      from_key and whose events reach into it (their keys, first and last event as
      keys), 'on': the condition matching an input event (_sw_events) to one of them}.
      Those sessions are final, and their events are left out of the rewrite. -#}
  {%- set written = stream_windows._sw_written_session_keys(kind, gap) -%}
  {%- set on = [] -%}
  {%- for column in keys -%}{%- do on.append('_sw_events.' ~ column ~ ' <=> _sw_written.' ~ column) -%}{%- endfor -%}
  {%- set event_key = stream_windows._sw_incremental_key({'time_column': '_sw_events.' ~ time_column, 'kind': kind}) -%}
  {%- do on.append(event_key ~ ' between _sw_written._sw_first and _sw_written._sw_last') -%}
  {%- set straddling -%}
    select {{ (keys | join(', ') ~ ',') if keys }} {{ written.first }} as _sw_first, {{ written.last }} as _sw_last
    from {{ this }}
    where {{ written.first }} < {{ from_key }} and {{ written.last }} >= {{ from_key }}
  {%- endset -%}
  {{ return({'from_key': from_key, 'straddling': straddling, 'on': on | join(' and ')}) }}
{% endmacro %}

{% macro _sw_written_session_keys(kind, gap) %}
  {#- A written session's first and last event, as keys of the model's own columns
      (window_end is the last event plus the gap). -#}
  {%- set key_of = {'window_start': 'unix_micros(cast(window_start as timestamp))', 'window_end': 'unix_micros(cast(window_end as timestamp))'} if kind == 'interval'
      else {'window_start': 'window_start', 'window_end': 'window_end'} -%}
  {{ return({'first': key_of.window_start, 'last': '(' ~ key_of.window_end ~ ' - ' ~ gap ~ ')'}) }}
{% endmacro %}

{% macro _sw_written_partitions() %}
  {#- The values of the model's time_partition, as `show partitions` prints them. -#}
  {%- set values = [] -%}
  {%- for row in run_query('show partitions ' ~ this) -%}{%- do values.append(row[0].split('=', 1)[1]) -%}{%- endfor -%}
  {{ return(values) }}
{% endmacro %}

{% macro _sw_session_rewrite_from(spec) %}
  {#- The start a run that dropped partitions recorded before it died, or none. -#}
  {%- for row in run_query('show tblproperties ' ~ this) if row[0] == 'stream_windows.sessions_from' -%}
    {{ return(row[1] | int if spec.kind == 'interval' else row[1] | float) }}
  {%- endfor -%}
  {{ return(none) }}
{% endmacro %}
