{#- Incremental builds of the per-row window macros (SEMANTICS.md section 6).

    A window model given `incremental={...}` outputs a `time_partition` column (the
    day of its time column, or the numeric bucket) and is built by dbt's incremental
    materialization with insert_overwrite on that column:

        {{ config(materialized='incremental', incremental_strategy='insert_overwrite',
                  partition_by=['time_partition']) }}

    A scheduled run reads what this model already holds (its latest time W and
    arrival position S), then recomputes only the partitions whose rows can change:
    from the partition holding W - (the window's reach into the future) on. Their
    input is the rows from that partition's start minus the window's reach into the
    past (the lookback, derived from the window: its RANGE size, or the n rows before
    in each partition for ROWS), so a window spanning a batch boundary is computed
    whole, and a provisional row (is_final false) is replaced when later input
    closes its window. Dynamic partition overwrite replaces exactly those partitions:
    after any sequence of runs the table equals a full rebuild.

    Late rows (arrival position after S, time before W) follow `late_rows`:
      'error'     (default) the run fails before writing, naming the first late row;
      'audit'     the late rows are appended to <model>__late_rows with the reason and
                  the watermark, counted in the run's log, and left out of every
                  window (now and in later runs);
      'reprocess' the recomputation starts from the earliest late row's partition,
                  so the table again equals a full rebuild. -#}

{% macro _sw_incremental_spec(macro_name, incremental, time_column, time_kind) %}
  {#- The validated `incremental` argument: {'time_column', 'partition', 'late_rows',
      'kind': 'interval'|'number'}; none when not given. -#}
  {%- if incremental is none -%}{{ return(none) }}{%- endif -%}
  {%- set rule = "{'partition': 'day' (timestamp time) or a number > 0 (numeric time), 'late_rows': 'error' | 'audit' | 'reprocess'"
      ~ (", 'time_column': <column>}" if time_column is none else "}") -%}
  {%- set allowed = ['partition', 'late_rows'] + (['time_column'] if time_column is none else []) -%}
  {%- if incremental is not mapping or 'partition' not in incremental -%}{{ stream_windows._sw_fail(macro_name, 'incremental', rule, incremental) }}{%- endif -%}
  {%- for key in incremental if key not in allowed -%}{{ stream_windows._sw_fail(macro_name, 'incremental', rule, incremental) }}{%- endfor -%}
  {%- set column = time_column if time_column is not none else incremental.get('time_column') -%}
  {%- if column is not string or not column -%}{{ stream_windows._sw_fail(macro_name, "incremental['time_column']", 'the column whose time partitions the table', column) }}{%- endif -%}
  {%- set partition = incremental.partition -%}
  {%- if partition == 'day' -%}
    {%- set kind = 'interval' -%}
  {%- elif stream_windows._sw_is_number(partition) and partition > 0 -%}
    {%- set kind = 'number' -%}
  {%- else -%}
    {{ stream_windows._sw_fail(macro_name, "incremental['partition']", "'day' for a timestamp time column or a number > 0 for a numeric one", partition) }}
  {%- endif -%}
  {%- if time_kind is not none and time_kind != kind -%}
    {{ stream_windows._sw_fail(macro_name, "incremental['partition']", ("'day' (the window's range is an interval)" if time_kind == 'interval' else "a number > 0 (the window's range is numeric)"), partition) }}
  {%- endif -%}
  {%- set late_rows = incremental.get('late_rows', 'error') -%}
  {{- stream_windows._sw_check_choice(macro_name, "incremental['late_rows']", late_rows, ['error', 'audit', 'reprocess']) -}}
  {{ return({'time_column': column, 'partition': partition, 'late_rows': late_rows, 'kind': kind}) }}
{% endmacro %}

{% macro _sw_incremental_key(spec) %}
  {#- The time as a number: microseconds for timestamps. -#}
  {{ return(('unix_micros(cast(' ~ spec.time_column ~ ' as timestamp))') if spec.kind == 'interval' else spec.time_column) }}
{% endmacro %}

{% macro _sw_incremental_partition_column(spec) %}
  {%- if spec.kind == 'interval' -%}
    {{ return('to_date(cast(' ~ spec.time_column ~ ' as timestamp)) as time_partition') }}
  {%- else -%}
    {{ return('floor(' ~ spec.time_column ~ ' / ' ~ spec.partition ~ ') * ' ~ spec.partition ~ ' as time_partition') }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_partition_start(spec, key) %}
  {#- The start (as a key) of the partition holding `key`, computed here in Jinja. -#}
  {%- if spec.kind == 'interval' -%}
    {{ return(key - (key % 86400000000)) }}
  {%- else -%}
    {{ return(((key / spec.partition) | round(0, 'floor')) * spec.partition) }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_check_incremental_config(macro_name) %}
  {%- set strategy = config.get('incremental_strategy') -%}
  {%- set partition_by = config.get('partition_by') -%}
  {%- set partition_by = [partition_by] if partition_by is string else (partition_by or []) | list -%}
  {%- if config.get('materialized') != 'incremental' or strategy != 'insert_overwrite' or partition_by != ['time_partition'] -%}
    {{ stream_windows._sw_fail(macro_name, 'incremental', "used in a model configured materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['time_partition'] (model "
        ~ model.name ~ " has materialized=" ~ config.get('materialized') ~ ", incremental_strategy=" ~ strategy ~ ", partition_by=" ~ partition_by ~ ")", 'incremental') }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_incremental_plan(macro_name, spec, relation, arrival_order, partitions, reach_past, reach_future) %}
  {#- What this run recomputes: none for a full build, else {'from_key': the first
      recomputed partition's start, 'input_from_key': from_key - reach_past (none when
      the lookback is counted in rows), 'exclude': a condition on input rows that
      never enter a window (audited late rows) or none}. reach_past/reach_future are
      in key units.
      The latest time W and arrival position S a model holds are kept in its table
      property stream_windows.watermark, written by a post-hook after each build from
      the partitions that build wrote: reading them costs no scan. A run that dies
      between its insert and the hook leaves the older values, so the next run
      recomputes a little more, to the same rows. -#}
  {%- set key = stream_windows._sw_incremental_key(spec) -%}
  {%- if not execute -%}
    {%- do config(post_hook=["{{ stream_windows._sw_record_watermark('" ~ key ~ "', '" ~ arrival_order ~ "') }}"]) -%}
    {{ return(none) }}
  {%- endif -%}
  {{- stream_windows._sw_check_incremental_config(macro_name) -}}
  {%- if is_incremental() and 'time_partition' not in (adapter.get_columns_in_relation(this) | map(attribute='name') | list) -%}
    {{ exceptions.raise_compiler_error(macro_name ~ "() in model " ~ model.name ~ ": the table " ~ this ~ " was built without time_partition (before the model was incremental); rebuild it once with --full-refresh.") }}
  {%- endif -%}
  {%- set seen = stream_windows._sw_recorded_watermark() if is_incremental() else none -%}
  {%- if seen is none and is_incremental() -%}
    {#- No recorded watermark (the build that made the table died before its post-hook):
        read it from the data once. -#}
    {%- set seen = run_query('select cast(max(' ~ key ~ ') as string) as w, cast(max(' ~ arrival_order ~ ') as string) as s from ' ~ this).rows[0] -%}
    {%- set seen = {'w': seen['w'], 's': seen['s']} if seen['w'] is not none else none -%}
  {%- endif -%}
  {%- if seen is none -%}
    {%- do run_query('set ' ~ stream_windows._sw_recomputed_conf() ~ '=all') -%}
    {{ return(none) }}
  {%- endif -%}
  {%- set w = seen['w'] | int if spec.kind == 'interval' else seen['w'] | float -%}
  {%- set s = seen['s'] -%}
  {%- set audit = this.incorporate(path={'identifier': this.identifier ~ '__late_rows'}) -%}
  {%- set audited = load_relation(audit) -%}
  {%- set exclude = (arrival_order ~ ' in (select ' ~ arrival_order ~ ' from ' ~ audited ~ ')') if audited is not none else none -%}
  {%- set fresh = '(select * from ' ~ relation ~ ' where ' ~ arrival_order ~ ' > ' ~ s ~ (' and not ' ~ exclude if exclude else '') ~ ')' -%}
  {%- set late_condition = key ~ ' < ' ~ w -%}
  {%- set first_late = run_query('select ' ~ arrival_order ~ ', cast(' ~ spec.time_column ~ ' as string) as t, ' ~ key ~ ' as k'
      ~ (', ' ~ partitions | join(', ') if partitions else '') ~ ', count(*) over () as n, min(' ~ key ~ ') over () as earliest from '
      ~ fresh ~ ' as _sw_fresh where ' ~ late_condition ~ ' order by ' ~ arrival_order ~ ' limit 1') -%}
  {%- set from_key = w - reach_future -%}
  {%- if first_late.rows | length > 0 -%}
    {%- set row = first_late.rows[0] -%}
    {%- set where = [] -%}
    {%- for column in partitions -%}{%- do where.append(column ~ '=' ~ row[column]) -%}{%- endfor -%}
    {%- set watermark = run_query('select cast(' ~ ('timestamp_micros(' ~ w ~ ')' if spec.kind == 'interval' else w) ~ ' as string) as t').rows[0]['t'] -%}
    {%- if spec.late_rows == 'error' -%}
      {{ exceptions.raise_compiler_error(macro_name ~ "() in model " ~ model.name ~ ": " ~ row['n'] ~ " late row(s); the first, "
          ~ arrival_order ~ " " ~ row[arrival_order] ~ (" (" ~ where | join(', ') ~ ")" if where else "") ~ ", has " ~ spec.time_column ~ " "
          ~ row['t'] ~ ", before " ~ watermark ~ ", the latest " ~ spec.time_column ~ " this model has processed. Set incremental['late_rows'] to "
          ~ "'audit' (keep them out, in " ~ audit ~ ") or 'reprocess' (recompute the windows they fall in), or rebuild with --full-refresh.") }}
    {%- elif spec.late_rows == 'audit' -%}
      {%- if audited is none -%}
        {%- do run_query('create table ' ~ audit ~ ' using parquet as select *, cast(null as string) as late_reason, cast(null as string) as late_watermark, current_timestamp() as audited_at from ' ~ relation ~ ' where false') -%}
      {%- endif -%}
      {%- do run_query('insert into ' ~ audit ~ ' select *, ' ~ "'" ~ spec.time_column ~ " before the latest processed time' as late_reason, '" ~ watermark
          ~ "' as late_watermark, current_timestamp() as audited_at from " ~ fresh ~ ' as _sw_fresh where ' ~ late_condition) -%}
      {%- do log(macro_name ~ '() in model ' ~ model.name ~ ': ' ~ row['n'] ~ ' late row(s) audited to ' ~ audit ~ ' and left out of the windows (first: '
          ~ arrival_order ~ ' ' ~ row[arrival_order] ~ ', ' ~ spec.time_column ~ ' ' ~ row['t'] ~ ', before ' ~ watermark ~ ')', info=true) -%}
      {%- set exclude = arrival_order ~ ' in (select ' ~ arrival_order ~ ' from ' ~ audit ~ ')' -%}
    {%- else -%}
      {%- set earliest = row['earliest'] | int if spec.kind == 'interval' else row['earliest'] | float -%}
      {%- set from_key = [from_key, earliest - reach_future] | min -%}
      {%- do log(macro_name ~ '() in model ' ~ model.name ~ ': ' ~ row['n'] ~ ' late row(s); recomputing from ' ~ spec.time_column ~ ' ' ~ row['t'] ~ "'s partition", info=true) -%}
    {%- endif -%}
  {%- endif -%}
  {%- set from_key = stream_windows._sw_partition_start(spec, from_key) -%}
  {%- set first_partition = ("date'" ~ modules.datetime.datetime.utcfromtimestamp(from_key / 1000000).strftime('%Y-%m-%d') ~ "'") if spec.kind == 'interval' else from_key -%}
  {%- do run_query('set ' ~ stream_windows._sw_recomputed_conf() ~ '=' ~ first_partition) -%}
  {{ return({'from_key': from_key, 'input_from_key': (from_key - reach_past) if reach_past is not none else none, 'exclude': exclude, 'key': key}) }}
{% endmacro %}

{% macro _sw_recomputed_conf() %}
  {#- A session setting naming the first partition this run of the model recomputes
      ('all' for a full build), for its post-hook. Keyed by a hash of the relation:
      Spark redacts the values of settings whose names contain "url" (as in hourly). -#}
  {{ return('stream_windows.recomputed_from.' ~ local_md5(this | string)) }}
{% endmacro %}

{% macro _sw_recorded_watermark() %}
  {#- {'w': latest time key, 's': latest arrival position} from the table property,
      or none. -#}
  {%- for row in run_query('show tblproperties ' ~ this) if row[0] == 'stream_windows.watermark' -%}
    {%- set parts = row[1].split('|') -%}
    {{ return({'w': parts[0], 's': parts[1]}) }}
  {%- endfor -%}
  {{ return(none) }}
{% endmacro %}

{% macro _sw_record_watermark(key, arrival_order) %}
  {#- The post-hook: the model's latest time key and arrival position, from the
      partitions this build wrote and the values recorded before, into the table
      property stream_windows.watermark. -#}
  {%- if not execute -%}{{ return('') }}{%- endif -%}
  {%- set since = run_query('set ' ~ stream_windows._sw_recomputed_conf()).rows[0][1] -%}
  {%- set partial = since not in (none, 'all', '<undefined>') -%}
  {%- set now = run_query('select cast(max(' ~ key ~ ') as string) as w, cast(max(' ~ arrival_order ~ ') as string) as s from ' ~ this
      ~ (' where time_partition >= ' ~ since if partial else '')).rows[0] -%}
  {%- set before = stream_windows._sw_recorded_watermark() if partial else none -%}
  {%- set w = now['w'] -%}
  {%- set s = now['s'] -%}
  {%- if before is not none -%}
    {%- set w = before['w'] if w is none or (before['w'] | float) > (w | float) else w -%}
    {%- set s = before['s'] if s is none or (before['s'] | float) > (s | float) else s -%}
  {%- endif -%}
  {%- if w is none -%}{{ return('') }}{%- endif -%}
  {{ return("alter table " ~ this ~ " set tblproperties ('stream_windows.watermark' = '" ~ w ~ "|" ~ s ~ "')") }}
{% endmacro %}
