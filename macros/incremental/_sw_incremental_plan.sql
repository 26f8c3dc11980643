{#- The incremental plan (docs/incremental.md, "Plan, write, commit"): what a scheduled
    run of a window model reads, recomputes and records, computed while the model
    compiles, by queries that only read. -#}

{% macro _sw_incremental_plan(macro_name, spec, relation, arrival_order, partitions, reach, watermark_from='output', horizon=none, full=false) %}
  {#- What this run recomputes, and what its hooks write (the plan, below; full true
      for a full build, or when `full` asks for one), else {'from_key': the first
      recomputed partition's start, 'input_from_key': from_key - reach_past (none when
      the lookback is counted in rows), 'exclude': a condition on input rows that
      never enter a window (audited late rows) or none, 'key', and two that only an
      input-watermark plan knows (others give none): 'fresh_groups_unseen_since_cut'
      (below) and 'kept_key_range', {'from_key', 'lo', 'hi'}: the smallest and largest
      key of the kept input rows with keys from from_key on (the first recomputed
      partition's start before a reopen moved it back), from the same aggregation}.
      reach: the window's reach (_sw_reach), in key units.
      watermark_from 'input' is for windows whose rows do not show every input row
      they hold (a count window's output has no arrival position, and a group with
      fewer than N start times has no row yet): W and S are then taken from the input
      this run reads, and (reach.reopen) a run also recomputes the partition of each
      touched group's last processed time, where its provisional last window lies.
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
  {%- set reach_past = stream_windows._sw_reach_back(reach) -%}
  {%- set reach_future = reach.future -%}
  {{- stream_windows._sw_check_incremental_config(macro_name) -}}
  {%- if is_incremental() and relation is not string and relation.is_cte is defined and relation.is_cte -%}
    {#- The plan's queries run before the model's and cannot see its CTEs. -#}
    {{ exceptions.raise_compiler_error(macro_name ~ "() in model " ~ model.name ~ ": an incremental run plans from its input's table, and "
        ~ relation ~ " is a CTE (an ephemeral model): give an incremental model a table or view as input.") }}
  {%- endif -%}
  {%- if is_incremental() and 'time_partition' not in (adapter.get_columns_in_relation(this) | map(attribute='name') | list) -%}
    {{ exceptions.raise_compiler_error(macro_name ~ "() in model " ~ model.name ~ ": the table " ~ this
        ~ " was built without time_partition (before the model was incremental); rebuild it once with --full-refresh.") }}
  {%- endif -%}
  {%- set seen = stream_windows._sw_recorded_watermark(spec) if is_incremental() and not full else none -%}
  {%- if seen is none and is_incremental() and not full and watermark_from == 'output' -%}
    {#- No recorded watermark (the build that made the table died before its post-hook):
        read it from the data once (an input-watermark model rebuilds every partition). -#}
    {%- set seen = stream_windows._sw_latest(key, arrival_order, this) -%}
    {%- set seen = {'w': seen['w'], 's': seen['s'], 'floor': none, 'input_files': none} if seen['w'] is not none else none -%}
  {%- endif -%}
  {%- set step = stream_windows._sw_step(spec) -%}
  {%- set horizon = horizon if horizon is not none else (reach_past if reach_past is not none else 16 * step) -%}
  {%- set audit = stream_windows._sw_companion('__late_rows') -%}
  {%- set fingerprints = {'table': stream_windows._sw_companion('__input_fingerprints') | string, 'input': relation | string,
      'part': stream_windows._sw_partition_sql(spec, key), 'key': key, 'arrival_order': arrival_order, 'from_key': none, 'fresh_after': none,
      'floor': none, 'new_rows_below': false} -%}
  {%- set plan = {'full': seen is none, 'nothing_new': false, 'key': key, 'arrival_order': arrival_order, 'watermark_from': watermark_from, 'since': 'all',
      'floor': none, 'next_floor': none, 'next_watermark': none, 'fingerprints': fingerprints, 'input_files': none,
      'prepare': [], 'commit': [], 'notes': []} -%}
  {%- if seen is none -%}
    {{ return(stream_windows._sw_full_build_plan(plan, spec, relation, key, arrival_order, watermark_from, reach_future, horizon, audit)) }}
  {%- endif -%}
  {%- set w = seen['w'] | int if spec.kind == 'interval' else seen['w'] | float -%}
  {%- set s = seen['s'] -%}
  {%- set reads = {'key': key, 'arrival_order': arrival_order, 'floor': seen['floor']} -%}
  {#- The next arrival floor, at the usual first read of the next run. -#}
  {%- set next_floor_key = stream_windows._sw_partition_start(spec, w - reach_future) - horizon -%}
  {%- set next_floor -%}
    select cast(min({{ arrival_order }}) as string) as _sw_next_floor
    from {{ relation }} as _sw_input
    where {{ stream_windows._sw_key_from(reads, next_floor_key) }}
  {%- endset -%}
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
  {%- set first_late -%}
    select
        {{ arrival_order }},
        cast({{ spec.time_column }} as string) as t,
        {{ key }} as k,
        {{ (partitions | join(', ') ~ ',') if partitions else '' }}
        count({{ key }}) over () as n,
        min({{ key }}) over () as earliest
    from (
        select * from {{ relation }} where {{ is_fresh }} and ({{ late_condition }} or {{ key }} is null)
        union all
        select * from {{ relation }} where {{ arrival_order }} is null
    ) as _sw_fresh
    order by {{ unplaceable }} desc, {{ arrival_order }}
    limit 1
  {%- endset -%}
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
      earliest that differs), unless the input-file record shows the history as that
      build saw it (_sw_input_files.sql): a few footer counts instead of a pass over
      every row. -#}
  {%- set check_until = stream_windows._sw_partition_start(spec, w - reach_future) -%}
  {%- set recorded = load_relation(stream_windows._sw_companion('__input_fingerprints')) -%}
  {%- set input_tables = stream_windows._sw_input_tables(relation, arrival_order) -%}
  {%- set files = stream_windows._sw_input_files_questions(input_tables, seen.input_files, relation, arrival_order, s) if input_tables is not none else none -%}
  {%- if files is not none -%}{%- do questions.extend(files.questions) -%}{%- endif -%}
  {%- set earliest_change = none -%}
  {%- if recorded is not none -%}
    {%- set current = stream_windows._sw_fingerprint_query(fingerprints, key ~ ' < ' ~ check_until, s, recorded) -%}
    {%- set earliest_change -%}
      (select
          min(_sw_part) as _sw_changed_part,
          min_by(_sw_was, _sw_part) as _sw_changed_was,
          min_by(_sw_is, _sw_part) as _sw_changed_is
      from (
          select
              coalesce(_sw_now_fp.input_partition, _sw_was_fp.input_partition) as _sw_part,
              _sw_was_fp.input_rows as _sw_was,
              _sw_now_fp.input_rows as _sw_is
          from ({{ current }}) as _sw_now_fp
          full outer join (select * from {{ recorded }} where input_partition < {{ check_until }}) as _sw_was_fp
          on _sw_now_fp.input_partition = _sw_was_fp.input_partition
          where not (_sw_now_fp.input_rows <=> _sw_was_fp.input_rows and _sw_now_fp.input_checksum <=> _sw_was_fp.input_checksum)
      ) as _sw_changes) as _sw_changed
    {%- endset -%}
  {%- endif -%}
  {%- set all_questions -%}
    select *
    from {{ questions | join('\ncross join ') }}
    left join (select *, true as _sw_found from ({{ first_late }}) as _sw_first) as _sw_first_late on true
  {%- endset -%}
  {%- set now = run_query(all_questions).rows[0] -%}
  {%- set row = now if now['_sw_found'] else none -%}
  {%- set history_unchanged = false -%}
  {%- if files is not none -%}
    {%- set verdict = stream_windows._sw_input_files_verdict(input_tables, seen.input_files, files.matching, now) -%}
    {%- set history_unchanged = verdict[0] -%}
    {%- do plan.update({'input_files': verdict[1]}) -%}
  {%- endif -%}
  {#- Nothing new: the history is as the last build saw it, no file the input reads is
      newer than that build's (so no row arrived since), and no row the plan cannot
      place. The table already equals a full rebuild over this input, so the run
      recomputes and writes nothing: the model's SQL selects no row
      (_sw_nothing_new_open/_close), and its hooks leave the watermark, the record and
      the fingerprints as they are. -#}
  {%- if history_unchanged and row is none and not stream_windows._sw_input_files_grew(input_tables, now) -%}
    {%- do plan.update({'nothing_new': true}) -%}
    {%- do plan.notes.append('stream_windows: ' ~ model.name ~ ': nothing new in ' ~ relation
        ~ ' since the last run (no new file, the history as it processed it); the run writes nothing.') -%}
    {{ return(plan) }}
  {%- endif -%}
  {%- set change = run_query('select * from ' ~ earliest_change).rows[0] if earliest_change is not none and not history_unchanged else none -%}
  {#- No row from the floor's key on yet: every later row arrives after S. -#}
  {%- set next_floor_arrival = now['_sw_now_first_arrival'] if floor_from_touched else now['_sw_next_floor'] -%}
  {%- do plan.update({'next_floor': next_floor_key ~ '|' ~ (next_floor_arrival if next_floor_arrival is not none else s)}) -%}
  {%- if row is not none -%}
    {%- set late = stream_windows._sw_plan_late_rows(macro_name, plan, spec, row, relation, partitions, arrival_order, w,
        is_fresh, late_condition, audit, exclude, from_key, reach_future) -%}
    {%- set exclude = late.exclude -%}
    {%- set from_key = late.from_key -%}
  {%- endif -%}
  {%- set changed = change is not none and change['_sw_changed_part'] is not none -%}
  {%- if changed -%}
    {%- set from_key = stream_windows._sw_plan_changed_rows(macro_name, spec, change, from_key, reach_future) -%}
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
    {%- if reach.reopen and now['_sw_now_reopened'] > 0 -%}
      {%- set older = key ~ ' < ' ~ lo ~ ' and ' ~ arrival_order ~ ' <= ' ~ s ~ kept -%}
      {%- set unseen = 'select * from (' ~ touched.per_group ~ ') as _sw_groups where _sw_fresh_w is not null and _sw_seen_w is null' -%}
      {%- set reopened_from = stream_windows._sw_reopened_from(relation, key, partitions, older, unseen) -%}
      {%- if reopened_from is not none -%}
        {%- set from_key = [from_key, reopened_from | int if spec.kind == 'interval' else reopened_from | float] | min -%}
      {%- endif -%}
    {%- endif -%}
    {%- set next_w = w if now['_sw_now_w'] is none or (now['_sw_now_w'] | float) < w else now['_sw_now_w'] -%}
    {%- set next_s = s if now['_sw_now_s'] is none or (now['_sw_now_s'] | float) < (s | float) else now['_sw_now_s'] -%}
    {%- do plan.update({'next_watermark': next_w ~ '|' ~ next_s}) -%}
  {%- endif -%}
  {%- set from_key = stream_windows._sw_partition_start(spec, from_key) -%}
  {%- set first_day = modules.datetime.datetime.utcfromtimestamp(from_key / 1000000).strftime('%Y-%m-%d') if spec.kind == 'interval' else none -%}
  {%- set first_partition = ("date'" ~ first_day ~ "'") if spec.kind == 'interval' else from_key -%}
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

{% macro _sw_full_build_plan(plan, spec, relation, key, arrival_order, watermark_from, reach_future, horizon, audit) %}
  {#- The plan of a full build (no watermark recorded, or --full-refresh): `plan` with
      what its commit writes. -#}
  {#- A full build holds every input row, the audited late rows too: their audit goes
      with it, after the write (a failed build keeps it), else the next scheduled run
      would take them out of the windows again. -#}
  {%- do plan.commit.append('drop table if exists ' ~ audit) -%}
  {%- if watermark_from == 'input' or stream_windows._sw_building() -%}
    {%- set now = stream_windows._sw_latest(key, arrival_order, relation) -%}
    {%- if watermark_from == 'input' and now['w'] is not none -%}
      {%- do plan.update({'next_watermark': now['w'] ~ '|' ~ now['s']}) -%}
    {%- endif -%}
    {#- The first arrival floor, for the first scheduled run: one pass over the rows
        from its key (by `dbt run` and `dbt build` only; a compile need not pay it). -#}
    {%- if now['w'] is not none and stream_windows._sw_building() -%}
      {%- set newest = now['w'] | int if spec.kind == 'interval' else now['w'] | float -%}
      {%- set floor_key = stream_windows._sw_partition_start(spec, newest - reach_future) - horizon -%}
      {%- set first_arrival -%}
        select cast(min({{ arrival_order }}) as string) as a
        from {{ relation }} as _sw_input
        where {{ key }} >= {{ floor_key }}
      {%- endset -%}
      {%- set floor_arrival = run_query(first_arrival).rows[0]['a'] -%}
      {%- do plan.update({'next_floor': floor_key ~ '|' ~ (floor_arrival if floor_arrival is not none else now['s'])}) -%}
    {%- endif -%}
  {%- endif -%}
  {#- The first input-file record, for the next run's check (by `dbt run` and `dbt
      build` only). -#}
  {%- set input_tables = stream_windows._sw_input_tables(relation, arrival_order) if stream_windows._sw_building() else none -%}
  {%- if input_tables is not none -%}
    {%- set files = stream_windows._sw_input_files_questions(input_tables, none, relation, arrival_order, none) -%}
    {%- set counted = run_query('select * from ' ~ files.questions | join(' cross join ')).rows[0] -%}
    {%- do plan.update({'input_files': stream_windows._sw_input_files_verdict(input_tables, none, false, counted)[1]}) -%}
  {%- endif -%}
  {{ return(plan) }}
{% endmacro %}
