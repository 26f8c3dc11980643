{#- dbt's microbatch (incremental_strategy='microbatch') for the window macros
    (docs/incremental.md, "Microbatch").

    dbt runs a microbatch model once per batch, [model.batch.event_time_start,
    event_time_end), and writes each batch with insert_overwrite by partition. It
    filters the model's inputs to the batch, which would cut every window that reaches
    across a batch boundary, and its `lookback` counts whole batches, not how far a
    window reaches. So a window macro reads its input unfiltered and bounds the read
    itself, by its own reach, and outputs exactly the full rebuild's rows of the
    partitions it rewrites:
      - the batch's own rows (output time in the batch);
      - for windows whose rows stay open after their batch (RANGE FOLLOWING: a row is
        final once the stream is past its time plus the range), also every row that
        was still open when the stream ended before this batch, so the batch that
        carries the stream past a row's window rewrites that row.
    The model's partitions are its batches: the macro adds `time_partition`, the start
    of the output time's batch in UTC (dbt's batches are UTC), and the model is
    configured partition_by=['time_partition']. Under `dbt compile`, `dbt show` or
    docs (no batch), the macro gives the whole history's rows. -#}

{% macro _sw_unfiltered(relation) %}
  {#- `relation` without the batch filter dbt puts on a ref() or source() of a model
      with `event_time` (its rendering is an unaliased subquery, which can be neither
      described nor read past the batch). -#}
  {%- if relation is not none and relation is not string and relation.event_time_filter is defined and relation.event_time_filter is not none -%}
    {{ return(relation.replace(event_time_filter=none)) }}
  {%- endif -%}
  {{ return(relation) }}
{% endmacro %}

{% macro _sw_microbatch(macro_name, incremental) %}
  {#- For a model configured incremental_strategy='microbatch': {'size': its
      batch_size, 'event_time': its output time column, 'start', 'end': the batch's
      bounds as keys (UTC microseconds; none when dbt runs no batch: compile, show,
      docs)}. none for every other model. -#}
  {%- if config.get('incremental_strategy') != 'microbatch' -%}{{ return(none) }}{%- endif -%}
  {%- set where = macro_name ~ "() in model " ~ model.name ~ " (incremental_strategy='microbatch'): " -%}
  {%- if incremental is not none -%}
    {{ stream_windows._sw_compile_error(where ~ "dbt's batches decide what each run builds; leave out the macro's `incremental` argument"
        ~ " (it is for incremental_strategy='insert_overwrite').") }}
  {%- endif -%}
  {%- set partition_by = config.get('partition_by') -%}
  {%- set partition_by = [partition_by] if partition_by is string else (partition_by or []) | list -%}
  {%- if partition_by != ['time_partition'] -%}
    {{ stream_windows._sw_compile_error(where ~ "configure partition_by=['time_partition'] (the column the macro adds: each batch rewrites"
        ~ " whole partitions, so a partition must be one batch); got partition_by=" ~ partition_by ~ ".") }}
  {%- endif -%}
  {%- set size = config.get('batch_size') -%}
  {%- if size not in ('hour', 'day', 'month', 'year') -%}
    {{ stream_windows._sw_compile_error(where ~ "batch_size must be hour, day, month or year; got " ~ size ~ ".") }}
  {%- endif -%}
  {%- set event_time = config.get('event_time') -%}
  {%- if event_time is not string or not event_time -%}
    {{ stream_windows._sw_compile_error(where ~ "configure event_time: the output column whose time places a row in its batch"
        ~ " (for a per-row window, the time column).") }}
  {%- endif -%}
  {%- set batch = model.batch if model.batch is defined else none -%}
  {%- if batch is none or batch.event_time_start is not defined or batch.event_time_start is none -%}
    {{ return({'size': size, 'event_time': event_time, 'start': none, 'end': none}) }}
  {%- endif -%}
  {{ return({'size': size, 'event_time': event_time, 'start': stream_windows._sw_utc_micros(batch.event_time_start),
             'end': stream_windows._sw_utc_micros(batch.event_time_end)}) }}
{% endmacro %}

{% macro _sw_utc_micros(moment) %}
  {#- A batch bound (a datetime, UTC when it has no time zone, as dbt's batches are) as
      microseconds since the epoch, whatever the machine's local time zone. -#}
  {%- set utc = moment.astimezone(modules.pytz.utc).replace(tzinfo=none) if moment.tzinfo is not none else moment -%}
  {%- set since_epoch = utc - modules.datetime.datetime(1970, 1, 1) -%}
  {{ return((since_epoch.days * 86400 + since_epoch.seconds) * 1000000 + since_epoch.microseconds) }}
{% endmacro %}

{% macro _sw_batch_key(column) %}
  {#- A timestamp column as UTC microseconds: the incremental mode's key. -#}
  {{ return(stream_windows._sw_incremental_key({'time_column': column, 'kind': 'interval'})) }}
{% endmacro %}

{% macro _sw_batch_start(microbatch, key) %}
  {#- The start (as a key) of the batch holding `key`, in UTC as dbt's batches are: the
      incremental mode's day and month partitions (_sw_partition_start), and the hour
      and the year. -#}
  {%- if microbatch.size == 'hour' -%}
    {{ return(key - key % 3600000000) }}
  {%- elif microbatch.size in ('day', 'month') -%}
    {{ return(stream_windows._sw_partition_start({'partition': microbatch.size, 'kind': 'interval'}, key)) }}
  {%- endif -%}
  {%- set epoch = modules.datetime.datetime(1970, 1, 1) -%}
  {%- set year = (epoch + modules.datetime.timedelta(microseconds=key)).year -%}
  {{ return((modules.datetime.datetime(year, 1, 1) - epoch).days * 86400000000) }}
{% endmacro %}

{% macro _sw_batch_partition_column(microbatch, column=none) %}
  {#- time_partition: the start of the output time's batch in UTC, whatever the
      session's time zone (a timestamp for hourly batches, else a date). `column`: an
      expression of the output time where its name cannot be used (a GROUP BY's
      select list). -#}
  {%- set key = stream_windows._sw_batch_key(column or microbatch.event_time) -%}
  {%- if microbatch.size == 'hour' -%}
    {{ return('timestamp_micros(' ~ key ~ ' - pmod(' ~ key ~ ', 3600000000)) as time_partition') }}
  {%- endif -%}
  {%- set day = 'date_from_unix_date(cast(floor(' ~ key ~ ' / 86400000000) as int))' -%}
  {%- if microbatch.size == 'day' -%}
    {{ return(day ~ ' as time_partition') }}
  {%- endif -%}
  {{ return('trunc(' ~ day ~ ", '" ~ ('MM' if microbatch.size == 'month' else 'YEAR') ~ "') as time_partition") }}
{% endmacro %}

{% macro _sw_batch_rows(macro_name, microbatch, from_key, arrival_order, column=none) %}
  {#- The condition that keeps the rows a batch writes: output time in
      [from_key, the batch's end). A row with no event_time belongs to no batch: it
      fails the batch, named by its arrival position, instead of being left out.
      `column`: as _sw_batch_partition_column takes it. -#}
  {%- set key = stream_windows._sw_batch_key(column or microbatch.event_time) -%}
  {%- set place = ("concat('arrival position ', coalesce(cast(" ~ arrival_order ~ " as string), 'NULL'))") if arrival_order else "'a row'" -%}
  {{ return('case when ' ~ key ~ " is null then raise_error(concat('" ~ macro_name ~ "() in model " ~ model.name ~ ": event_time "
      ~ microbatch.event_time ~ " is NULL at ', " ~ place ~ ", ' (a microbatch model places each row in a batch by its event_time)')) else "
      ~ key ~ ' >= ' ~ from_key ~ ' and ' ~ key ~ ' < ' ~ microbatch.end ~ ' end') }}
{% endmacro %}

{% macro _sw_batch_output(macro_name, microbatch, outputs) %}
  {#- The output column list must hold event_time (the batch filter reads it). -#}
  {%- if microbatch.event_time | lower not in outputs | map('lower') | list -%}
    {{ stream_windows._sw_compile_error(macro_name ~ "() in model " ~ model.name ~ ": event_time '" ~ microbatch.event_time
        ~ "' is not an output column (" ~ outputs | join(', ') ~ "); configure the output's time column.") }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_batch_plan(microbatch, reach, relation, key, groups=[]) %}
  {#- What one batch rewrites and reads, from the window's reach (_sw_reach):
      {'rewrite_from': the first key it writes, 'read': the condition on `key` of the
      input rows its windows need, or none where the lookback is counted (the count
      window reads its counted context, _sw_batch_counted_input)}. The batch writes its
      own rows and, from rewrite_from on, the earlier rows whose windows this batch
      changes:
        - grid windows: the windows that start before the batch and end in it;
        - a reopening window: each touched group's provisional last window, at the
          group's last key before the batch;
        - a window that reaches `future` ahead: the rows still open when the stream
          ended before this batch (its last key before the batch minus the reach).
      A row with a NULL key passes `read`, to fail the query that checks it, instead
      of Spark inferring `is not null` from the bounds and dropping it. -#}
  {%- set rewrite_from = microbatch.start -%}
  {%- if reach.grid is not none -%}
    {%- set every = reach.grid.every -%}
    {%- set earliest_open = microbatch.start - reach.grid.size - (microbatch.start - reach.grid.size) % every + every -%}
    {%- set rewrite_from = [earliest_open, microbatch.start] | min -%}
  {%- elif reach.reopen -%}
    {%- set touched -%}
      select distinct {{ groups | join(', ') if groups else '1 as _sw_all' }}
      from {{ relation }} as _sw_input
      where {{ key }} >= {{ microbatch.start }} and {{ key }} < {{ microbatch.end }}
    {%- endset -%}
    {%- set last = stream_windows._sw_reopened_from(relation, key, groups, key ~ ' < ' ~ microbatch.start, touched) -%}
    {%- if last is not none -%}{%- set rewrite_from = [last | int, microbatch.start] | min -%}{%- endif -%}
  {%- elif reach.future -%}
    {%- set last_before -%}
      select max({{ key }}) as k
      from {{ relation }} as _sw_before
      where {{ key }} < {{ microbatch.start }}
    {%- endset -%}
    {%- set last = run_query(last_before).rows[0]['k'] -%}
    {%- if last is not none -%}{%- set rewrite_from = [last | int - reach.future, microbatch.start] | min -%}{%- endif -%}
  {%- endif -%}
  {%- set rewrite_from = stream_windows._sw_batch_start(microbatch, rewrite_from) -%}
  {%- set read_until = key ~ ' < ' ~ (microbatch.end + reach.future) -%}
  {%- if reach.past == 'all' -%}
    {%- set read = key ~ ' is null or ' ~ read_until -%}
  {%- elif reach.past is number -%}
    {%- set read = key ~ ' is null or (' ~ key ~ ' >= ' ~ (rewrite_from - reach.past) ~ ' and ' ~ read_until ~ ')' -%}
  {%- else -%}
    {%- set read = none -%}
  {%- endif -%}
  {{ return({'rewrite_from': rewrite_from, 'read': read}) }}
{% endmacro %}

{% macro _sw_batch_counted_input(microbatch, relation, key, groups, rewrite_from, n, rank_expr) %}
  {#- A count window's input for a batch that rewrites from `rewrite_from`: the rows
      from there to the batch's end, each group's n latest start times before them
      (the incremental mode's counted context), the rows of each group's first start
      time after the batch (whether its last window in the batch is final), and any
      row with a NULL time (the query fails on it, naming it). -#}
  {%- set bounded = '(select * from ' ~ relation ~ ' as _sw_all where ' ~ key ~ ' < ' ~ microbatch.end ~ ')' -%}
  {%- set context = stream_windows._sw_counted_context(bounded, {'from_key': rewrite_from, 'key': key, 'exclude': none, 'floor': none},
      {'kind': 'interval', 'partition': 'day'}, groups, n, 'times', rank_expr) -%}
  {%- set on = [] -%}
  {%- for column in groups -%}{%- do on.append('_sw_after.' ~ column ~ ' <=> _sw_next.' ~ column) -%}{%- endfor -%}
  {%- do on.append('_sw_after._sw_after_key = _sw_next._sw_next_key') -%}
  {%- set input -%}
    (select * from {{ context }} as _sw_context_rows
    union all
    select * from {{ relation }} as _sw_undated where {{ key }} is null
    union all
    select * except (_sw_after_key)
    from (
        select *, {{ key }} as _sw_after_key
        from {{ relation }} as _sw_input
        where {{ key }} >= {{ microbatch.end }}
    ) as _sw_after
    left semi join (
        select {{ (groups | join(', ') ~ ', ') if groups else '' }}min({{ key }}) as _sw_next_key
        from {{ relation }} as _sw_input
        where {{ key }} >= {{ microbatch.end }}
        {{ ('group by ' ~ groups | join(', ')) if groups else '' }}
    ) as _sw_next
    on {{ on | join(' and ') }})
  {%- endset -%}
  {{ return(input) }}
{% endmacro %}
