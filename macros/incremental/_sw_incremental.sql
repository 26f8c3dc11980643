{#- Incremental builds of the per-row window macros (docs/semantics.md, Incremental
    runs section).

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

{#- What a window macro does while dbt parses the project (execute is false): it
    checks nothing and builds no SQL, so one model's bad argument fails that model
    alone, when it compiles to run, and never `dbt parse`, `dbt ls` or a build that
    does not select it. Parsing is when dbt takes a model's config, so an incremental
    model registers here the two hooks that carry out its plan (_sw_prepare_state
    before the model's write, _sw_commit_state after it). Arguments too broken to
    name a time column register none: such a model fails before it writes anything. -#}
{% macro _sw_parse_only(incremental, time_column) %}
  {%- if incremental is mapping -%}
    {%- set column = time_column if time_column is not none else incremental.get('time_column') -%}
    {%- if column is string and column -%}
      {%- do config(pre_hook=["{{ stream_windows._sw_prepare_state() }}"], post_hook=["{{ stream_windows._sw_commit_state() }}"]) -%}
    {%- endif -%}
  {%- endif -%}
  {{ return('select 1 as parsed') }}
{% endmacro %}

{% macro _sw_incremental_spec(macro_name, incremental, time_column, time_kind) %}
  {#- The validated `incremental` argument: {'time_column', 'partition', 'late_rows',
      'kind': 'interval'|'number'}; none when not given. -#}
  {%- if incremental is none -%}{{ return(none) }}{%- endif -%}
  {%- set rule = "{'partition': 'day' or 'month' (timestamp time) or a number > 0 (numeric time), 'late_rows': 'error' | 'audit' | 'reprocess'"
      ~ (", 'time_column': <column>}" if time_column is none else "}") -%}
  {%- set allowed = ['partition', 'late_rows'] + (['time_column'] if time_column is none else []) -%}
  {%- if incremental is not mapping or 'partition' not in incremental -%}{{ stream_windows._sw_fail(macro_name, 'incremental', rule, incremental) }}{%- endif -%}
  {%- for key in incremental if key not in allowed -%}{{ stream_windows._sw_fail(macro_name, 'incremental', rule, incremental) }}{%- endfor -%}
  {%- set column = time_column if time_column is not none else incremental.get('time_column') -%}
  {%- if column is not string or not column -%}{{ stream_windows._sw_fail(macro_name, "incremental['time_column']", 'the column whose time partitions the table', column) }}{%- endif -%}
  {%- set partition = incremental.partition -%}
  {%- if partition in ('day', 'month') -%}
    {%- set kind = 'interval' -%}
  {%- elif stream_windows._sw_is_number(partition) and partition > 0 -%}
    {%- set kind = 'number' -%}
  {%- else -%}
    {{ stream_windows._sw_fail(macro_name, "incremental['partition']", "'day' or 'month' for a timestamp time column or a number > 0 for a numeric one", partition) }}
  {%- endif -%}
  {%- if time_kind is not none and time_kind != kind -%}
    {{ stream_windows._sw_fail(macro_name, "incremental['partition']", ("'day' or 'month' (the window's size is an interval)" if time_kind == 'interval' else "a number > 0 (the window's size is numeric)"), partition) }}
  {%- endif -%}
  {%- set late_rows = incremental.get('late_rows', 'error') -%}
  {{- stream_windows._sw_check_choice(macro_name, "incremental['late_rows']", late_rows, ['error', 'audit', 'reprocess']) -}}
  {{ return({'time_column': column, 'partition': partition, 'late_rows': late_rows, 'kind': kind}) }}
{% endmacro %}

{% macro _sw_incremental_key(spec) %}
  {#- The time as a number: microseconds for timestamps. -#}
  {{ return(('unix_micros(cast(' ~ spec.time_column ~ ' as timestamp))') if spec.kind == 'interval' else spec.time_column) }}
{% endmacro %}

{% macro _sw_incremental_partition_column(spec, column=none) %}
  {#- time_partition: the partition of `column` (default: the time column), a date (the
      day, or the month's first day) or the numeric bucket. -#}
  {%- set column = column or spec.time_column -%}
  {%- if spec.partition == 'month' -%}
    {{ return("trunc(to_date(cast(" ~ column ~ " as timestamp)), 'MM') as time_partition") }}
  {%- elif spec.kind == 'interval' -%}
    {{ return('to_date(cast(' ~ column ~ ' as timestamp)) as time_partition') }}
  {%- else -%}
    {{ return('floor(' ~ column ~ ' / ' ~ spec.partition ~ ') * ' ~ spec.partition ~ ' as time_partition') }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_partition_start(spec, key) %}
  {#- The start (as a key) of the partition holding `key`, computed here in Jinja. -#}
  {%- if spec.partition == 'month' -%}
    {%- set epoch = modules.datetime.datetime(1970, 1, 1) -%}
    {%- set t = epoch + modules.datetime.timedelta(microseconds=key) -%}
    {%- set since_epoch = modules.datetime.datetime(t.year, t.month, 1) - epoch -%}
    {{ return(since_epoch.days * 86400000000) }}
  {%- elif spec.kind == 'interval' -%}
    {{ return(key - (key % 86400000000)) }}
  {%- else -%}
    {{ return(((key / spec.partition) | round(0, 'floor')) * spec.partition) }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_step(spec) %}
  {#- A day in key units (microseconds) for timestamp times, whatever the partition (the
      spans a plan counts back, its horizons and lookback searches, are in days), or the
      numeric bucket. -#}
  {{ return(86400000000 if spec.kind == 'interval' else spec.partition) }}
{% endmacro %}

{% macro _sw_partition_end(spec, start) %}
  {#- The start of the partition after the one starting at `start`. -#}
  {%- if spec.partition == 'month' -%}
    {{ return(stream_windows._sw_partition_start(spec, start + 32 * 86400000000)) }}
  {%- else -%}
    {{ return(start + stream_windows._sw_step(spec)) }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_partition_sql(spec, key) %}
  {#- The start (as a key) of the partition holding `key`, a SQL expression of the key. -#}
  {%- if spec.partition == 'month' -%}
    {{ return("(cast(unix_date(trunc(to_date(timestamp_micros(" ~ key ~ ")), 'MM')) as bigint) * 86400000000)") }}
  {%- else -%}
    {{ return('(' ~ key ~ ' - pmod(' ~ key ~ ', ' ~ stream_windows._sw_step(spec) ~ '))') }}
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

{% macro _sw_incremental_plan(macro_name, spec, relation, arrival_order, partitions, reach_past, reach_future, watermark_from='output', reopen=true, horizon=none, full=false) %}
  {#- What this run recomputes, and what its hooks write (the plan, below; full true
      for a full build, or when `full` asks for one), else {'from_key': the first
      recomputed partition's start, 'input_from_key': from_key - reach_past (none when
      the lookback is counted in rows), 'exclude': a condition on input rows that
      never enter a window (audited late rows) or none, 'key', and two that only an
      input-watermark plan knows (others give none): 'fresh_groups_unseen_since_cut'
      (below) and 'kept_key_range', {'from_key', 'lo', 'hi'}: the smallest and largest
      key of the kept input rows with keys from from_key on (the first recomputed
      partition's start before a reopen moved it back), from the same aggregation}.
      reach_past/reach_future are in key units.
      watermark_from 'input' is for windows whose rows do not show every input row
      they hold (a count window's output has no arrival position, and a group with
      fewer than N start times has no row yet): W and S are then taken from the input
      this run reads, and (reopen true) a run also recomputes the partition of each
      touched group's last processed time, where its provisional last window lies.
      Windows that never stay open past their own period (panes, cron periods) pass
      reopen false.
      The latest time W and arrival position S a model holds are kept in its table
      property stream_windows.watermark, written by the commit hook after each build
      from the partitions that build wrote: reading them costs no scan. A run that
      dies between its insert and the hook leaves the older values, so the next run
      recomputes a little more, to the same rows.
      This macro only reads. What the run must write besides the model's rows goes in
      the plan: 'prepare' (statements before the write), 'commit' (after it: the
      late-row audit, then the watermark), and what the watermark is made of
      ('since', 'next_floor', 'next_watermark'). The model's compiled SQL carries it
      (_sw_plan_comment) to the hooks registered at parse time (_sw_parse_only), which
      the materialization runs around its write: a compile, a show or a docs generate
      write nothing, and no session setting passes anything between steps.
      The property also keeps an arrival floor (F, A): every input row with key >= F
      has an arrival position >= A (F is the lowest key the next run reads in the
      usual case: this run's first recomputed partition minus `horizon`, which
      defaults to reach_past, or 16 partitions for a lookback counted in rows).
      plan.floor carries it, and _sw_key_from adds `arrival >= A` to every read from a
      key at or after F: a filter Parquet prunes files and row groups by, since an
      append-only table's files hold runs of arrival positions, where a filter on the
      time through unix_micros (or on an INT96 timestamp, Spark's default) prunes
      nothing. So a run reads the new input and the recent rows its windows need, not
      every file of the history. A row arriving later has a position above every
      present one, so the floor stays true; each run finds the next one in its plan
      query (from the rows the floor already narrows), a full build with one pass. -#}
  {%- set key = stream_windows._sw_incremental_key(spec) -%}
  {{- stream_windows._sw_check_incremental_config(macro_name) -}}
  {%- if is_incremental() and 'time_partition' not in (adapter.get_columns_in_relation(this) | map(attribute='name') | list) -%}
    {{ exceptions.raise_compiler_error(macro_name ~ "() in model " ~ model.name ~ ": the table " ~ this ~ " was built without time_partition (before the model was incremental); rebuild it once with --full-refresh.") }}
  {%- endif -%}
  {%- set seen = stream_windows._sw_recorded_watermark(spec) if is_incremental() and not full else none -%}
  {%- if seen is none and is_incremental() and not full and watermark_from == 'output' -%}
    {#- No recorded watermark (the build that made the table died before its post-hook):
        read it from the data once (an input-watermark model rebuilds every partition). -#}
    {%- set seen = stream_windows._sw_latest(key, arrival_order, this) -%}
    {%- set seen = {'w': seen['w'], 's': seen['s'], 'floor': none} if seen['w'] is not none else none -%}
  {%- endif -%}
  {%- set step = stream_windows._sw_step(spec) -%}
  {%- set horizon = horizon if horizon is not none else (reach_past if reach_past is not none else 16 * step) -%}
  {%- set audit = stream_windows._sw_companion('__late_rows') -%}
  {%- set fingerprints = {'table': stream_windows._sw_companion('__input_fingerprints') | string, 'input': relation | string,
      'part': stream_windows._sw_partition_sql(spec, key), 'key': key, 'arrival_order': arrival_order, 'from_key': none, 'fresh_after': none,
      'floor': none, 'new_rows_below': false} -%}
  {%- set plan = {'full': seen is none, 'key': key, 'arrival_order': arrival_order, 'watermark_from': watermark_from, 'since': 'all',
      'floor': none, 'next_floor': none, 'next_watermark': none, 'fingerprints': fingerprints, 'prepare': [], 'commit': [], 'notes': []} -%}
  {%- if seen is none -%}
    {#- A full build holds every input row, the audited late rows too: their audit goes
        with it, after the write (a failed build keeps it), else the next scheduled run
        would take them out of the windows again. -#}
    {%- do plan.commit.append('drop table if exists ' ~ audit) -%}
    {%- if watermark_from == 'input' or flags.WHICH in ('run', 'build') -%}
      {%- set now = stream_windows._sw_latest(key, arrival_order, relation) -%}
      {%- if watermark_from == 'input' and now['w'] is not none -%}
        {%- do plan.update({'next_watermark': now['w'] ~ '|' ~ now['s']}) -%}
      {%- endif -%}
      {#- The first arrival floor, for the first scheduled run: one pass over the rows
          from its key (by `dbt run` and `dbt build` only; a compile need not pay it). -#}
      {%- if now['w'] is not none and flags.WHICH in ('run', 'build') -%}
        {%- set newest = now['w'] | int if spec.kind == 'interval' else now['w'] | float -%}
        {%- set floor_key = stream_windows._sw_partition_start(spec, newest - reach_future) - horizon -%}
        {%- set floor_arrival = run_query('select cast(min(' ~ arrival_order ~ ') as string) as a from ' ~ relation ~ ' as _sw_input where ' ~ key ~ ' >= ' ~ floor_key).rows[0]['a'] -%}
        {%- do plan.update({'next_floor': floor_key ~ '|' ~ (floor_arrival if floor_arrival is not none else now['s'])}) -%}
      {%- endif -%}
    {%- endif -%}
    {{ return(plan) }}
  {%- endif -%}
  {%- set w = seen['w'] | int if spec.kind == 'interval' else seen['w'] | float -%}
  {%- set s = seen['s'] -%}
  {%- set reads = {'key': key, 'arrival_order': arrival_order, 'floor': seen['floor']} -%}
  {#- The next arrival floor, at the usual first read of the next run. -#}
  {%- set next_floor_key = stream_windows._sw_partition_start(spec, w - reach_future) - horizon -%}
  {%- set next_floor = 'select cast(min(' ~ arrival_order ~ ') as string) as _sw_next_floor from ' ~ relation ~ ' as _sw_input where ' ~ stream_windows._sw_key_from(reads, next_floor_key) -%}
  {%- set audited = load_relation(audit) -%}
  {%- set exclude = (arrival_order ~ ' in (select ' ~ arrival_order ~ ' from ' ~ audited ~ ')') if audited is not none else none -%}
  {%- set is_fresh = arrival_order ~ ' > ' ~ s ~ (' and not ' ~ exclude if exclude else '') -%}
  {%- set late_condition = key ~ ' < ' ~ w -%}
  {#- One query over the new rows finds the first late row and, before it, any row a
      run cannot place: a NULL time or arrival position. Every later filter on the time
      (key >= X) would drop such a row silently (Spark infers `is not null` from it),
      so the run fails here, naming it, before it writes anything. The rows with a
      NULL arrival position are a branch of their own: with one condition for both,
      Spark factors the shared `is null` out and leaves an OR it cannot push down to
      Parquet, and the query read every file of the input instead of the new ones. -#}
  {%- set unplaceable = '(' ~ key ~ ' is null or ' ~ arrival_order ~ ' is null)' -%}
  {%- set candidates = '(select * from ' ~ relation ~ ' where ' ~ is_fresh ~ ' and (' ~ late_condition ~ ' or ' ~ key ~ ' is null) union all select * from '
      ~ relation ~ ' where ' ~ arrival_order ~ ' is null)' -%}
  {%- set first_late = 'select ' ~ arrival_order ~ ', cast(' ~ spec.time_column ~ ' as string) as t, ' ~ key ~ ' as k'
      ~ (', ' ~ partitions | join(', ') if partitions else '') ~ ', count(' ~ key ~ ') over () as n, min(' ~ key ~ ') over () as earliest from '
      ~ candidates ~ ' as _sw_fresh order by ' ~ unplaceable ~ ' desc, ' ~ arrival_order ~ ' limit 1' -%}
  {%- set from_key = w - reach_future -%}
  {%- set groups = partitions if partitions else ['_sw_all'] -%}
  {%- set group_select = partitions | join(', ') if partitions else '1 as _sw_all' -%}
  {#- The next arrival floor, the late-row question and (input-watermark plans) the
      groups' aggregation below, over the span from from_key's partition on: one
      query, so one Spark job's fixed cost (about half a second here) instead of
      several. -#}
  {%- set questions = [] -%}
  {%- if watermark_from == 'input' -%}
    {%- set lo = stream_windows._sw_partition_start(spec, from_key) -%}
    {%- set touched = stream_windows._sw_touched_groups(relation, reads, s, lo, exclude, groups, group_select) -%}
    {%- do questions.append('(' ~ touched.summary ~ ') as _sw_now') -%}
  {%- endif -%}
  {#- The groups' aggregation reads from lo: when the next floor's key is lo (no
      horizon), its least arrival is the floor, without a scan of its own. It leaves
      out the audited late rows, which every read the floor narrows leaves out too. -#}
  {%- set floor_from_touched = watermark_from == 'input' and next_floor_key == lo -%}
  {%- if not floor_from_touched -%}{%- do questions.append('(' ~ next_floor ~ ') as _sw_floor') -%}{%- endif -%}
  {#- Rows changed in place below the recomputed span: each build records per input
      partition the count and a checksum of the rows it processed (arrival position up
      to its S, kept with them: audited late rows that arrived since stay out of the
      comparison), and this run compares the partitions it does not recompute (the
      earliest that differs). -#}
  {%- set check_until = stream_windows._sw_partition_start(spec, w - reach_future) -%}
  {%- set recorded = load_relation(stream_windows._sw_companion('__input_fingerprints')) -%}
  {%- if recorded is not none -%}
    {%- set current = stream_windows._sw_fingerprint_query(fingerprints, key ~ ' < ' ~ check_until, s, recorded) -%}
    {%- do questions.append('(select min(_sw_part) as _sw_changed_part, min_by(_sw_was, _sw_part) as _sw_changed_was, min_by(_sw_is, _sw_part) as _sw_changed_is from ('
        ~ 'select coalesce(_sw_now_fp.input_partition, _sw_was_fp.input_partition) as _sw_part, _sw_was_fp.input_rows as _sw_was, _sw_now_fp.input_rows as _sw_is from ('
        ~ current ~ ') as _sw_now_fp full outer join (select * from ' ~ recorded ~ ' where input_partition < ' ~ check_until ~ ') as _sw_was_fp on _sw_now_fp.input_partition = _sw_was_fp.input_partition'
        ~ ' where not (_sw_now_fp.input_rows <=> _sw_was_fp.input_rows and _sw_now_fp.input_checksum <=> _sw_was_fp.input_checksum)) as _sw_changes) as _sw_changed') -%}
  {%- endif -%}
  {%- set now = run_query('select * from ' ~ questions | join(' cross join ') ~ ' left join (select *, true as _sw_found from (' ~ first_late ~ ') as _sw_first) as _sw_first_late on true').rows[0] -%}
  {%- set row = now if now['_sw_found'] else none -%}
  {#- No row from the floor's key on yet: every later row arrives after S. -#}
  {%- set next_floor_arrival = now['_sw_now_first_arrival'] if floor_from_touched else now['_sw_next_floor'] -%}
  {%- do plan.update({'next_floor': next_floor_key ~ '|' ~ (next_floor_arrival if next_floor_arrival is not none else s)}) -%}
  {%- if row is not none -%}
    {%- set where = [] -%}
    {%- for column in partitions -%}{%- do where.append(column ~ '=' ~ row[column]) -%}{%- endfor -%}
    {%- if row['k'] is none -%}
      {{ exceptions.raise_compiler_error(macro_name ~ "() in model " ~ model.name ~ ": `time_column` " ~ spec.time_column ~ " is NULL at "
          ~ (where + ['arrival position ' ~ (row[arrival_order] if row[arrival_order] is not none else 'NULL')]) | join(', ') ~ " (a new row: a scheduled run places its rows by time, and its filters on the time would drop this one).") }}
    {%- elif row[arrival_order] is none -%}
      {{ exceptions.raise_compiler_error(macro_name ~ "() in model " ~ model.name ~ ": `arrival_order` " ~ arrival_order ~ " is NULL at "
          ~ (where + [spec.time_column ~ ' ' ~ row['t']]) | join(', ') ~ " (a new row; a run cannot tell it from the rows it has processed).") }}
    {%- endif -%}
    {%- set watermark = run_query('select cast(' ~ ('timestamp_micros(' ~ w ~ ')' if spec.kind == 'interval' else w) ~ ' as string) as t').rows[0]['t'] -%}
    {%- if spec.late_rows == 'error' -%}
      {{ exceptions.raise_compiler_error(macro_name ~ "() in model " ~ model.name ~ ": " ~ row['n'] ~ " late row(s); the first, "
          ~ arrival_order ~ " " ~ row[arrival_order] ~ (" (" ~ where | join(', ') ~ ")" if where else "") ~ ", has " ~ spec.time_column ~ " "
          ~ row['t'] ~ ", before " ~ watermark ~ ", the latest " ~ spec.time_column ~ " this model has processed. Set incremental['late_rows'] to "
          ~ "'audit' (keep them out, in " ~ audit ~ ") or 'reprocess' (recompute the windows they fall in), or rebuild with --full-refresh.") }}
    {%- elif spec.late_rows == 'audit' -%}
      {#- This run leaves the late rows out by their condition; its commit hook audits
          them after the write (a run that dies before then audits them next time). -#}
      {%- set late = '((' ~ is_fresh ~ ') and ' ~ late_condition ~ ')' -%}
      {%- do plan.commit.append('create table if not exists ' ~ audit ~ ' using parquet as select *, cast(null as string) as late_reason, cast(null as string) as late_watermark, current_timestamp() as audited_at from ' ~ relation ~ ' where false') -%}
      {%- do plan.commit.append('insert into ' ~ audit ~ ' select *, ' ~ "'" ~ spec.time_column ~ " before the latest processed time' as late_reason, '" ~ watermark
          ~ "' as late_watermark, current_timestamp() as audited_at from " ~ relation ~ ' as _sw_late where ' ~ late) -%}
      {%- do plan.notes.append(macro_name ~ '() in model ' ~ model.name ~ ': ' ~ row['n'] ~ ' late row(s) audited to ' ~ audit ~ ' and left out of the windows (first: '
          ~ arrival_order ~ ' ' ~ row[arrival_order] ~ ', ' ~ spec.time_column ~ ' ' ~ row['t'] ~ ', before ' ~ watermark ~ ')') -%}
      {%- set exclude = '(' ~ late ~ (' or ' ~ exclude if exclude else '') ~ ')' -%}
    {%- else -%}
      {%- set earliest = row['earliest'] | int if spec.kind == 'interval' else row['earliest'] | float -%}
      {%- set from_key = [from_key, earliest - reach_future] | min -%}
      {%- do log(macro_name ~ '() in model ' ~ model.name ~ ': ' ~ row['n'] ~ ' late row(s); recomputing from ' ~ spec.time_column ~ ' ' ~ row['t'] ~ "'s partition", info=true) -%}
    {%- endif -%}
  {%- endif -%}
  {%- set changed = recorded is not none and now['_sw_changed_part'] is not none -%}
  {%- if changed -%}
    {%- set part = now['_sw_changed_part'] | int if spec.kind == 'interval' else now['_sw_changed_part'] | float -%}
    {%- set part_text = modules.datetime.datetime.utcfromtimestamp(part / 1000000).strftime('%Y-%m-%d') if spec.kind == 'interval' else part -%}
    {%- set what = "the input's rows with " ~ spec.time_column ~ " in the partition starting " ~ part_text ~ " changed after this model processed them ("
        ~ (now['_sw_changed_was'] if now['_sw_changed_was'] is not none else 0) ~ " row(s) then, " ~ (now['_sw_changed_is'] if now['_sw_changed_is'] is not none else 0)
        ~ " now, or the same count with other values)" -%}
    {%- if spec.late_rows == 'reprocess' -%}
      {%- set from_key = [from_key, part - reach_future] | min -%}
      {%- do log(macro_name ~ '() in model ' ~ model.name ~ ': ' ~ what ~ '; recomputing from that partition', info=true) -%}
    {%- else -%}
      {{ exceptions.raise_compiler_error(macro_name ~ "() in model " ~ model.name ~ ": " ~ what ~ ". Set incremental['late_rows'] to 'reprocess' (recompute from that partition) or rebuild with --full-refresh"
          ~ (" ('audit' keeps late rows out; a row changed in place has no earlier version left to keep)." if spec.late_rows == 'audit' else ".")) }}
    {%- endif -%}
  {%- endif -%}
  {%- if watermark_from == 'input' -%}
    {#- Per group, over the kept input from from_key's partition on (every fresh row
        lies there: non-late rows have times >= W, and reprocess moved from_key to the
        earliest late row): its newest fresh time, its newest processed time and
        arrival. A group with fresh rows and no processed row there had its last
        processed time (and provisional last window) earlier: only those groups are
        looked up in the older history. -#}
    {%- if row is not none or changed -%}
      {#- Late rows audited (a new exclusion) or reprocessed, or changed rows
          reprocessed (an earlier from_key): the groups' aggregation above read
          another span. -#}
      {%- set lo = stream_windows._sw_partition_start(spec, from_key) -%}
      {%- set touched = stream_windows._sw_touched_groups(relation, reads, s, lo, exclude, groups, group_select) -%}
      {%- set now = run_query(touched.summary).rows[0] -%}
    {%- endif -%}
    {%- set kept = (' and not ' ~ exclude) if exclude else '' -%}
    {%- set kept_key_range = {'from_key': lo, 'lo': now['_sw_now_lo'], 'hi': now['_sw_now_hi']} -%}
    {%- if reopen and now['_sw_now_reopened'] > 0 -%}
      {%- set on = [] -%}
      {%- for column in groups -%}{%- do on.append('_sw_older.' ~ column ~ ' <=> _sw_touched.' ~ column) -%}{%- endfor -%}
      {%- set reopened_from = run_query('select min(_sw_last) as k from (select ' ~ group_select ~ ', max(' ~ key ~ ') as _sw_last from ' ~ relation
          ~ ' as _sw_input where ' ~ key ~ ' < ' ~ lo ~ ' and ' ~ arrival_order ~ ' <= ' ~ s ~ kept ~ ' group by ' ~ groups | join(', ') ~ ') as _sw_older left semi join ('
          ~ touched.per_group ~ ') as _sw_touched on ' ~ on | join(' and ') ~ ' and _sw_touched._sw_fresh_w is not null and _sw_touched._sw_seen_w is null').rows[0]['k'] -%}
      {%- if reopened_from is not none -%}
        {%- set from_key = [from_key, reopened_from | int if spec.kind == 'interval' else reopened_from | float] | min -%}
      {%- endif -%}
    {%- endif -%}
    {%- set next_w = w if now['_sw_now_w'] is none or (now['_sw_now_w'] | float) < w else now['_sw_now_w'] -%}
    {%- set next_s = s if now['_sw_now_s'] is none or (now['_sw_now_s'] | float) < (s | float) else now['_sw_now_s'] -%}
    {%- do plan.update({'next_watermark': next_w ~ '|' ~ next_s}) -%}
  {%- endif -%}
  {%- set from_key = stream_windows._sw_partition_start(spec, from_key) -%}
  {%- set first_partition = ("date'" ~ modules.datetime.datetime.utcfromtimestamp(from_key / 1000000).strftime('%Y-%m-%d') ~ "'") if spec.kind == 'interval' else from_key -%}
  {%- do plan.update({'since': first_partition}) -%}
  {#- New rows below the recomputed span: only late rows the audit keeps out (error
      fails the run, reprocess moves the span to the earliest one). -#}
  {%- do fingerprints.update({'from_key': from_key, 'fresh_after': s, 'floor': reads.floor,
      'new_rows_below': row is not none and spec.late_rows == 'audit'}) -%}
  {#- fresh_groups_unseen_since_cut: how many groups have new rows and no processed row
      from from_key's partition on (so possibly none at all: new groups); an
      input-watermark plan counts them, others give none (unknown). -#}
  {%- do plan.update({'from_key': from_key, 'input_from_key': (from_key - reach_past) if reach_past is not none else none, 'exclude': exclude,
      'floor': reads.floor,
      'fresh_groups_unseen_since_cut': now['_sw_now_reopened'] if watermark_from == 'input' else none,
      'kept_key_range': kept_key_range if watermark_from == 'input' else none}) -%}
  {{ return(plan) }}
{% endmacro %}

{% macro _sw_touched_groups(relation, reads, s, lo, exclude, groups, group_select) %}
  {#- Per group, over the kept input with keys from lo on (per_group): its newest fresh
      key (arrival after s), newest processed key, newest and least arrival, least
      key; and their one-row summary (summary: _sw_now_w, _sw_now_s, _sw_now_reopened
      - groups with fresh rows and no processed row there - _sw_now_lo, _sw_now_hi,
      _sw_now_first_arrival). reads:
      {'key', 'arrival_order', 'floor'}, as _sw_key_from takes them. -#}
  {%- set key = reads.key -%}
  {%- set arrival_order = reads.arrival_order -%}
  {%- set per_group = 'select ' ~ group_select ~ ', max(case when ' ~ arrival_order ~ ' > ' ~ s ~ ' then ' ~ key ~ ' end) as _sw_fresh_w, max(case when '
      ~ arrival_order ~ ' <= ' ~ s ~ ' then ' ~ key ~ ' end) as _sw_seen_w, max(' ~ arrival_order ~ ') as _sw_s, min(' ~ arrival_order ~ ') as _sw_a, min(' ~ key ~ ') as _sw_lo from ' ~ relation ~ ' as _sw_input where '
      ~ stream_windows._sw_key_from(reads, lo) ~ ((' and not ' ~ exclude) if exclude else '') ~ ' group by ' ~ groups | join(', ') -%}
  {%- set summary = 'select cast(max(_sw_fresh_w) as string) as _sw_now_w, cast(max(_sw_s) as string) as _sw_now_s, '
      ~ 'count(case when _sw_fresh_w is not null and _sw_seen_w is null then 1 end) as _sw_now_reopened, '
      ~ 'cast(min(_sw_lo) as string) as _sw_now_lo, cast(max(greatest(_sw_fresh_w, _sw_seen_w)) as string) as _sw_now_hi, '
      ~ 'cast(min(_sw_a) as string) as _sw_now_first_arrival from (' ~ per_group ~ ') as _sw_touched' -%}
  {{ return({'per_group': per_group, 'summary': summary}) }}
{% endmacro %}

{% macro _sw_key_from(reads, bound) %}
  {#- The condition `key >= bound` of a read of the input, and with it `arrival >= A`
      when the recorded arrival floor (F, A) covers the bound (bound >= F): every row
      with key >= F arrived at or after A, so the second condition removes no row the
      first keeps, and Parquet prunes the files (and row groups) by it. reads: a plan,
      or any mapping with 'key', 'arrival_order' and 'floor' ({'key', 'arrival'} or
      none). -#}
  {%- set floor = reads.get('floor') -%}
  {%- set covered = floor is not none and bound is not none and bound >= floor.key -%}
  {{ return(reads.key ~ ' >= ' ~ bound ~ ((' and ' ~ reads.arrival_order ~ ' >= ' ~ floor.arrival) if covered else '')) }}
{% endmacro %}

{% macro _sw_companion(suffix) %}
  {#- A table the model keeps beside its own: <model><suffix> (__late_rows,
      __input_fingerprints, __fenl_state, __fenl_entities). -#}
  {{ return(this.incorporate(path={'identifier': this.identifier ~ suffix})) }}
{% endmacro %}

{% macro _sw_latest(key, arrival_order, relation, where=none) %}
  {#- {'w': the latest time key, 's': the latest arrival position} of `relation` (rows
      matching `where`), as strings; both none when it has no row. -#}
  {{ return(run_query('select cast(max(' ~ key ~ ') as string) as w, cast(max(' ~ arrival_order ~ ') as string) as s from '
      ~ relation ~ (' where ' ~ where if where else '')).rows[0]) }}
{% endmacro %}

{% macro _sw_recorded_watermark(spec=none) %}
  {#- {'w': latest time key, 's': latest arrival position, 'floor': the arrival floor
      {'key': F, 'arrival': A} or none (a table written before floors were kept)}
      from the table property 'W|S[|F|A]' (as strings; F as a number given the
      incremental spec), or none. -#}
  {%- for row in run_query('show tblproperties ' ~ this) if row[0] == 'stream_windows.watermark' -%}
    {%- set parts = row[1].split('|') -%}
    {%- set floor = none -%}
    {%- if parts | length == 4 -%}
      {%- set floor = {'key': (parts[2] | int if spec is none or spec.kind == 'interval' else parts[2] | float), 'arrival': parts[3]} -%}
    {%- endif -%}
    {{ return({'w': parts[0], 's': parts[1], 'floor': floor}) }}
  {%- endfor -%}
  {{ return(none) }}
{% endmacro %}

{#- The plan's way from compile to the hooks: the model's compiled SQL carries it as
    a comment, `/* stream_windows.plan {...} */`, which the hooks read from the
    compiled code of the model they run for. So what a run writes is what its own SQL
    was planned with, whatever ran in the session before. -#}
{% macro _sw_plan_comment(plan) %}
  {%- set carried = {} -%}
  {%- for field in ['full', 'key', 'arrival_order', 'watermark_from', 'since', 'next_floor', 'next_watermark', 'fingerprints', 'prepare', 'commit', 'notes'] -%}
    {%- do carried.update({field: plan[field]}) -%}
  {%- endfor -%}
  {%- do carried.update({'relation': this | string}) -%}
  {#- Every slash escaped (JSON's \/): no comment can open or close inside it. -#}
  {{ return('/* stream_windows.plan ' ~ tojson(carried).replace('/', '\\/') ~ ' */') }}
{% endmacro %}

{% macro _sw_model_plan() %}
  {#- The plan the running model's compiled SQL carries, or none (a model that holds
      no incremental window, or whose compile failed before its plan). -#}
  {%- set code = compiled_code if compiled_code is defined and compiled_code else '' -%}
  {%- set marker = '/* stream_windows.plan ' -%}
  {%- if marker not in code -%}{{ return(none) }}{%- endif -%}
  {%- set plan = fromjson(code.split(marker, 1)[1].split(' */', 1)[0]) -%}
  {%- if plan['relation'] != this | string -%}
    {{ exceptions.raise_compiler_error("stream_windows: model " ~ model.name ~ " carries the incremental plan of " ~ plan['relation'] ~ ", not of " ~ this ~ "; one model holds one incremental window.") }}
  {%- endif -%}
  {{ return(plan) }}
{% endmacro %}

{% macro _sw_prepare_state() %}
  {#- The pre-hook: what the model's SELECT reads and a failed run may leave behind,
      since the next run makes the same (a Fenl state at the cut this run starts
      from; a full build drops the state an older input made). -#}
  {%- set plan = stream_windows._sw_model_plan() if execute else none -%}
  {%- if plan is none -%}{{ return('') }}{%- endif -%}
  {%- for statement in plan.prepare -%}
    {%- do run_query(statement) -%}
    {%- if loop.first -%}{{ stream_windows._sw_failpoint('in_prepare') }}{%- endif -%}
  {%- endfor -%}
  {{ stream_windows._sw_failpoint('after_prepare') }}
  {{ return('') }}
{% endmacro %}

{% macro _sw_commit_state() %}
  {#- The post-hook, after the model's rows are written. First the new watermark is
      worked out (reads only): the model's latest time key and arrival position, from
      the partitions this build wrote and the values recorded before (or, for an
      input-watermark model, from what its run read). Then, in order: the input
      partitions' fingerprints (first, so that the window in which the table and its
      fingerprints disagree is as short as it can be), the plan's commit statements
      (the late-row audit, a Fenl cron window's entities, a full build's Fenl state),
      and last the watermark, with the next arrival floor, into the table property
      stream_windows.watermark. A run that dies before the watermark leaves the older
      one: the next run recomputes from there, to the same rows, and finds its late
      rows again (those already audited stay out). -#}
  {%- set plan = stream_windows._sw_model_plan() if execute else none -%}
  {%- if plan is none -%}{{ return('') }}{%- endif -%}
  {{ stream_windows._sw_failpoint('before_commit') }}
  {%- set floor = ('|' ~ plan.next_floor) if plan.next_floor is not none else '' -%}
  {%- set watermark = none -%}
  {%- if plan.watermark_from == 'input' -%}
    {%- set watermark = plan.next_watermark -%}
  {%- else -%}
    {%- set partial = not plan.full -%}
    {%- set now = stream_windows._sw_latest(plan.key, plan.arrival_order, this, ('time_partition >= ' ~ plan.since) if partial else none) -%}
    {%- set before = stream_windows._sw_recorded_watermark() if partial else none -%}
    {%- set w = now['w'] -%}
    {%- set s = now['s'] -%}
    {%- if before is not none -%}
      {%- set w = before['w'] if w is none or (before['w'] | float) > (w | float) else w -%}
      {%- set s = before['s'] if s is none or (before['s'] | float) > (s | float) else s -%}
    {%- endif -%}
    {%- set watermark = (w ~ '|' ~ s) if w is not none else none -%}
  {%- endif -%}
  {%- if watermark is not none -%}
    {{ stream_windows._sw_record_fingerprints(plan.fingerprints, watermark.split('|')[1]) }}
  {%- endif -%}
  {%- for statement in plan.commit -%}
    {%- do run_query(statement) -%}
    {%- if loop.first -%}{{ stream_windows._sw_failpoint('in_commit') }}{%- endif -%}
  {%- endfor -%}
  {{ stream_windows._sw_failpoint('in_commit') if not plan.commit }}
  {%- for note in plan.notes -%}{%- do log(note, info=true) -%}{%- endfor -%}
  {%- if watermark is not none -%}
    {%- do run_query("alter table " ~ this ~ " set tblproperties ('stream_windows.watermark' = '" ~ watermark ~ floor ~ "')") -%}
  {%- endif -%}
  {{ return('') }}
{% endmacro %}

{% macro _sw_fingerprint_query(fingerprints, where, s, recorded=none) %}
  {#- Per input partition (its start key), the count and an order-free checksum (the
      sum of each row's xxhash64) of the input rows matching `where` and processed by
      the build that recorded the partition: arrival position <= its recorded_arrival
      in `recorded` (a fingerprints table), or <= s where none is recorded. -#}
  {%- set hashed = 'select ' ~ fingerprints.part ~ ' as _sw_part, ' ~ fingerprints.arrival_order ~ ' as _sw_arrival, xxhash64(struct(*)) as _sw_hash from '
      ~ fingerprints.input ~ ' as _sw_input where ' ~ where -%}
  {%- if recorded is not none -%}
    {%- set hashed = 'select _sw_hashed.* from (' ~ hashed ~ ') as _sw_hashed left join ' ~ recorded ~ ' as _sw_recorded on _sw_hashed._sw_part = _sw_recorded.input_partition'
        ~ ' where _sw_hashed._sw_arrival <= coalesce(_sw_recorded.recorded_arrival, ' ~ s ~ ')' -%}
  {%- else -%}
    {%- set hashed = 'select * from (' ~ hashed ~ ') as _sw_hashed where _sw_arrival <= ' ~ s -%}
  {%- endif -%}
  {{ return('select _sw_part as input_partition, count(*) as input_rows, ' ~ stream_windows._sw_hash_sum('_sw_hash') ~ ' as input_checksum from (' ~ hashed ~ ') as _sw_rows group by _sw_part') }}
{% endmacro %}

{% macro _sw_hash_sum(hash) %}
  {#- sum(hash) over a group's bigint hashes as decimal(38, 0): the same integer as
      sum(cast(hash as decimal(38, 0))), so records written either way compare equal,
      from three bigint sums of the hash's pieces (its top 20 bits, signed, and two
      22-bit pieces), combined once per group. Spark's decimal sum per row was half of
      the comparison's time (10,000,000 rows: 2.57 s, against 1.28 s for bigint sums);
      a piece's sum cannot overflow below 2^41 rows in a group. As
      streamwindows.spark.fingerprints.hash_sum. -#}
  {%- set pieces = [] -%}
  {%- for shift, piece in [(44, 'shiftright(' ~ hash ~ ', 44)'), (22, 'shiftright(' ~ hash ~ ', 22) & 4194303'), (0, hash ~ ' & 4194303')] -%}
    {%- do pieces.append('cast(sum(' ~ piece ~ ') as decimal(38, 0)) * ' ~ 2 ** shift) -%}
  {%- endfor -%}
  {{ return('cast(' ~ pieces | join(' + ') ~ ' as decimal(38, 0))') }}
{% endmacro %}

{% macro _sw_record_fingerprints(fingerprints, s) %}
  {#- The commit's record of the input partitions this build processed: those it
      recomputed, and those its new rows fell in (late rows audited below the
      recomputed span), are counted now (arrival position <= s, which each row keeps
      as recorded_arrival); the others are kept as recorded (the plan found them
      unchanged). The table is small (a row per partition), rewritten whole from the
      rows collected here: Spark cannot overwrite a table it reads. -#}
  {%- if fingerprints.from_key is none -%}
    {%- set where = fingerprints.key ~ ' is not null' -%}
  {%- elif not fingerprints.new_rows_below -%}
    {#- Every new row lies in the recomputed span (no late row, or late rows
        reprocessed from their partition on): the span's rows alone, read with the
        arrival floor, so Parquet skips the older files (an OR with the partitions of
        new rows below the span reads and joins every row of the input: 2.5 s of a
        one-day run's 6 s over 10M rows). -#}
    {%- set where = stream_windows._sw_key_from(fingerprints, fingerprints.from_key) -%}
  {%- else -%}
    {%- set where = '(' ~ fingerprints.key ~ ' >= ' ~ fingerprints.from_key ~ ' or ' ~ fingerprints.part ~ ' in (select ' ~ fingerprints.part ~ ' from ' ~ fingerprints.input
        ~ ' as _sw_new where ' ~ fingerprints.arrival_order ~ ' > ' ~ fingerprints.fresh_after ~ ' and ' ~ fingerprints.key ~ ' < ' ~ fingerprints.from_key ~ '))' -%}
  {%- endif -%}
  {%- set rows = run_query('select *, cast(' ~ s ~ ' as double) as recorded_arrival from (' ~ stream_windows._sw_fingerprint_query(fingerprints, where, s) ~ ') as _sw_fresh').rows | list -%}
  {%- if fingerprints.from_key is not none and load_relation(stream_windows._sw_companion('__input_fingerprints')) is not none -%}
    {%- set counted = [] -%}
    {%- for row in rows -%}{%- do counted.append(row[0] | float) -%}{%- endfor -%}
    {%- set kept = [] -%}
    {%- for row in run_query('select input_partition, input_rows, input_checksum, recorded_arrival from ' ~ fingerprints.table ~ ' where input_partition < ' ~ fingerprints.from_key).rows if (row[0] | float) not in counted -%}
      {%- do kept.append(row) -%}
    {%- endfor -%}
    {%- set rows = kept + rows -%}
  {%- endif -%}
  {%- do run_query('create table if not exists ' ~ fingerprints.table ~ ' (input_partition double, input_rows bigint, input_checksum decimal(38, 0), recorded_arrival double) using parquet') -%}
  {%- set values = [] -%}
  {%- for row in rows -%}{%- do values.append('(' ~ row[0] ~ ', ' ~ row[1] ~ ', ' ~ row[2] ~ ', ' ~ row[3] ~ ')') -%}{%- endfor -%}
  {%- if values -%}
    {%- do run_query('insert overwrite table ' ~ fingerprints.table ~ ' select * from values ' ~ values | join(', ')) -%}
  {%- else -%}
    {%- do run_query('truncate table ' ~ fingerprints.table) -%}
  {%- endif -%}
  {{ return('') }}
{% endmacro %}

{% macro _sw_failpoint(point) %}
  {#- Fault injection, for the tests that prove the protocol safe: with the
      environment variable STREAM_WINDOWS_FAILPOINT=<point> a run fails at that point of
      its hooks ('in_prepare': after the first prepare statement; 'after_prepare': just
      before the model's write; 'before_commit': just after it; 'in_commit': after the
      first commit statement, or before the watermark when there is none). An
      environment variable read while the run executes, not a var: dbt parses the
      whole project again whenever --vars change (about 3 s), and a var is not needed
      while parsing. -#}
  {%- if env_var('STREAM_WINDOWS_FAILPOINT', '') == point -%}
    {{ exceptions.raise_compiler_error("stream_windows: failpoint '" ~ point ~ "' reached in model " ~ model.name ~ " (STREAM_WINDOWS_FAILPOINT)") }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_counted_context(relation, plan, spec, partitions, n, counted, rank_expr) %}
  {#- The input of a recomputation whose windows reach back a count, not a time: the
      rows of the recomputed partitions (key >= from_key), and before them each
      partition's (group's) n latest `counted` ('rows', or distinct 'times') among the
      rows not recomputed, picked by `rank_expr` (a row_number() or dense_rank() over
      the group, newest first). -#}
  {%- set kept = (' and not ' ~ plan.exclude) if plan.exclude else '' -%}
  {%- set recent = 'select * from ' ~ relation ~ ' where ' ~ stream_windows._sw_key_from(plan, plan.from_key) ~ kept -%}
  {%- if n < 1 -%}{{ return('(' ~ recent ~ ')') }}{%- endif -%}
  {#- The lookback is the shortest span (1, 2, 3, 4, 6, 8, 12, ... partitions) in which
      every group with recomputed rows finds its n. A query counts, per group, its older
      rows (or distinct times) in each span up to 16 partitions back, and when a group
      is short, a second one up to the oldest input (16, 64, 256, ... partitions), over
      the group and time columns only (a query's cost is mostly Spark's fixed cost per
      job, so the first reaches far): most runs ask once, and the recomputation then
      reads little more than the context it needs.
      A span that ends before the oldest input, or the last search, reads every older
      row of the groups still short. -#}
  {%- set step = stream_windows._sw_step(spec) -%}
  {%- set group_list = partitions | join(', ') if partitions else '' -%}
  {%- set spans = [1, 2, 3, 4] -%}
  {%- for power in range(1, 11) -%}{%- do spans.extend([6 * 4 ** (power - 1), 8 * 4 ** (power - 1), 12 * 4 ** (power - 1), 16 * 4 ** (power - 1)]) -%}{%- endfor -%}
  {%- set search = namespace(reach=16, span=none, earliest=none, short_groups=none) -%}
  {%- for attempt in range(11) if search.span is none -%}
    {%- set tried = spans | select('le', search.reach) | list -%}
    {%- set far_from = plan.from_key - step * search.reach -%}
    {%- set keys = 'select ' ~ ('distinct ' if counted == 'times' else '') ~ (group_list ~ ', ' if partitions else '') ~ plan.key ~ ' as _sw_k from '
        ~ relation ~ ' as _sw_input where ' ~ stream_windows._sw_key_from(plan, far_from) ~ kept -%}
    {%- set counts = [] -%}
    {%- for span in tried -%}
      {%- do counts.append('count(case when _sw_k >= ' ~ (plan.from_key - step * span) ~ ' and _sw_k < ' ~ plan.from_key ~ ' then 1 end) as _sw_in_' ~ span) -%}
    {%- endfor -%}
    {%- set per_group = 'select ' ~ counts | join(', ') ~ ' from (' ~ keys ~ ') as _sw_keys' ~ (' group by ' ~ group_list if partitions else '')
        ~ ' having max(_sw_k) >= ' ~ plan.from_key -%}
    {%- set least = [] -%}
    {%- for span in tried -%}{%- do least.append('min(_sw_in_' ~ span ~ ') as _sw_in_' ~ span) -%}{%- endfor -%}
    {%- set found = run_query('select ' ~ least | join(', ') ~ ' from (' ~ per_group ~ ') as _sw_groups').rows[0] -%}
    {%- for span in tried if search.span is none and (found['_sw_in_' ~ span] is none or found['_sw_in_' ~ span] >= n) -%}
      {%- set search.span = span -%}
    {%- endfor -%}
    {%- if search.span is none -%}
      {%- if search.earliest is none -%}
        {%- set search.earliest = run_query('select min(' ~ plan.key ~ ') as k from ' ~ relation ~ ' as _sw_input where ' ~ plan.key ~ ' < ' ~ plan.from_key).rows[0]['k'] -%}
      {%- endif -%}
      {%- if search.earliest is none or far_from <= search.earliest or attempt == 10 -%}
        {%- set search.span = search.reach -%}
        {%- set search.short_groups = 'select ' ~ (group_list if partitions else '1') ~ ' from (' ~ keys ~ ') as _sw_keys' ~ (' group by ' ~ group_list if partitions else '')
            ~ ' having max(_sw_k) >= ' ~ plan.from_key ~ ' and count(case when _sw_k < ' ~ plan.from_key ~ ' then 1 end) < ' ~ n -%}
      {%- else -%}
        {#- The oldest key is known now: the next search reaches it (16, 64, 256, ...
            partitions, the first that gets there), one query where reaching 4x further
            each time took one per step (a sparse input: five for a few purchases over
            years). The shortest span found is the same: every span up to the reach
            is counted. -#}
        {%- set search.reach = search.reach * 4 -%}
        {%- for _ in range(10) if plan.from_key - step * search.reach > search.earliest and search.reach < 16 * 4 ** 10 -%}
          {%- set search.reach = search.reach * 4 -%}
        {%- endfor -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set near_from = plan.from_key - step * search.span -%}
  {%- set before = 'select * from ' ~ relation ~ ' where ' ~ stream_windows._sw_key_from(plan, near_from) ~ ' and ' ~ plan.key ~ ' < ' ~ plan.from_key ~ kept -%}
  {%- if search.short_groups is not none -%}
    {%- set older = 'select * from ' ~ relation ~ ' where ' ~ plan.key ~ ' < ' ~ near_from ~ kept -%}
    {%- if partitions -%}
      {%- set on = [] -%}
      {%- for column in partitions -%}{%- do on.append('_sw_older.' ~ column ~ ' <=> _sw_short.' ~ column) -%}{%- endfor -%}
      {%- set before = before ~ ' union all select _sw_older.* from (' ~ older ~ ') as _sw_older left semi join (' ~ search.short_groups ~ ') as _sw_short on ' ~ on | join(' and ') -%}
    {%- else -%}
      {%- set before = before ~ ' union all ' ~ older -%}
    {%- endif -%}
  {%- endif -%}
  {{ return('(' ~ recent ~ ' union all select * except (_sw_context_rank) from (select *, ' ~ rank_expr ~ ' as _sw_context_rank from ('
      ~ before ~ ') as _sw_before) as _sw_context where _sw_context_rank <= ' ~ n ~ ')') }}
{% endmacro %}
