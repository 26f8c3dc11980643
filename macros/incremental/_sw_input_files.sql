{#- The input-file record (docs/incremental.md, "Rows changed in place"): what lets a
    scheduled run skip hashing the whole history. A run must notice input rows that
    changed after a build processed them; the fingerprints (_sw_fingerprints.sql) find
    them by counting and hashing every partition below the recomputed span, a pass over
    all of the history on every run. Files do not change in place in a lakehouse: an
    update, a delete or a compaction writes new files and drops old ones. So each build
    records, per table its input reads, the newest file's modification time M and the
    row count N of its files, and the hash of the input's optimized plan (a view's
    definition, nested views expanded). The next run's history is as that build saw it
    when the plan is the same and each table's files up to M still hold N rows, and
    the newer files hold no row the build processed (arrival position <= S): then the
    fingerprints' comparison is skipped. Every number comes from a file's footer or
    from the newer files alone (Spark prunes files by _metadata filters), so the check
    costs the same at any history. Otherwise (no record, another plan, a file gone or
    rewritten, an input that is not a table of files) the run compares fingerprints as
    before. -#}

{% macro _sw_input_tables(relation, arrival_order=none) %}
  {#- {'plan': the md5 of `relation`'s optimized plan (expression ids dropped),
      'tables': the tables its leaves read, 'direct': whether `relation`'s rows are
      one table's, one for one: the table as it stands, or a projection of it that
      passes `arrival_order` through (a staging view adding or renaming other
      columns), so that its newer files' rows are the input's new rows}, or none when
      a leaf is not a table of files (values, a JDBC source, an in-memory or cached
      relation): rows there change without a file changing. -#}
  {%- if relation is not string and relation.is_cte is defined and relation.is_cte -%}{{ return(none) }}{%- endif -%}
  {%- set shown = run_query('set spark.sql.debug.maxToStringFields').rows -%}
  {%- set before = shown[0][1] if shown | length > 0 else none -%}
  {#- Explain abbreviates lists of more than 25 fields ("... 3 more fields"), which
      would hide a change in a wide view's columns from the plan's hash. -#}
  {%- do run_query('set spark.sql.debug.maxToStringFields=100000') -%}
  {%- set explained = run_query('explain extended select * from ' ~ relation).rows[0][0] -%}
  {%- if before is not none and before != '<undefined>' -%}
    {%- do run_query('set spark.sql.debug.maxToStringFields=' ~ before) -%}
  {%- else -%}
    {%- do run_query('reset spark.sql.debug.maxToStringFields') -%}
  {%- endif -%}
  {%- if '== Optimized Logical Plan ==' not in explained or '== Physical Plan ==' not in explained -%}
    {{ return(none) }}
  {%- endif -%}
  {%- set optimized = explained.split('== Optimized Logical Plan ==')[1].split('== Physical Plan ==')[0] -%}
  {%- set optimized = modules.re.sub('#[0-9]+L?', '', optimized).strip() -%}
  {%- if ' more fields' in optimized -%}{{ return(none) }}{%- endif -%}
  {#- The leaves: a line is a leaf when the next one is not nested deeper. -#}
  {%- set lines = optimized.split('\n') -%}
  {%- set tables = [] -%}
  {%- for line in lines -%}
    {%- set depth = line | length - line.lstrip(' :+-') | length -%}
    {%- set next_depth = (lines[loop.index] | length - lines[loop.index].lstrip(' :+-') | length) if not loop.last else -1 -%}
    {%- if next_depth <= depth -%}
      {%- set leaf = modules.re.match('^Relation ([A-Za-z0-9_.`]+)\\[.*\\] (parquet|orc|avro|json|csv|text)$', line.lstrip(' :+-')) -%}
      {%- if leaf is none -%}{{ return(none) }}{%- endif -%}
      {%- if leaf.group(1) not in tables -%}{%- do tables.append(leaf.group(1)) -%}{%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set projected = lines | length == 2 and arrival_order is not none and lines[0].startswith('Project [')
      and lines[0].endswith(']') and arrival_order | trim in stream_windows._sw_top_level_items(lines[0][9:-1]) -%}
  {%- set direct = tables | length == 1 and (lines | length == 1 or projected) -%}
  {{ return({'plan': local_md5(optimized), 'tables': tables | sort, 'direct': direct}) }}
{% endmacro %}

{% macro _sw_top_level_items(text) %}
  {#- A plan's list (`a, f(b, c) AS d`) split at its top-level commas, each trimmed. -#}
  {%- set state = namespace(depth=0, current='', items=[]) -%}
  {%- for char in text -%}
    {%- if char in '([{' -%}{%- set state.depth = state.depth + 1 -%}
    {%- elif char in ')]}' -%}{%- set state.depth = state.depth - 1 -%}
    {%- endif -%}
    {%- if char == ',' and state.depth == 0 -%}
      {%- set state.items = state.items + [state.current | trim] -%}
      {%- set state.current = '' -%}
    {%- else -%}
      {%- set state.current = state.current ~ char -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(state.items + [state.current | trim]) }}
{% endmacro %}

{% macro _sw_input_files_questions(input, recorded, relation, arrival_order, s) %}
  {#- The plan query's subqueries for the input-file check: each table's row count
      (from the files' footers) and its files newer than the recorded M (their rows,
      newest time, and rows arrived <= s when the input is that table); for a view,
      the rows arrived <= s (one column read over the history: the view's rows cannot
      be told apart by file). Without a usable record, each table's newest time over
      all its files, for this run's record. -#}
  {%- set questions = [] -%}
  {#- The same plan reads the same tables, in the same (sorted) order as recorded. -#}
  {%- set matching = recorded is not none and recorded.plan == input.plan and recorded.files | length == input.tables | length -%}
  {%- for table in input.tables -%}
    {%- set i = loop.index0 -%}
    {%- do questions.append('(select count(*) as _sw_files_n' ~ i ~ ' from ' ~ table ~ ') as _sw_files_all' ~ i) -%}
    {%- if matching -%}
      {%- set newer = "_metadata.file_modification_time > timestamp_micros(" ~ recorded.files[i][0] ~ ")" -%}
      {%- set arrived = (', count_if(' ~ arrival_order ~ ' <= ' ~ s ~ ') as _sw_files_old' ~ i) if input.direct else '' -%}
      {%- do questions.append('(select count(*) as _sw_files_new' ~ i ~ ', cast(unix_micros(max(_metadata.file_modification_time)) as string) as _sw_files_m' ~ i
          ~ arrived ~ ' from ' ~ table ~ ' where ' ~ newer ~ ') as _sw_files_newer' ~ i) -%}
    {%- else -%}
      {%- do questions.append('(select cast(unix_micros(max(_metadata.file_modification_time)) as string) as _sw_files_m' ~ i ~ ' from ' ~ table
          ~ ') as _sw_files_newest' ~ i) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if matching and not input.direct -%}
    {%- do questions.append('(select count_if(' ~ arrival_order ~ ' <= ' ~ s ~ ') as _sw_files_arrived from ' ~ relation ~ ') as _sw_files_view') -%}
  {%- endif -%}
  {{ return({'questions': questions, 'matching': matching}) }}
{% endmacro %}

{% macro _sw_input_files_verdict(input, recorded, matching, now) %}
  {#- (whether the history is as the recorded build saw it, this run's record
      {'plan', 'tables': [[table, M, N], ...], 'direct'}) from the plan query's row. -#}
  {%- set tables = [] -%}
  {%- set unchanged = [matching] -%}
  {%- for table in input.tables -%}
    {%- set i = loop.index0 -%}
    {%- set n = now['_sw_files_n' ~ i] | int -%}
    {%- if matching -%}
      {%- set m = now['_sw_files_m' ~ i] if now['_sw_files_m' ~ i] is not none else recorded.files[i][0] -%}
      {%- if n - (now['_sw_files_new' ~ i] | int) != recorded.files[i][1] | int -%}{%- do unchanged.append(false) -%}{%- endif -%}
      {%- if input.direct and (now['_sw_files_old' ~ i] or 0) | int > 0 -%}{%- do unchanged.append(false) -%}{%- endif -%}
    {%- else -%}
      {%- set m = now['_sw_files_m' ~ i] if now['_sw_files_m' ~ i] is not none else '0' -%}
    {%- endif -%}
    {%- do tables.append([table, m, n]) -%}
  {%- endfor -%}
  {%- if matching and not input.direct and (now['_sw_files_arrived'] | int) != recorded.arrived | int -%}
    {%- do unchanged.append(false) -%}
  {%- endif -%}
  {{ return((unchanged | select('equalto', false) | list | length == 0, {'plan': input.plan, 'tables': tables, 'direct': input.direct})) }}
{% endmacro %}

{% macro _sw_input_files_grew(input, now) %}
  {#- Whether a table the input reads has rows in files newer than the recorded M (read
      from the plan query's row, after a verdict that found the record matching). -#}
  {%- for table in input.tables -%}
    {%- if (now['_sw_files_new' ~ loop.index0] or 0) | int > 0 -%}{{ return(true) }}{%- endif -%}
  {%- endfor -%}
  {{ return(false) }}
{% endmacro %}

{% macro _sw_input_files_record(record, relation, arrival_order, s) %}
  {#- The commit's record (the table property's JSON), or none when the input's files
      changed while the run ran (a table's rows or its files newer than M differ from
      what the plan counted): the next run then compares fingerprints. A view's record
      also counts its rows arrived <= s, this build's S. -#}
  {%- set checks = [] -%}
  {%- for table, m, n in record.tables -%}
    {%- do checks.append('(select count(*) from ' ~ table ~ ') = ' ~ n) -%}
    {%- do checks.append('(select count(*) from ' ~ table ~ ' where _metadata.file_modification_time > timestamp_micros(' ~ m ~ ')) = 0') -%}
  {%- endfor -%}
  {%- set arrived = ('(select count_if(' ~ arrival_order ~ ' <= ' ~ s ~ ') from ' ~ relation ~ ')') if not record.direct else 'cast(null as bigint)' -%}
  {%- set check -%}
    select {{ checks | join(' and ') if checks else 'true' }} as same, {{ arrived }} as arrived
  {%- endset -%}
  {%- set row = run_query(check).rows[0] -%}
  {%- if not row['same'] -%}{{ return(none) }}{%- endif -%}
  {#- Without the tables' names: Spark's `show tblproperties` redacts a value holding
      some of them (hourly_temperatures reads as *********(redacted)). -#}
  {%- set files = [] -%}
  {%- for table, m, n in record.tables -%}{%- do files.append([m, n]) -%}{%- endfor -%}
  {%- set kept = {'plan': record.plan, 'files': files, 'direct': record.direct, 'arrived': row['arrived']} -%}
  {{ return(tojson(kept)) }}
{% endmacro %}
