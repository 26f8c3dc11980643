{#- What an incremental model keeps between runs (its watermark in a table property,
    the tables beside it) and the two hooks that write it around the model's write:
    the plan reaches them in the model's compiled SQL. -#}

{% macro _sw_companion(suffix) %}
  {#- A table the model keeps beside its own: <model><suffix> (__late_rows,
      __input_fingerprints, __fenl_state, __fenl_entities). -#}
  {{ return(this.incorporate(path={'identifier': this.identifier ~ suffix})) }}
{% endmacro %}

{% macro _sw_latest(key, arrival_order, relation, where=none) %}
  {#- {'w': the latest time key, 's': the latest arrival position} of `relation` (rows
      matching `where`), as strings; both none when it has no row. -#}
  {%- set latest -%}
    select cast(max({{ key }}) as string) as w, cast(max({{ arrival_order }}) as string) as s
    from {{ relation }}
    {{ 'where ' ~ where if where else '' }}
  {%- endset -%}
  {{ return(run_query(latest).rows[0]) }}
{% endmacro %}

{% macro _sw_recorded_watermark(spec=none) %}
  {#- {'w': latest time key, 's': latest arrival position, 'floor': the arrival floor
      {'key': F, 'arrival': A} or none (a table written before floors were kept)}
      from the table property 'W|S[|F|A]' (as strings; F as a number given the
      incremental spec), or none. -#}
  {%- set properties -%}
    show tblproperties {{ this }}
  {%- endset -%}
  {%- set rows = run_query(properties).rows -%}
  {%- for row in rows if row[0] == 'stream_windows.watermark' -%}
    {%- set parts = row[1].split('|') -%}
    {%- set floor = none -%}
    {%- if parts | length == 4 -%}
      {%- set floor = {'key': (parts[2] | int if spec is none or spec.kind == 'interval' else parts[2] | float), 'arrival': parts[3]} -%}
    {%- endif -%}
    {%- set input_files = [] -%}
    {%- for recorded in rows if recorded[0] == 'stream_windows.input_files' -%}{%- do input_files.append(fromjson(recorded[1])) -%}{%- endfor -%}
    {{ return({'w': parts[0], 's': parts[1], 'floor': floor, 'input_files': input_files[0] if input_files else none}) }}
  {%- endfor -%}
  {{ return(none) }}
{% endmacro %}

{#- The plan's way from compile to the hooks: the model's compiled SQL carries it as
    a comment, `/* stream_windows.plan {...} */`, which the hooks read from the
    compiled code of the model they run for. So what a run writes is what its own SQL
    was planned with, whatever ran in the session before. -#}
{% macro _sw_plan_comment(plan) %}
  {%- set carried = {} -%}
  {%- for field in ['full', 'nothing_new', 'key', 'arrival_order', 'watermark_from', 'since', 'next_floor', 'next_watermark', 'fingerprints', 'input_files',
      'prepare', 'commit', 'notes'] -%}
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
    {{ exceptions.raise_compiler_error("stream_windows: model " ~ model.name ~ " carries the incremental plan of " ~ plan['relation'] ~ ", not of " ~ this
        ~ "; one model holds one incremental window.") }}
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
  {%- if plan.nothing_new -%}
    {#- The run wrote no row: with no new watermark, the table's watermark, record and
        fingerprints stand (and a nothing-new plan commits no statement). -#}
  {%- elif plan.watermark_from == 'input' -%}
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
  {{ stream_windows._sw_failpoint('in_commit') if not plan.commit else '' }}
  {%- for note in plan.notes -%}{%- do log(note, info=true) -%}{%- endfor -%}
  {%- if watermark is not none -%}
    {%- set input_files = stream_windows._sw_input_files_record(plan.input_files, plan.fingerprints.input, plan.arrival_order, watermark.split('|')[1])
        if plan.input_files is not none else none -%}
    {%- if input_files is none -%}
      {#- No record, or the input's files changed while the run ran: the next run
          compares fingerprints. -#}
      {%- do run_query('alter table ' ~ this ~ " unset tblproperties if exists ('stream_windows.input_files')") -%}
    {%- endif -%}
    {%- set record_watermark -%}
      alter table {{ this }} set tblproperties ('stream_windows.watermark' = '{{ watermark }}{{ floor }}'
          {{- (", 'stream_windows.input_files' = '" ~ input_files ~ "'") if input_files is not none else '' }})
    {%- endset -%}
    {%- do run_query(record_watermark) -%}
  {%- endif -%}
  {{ return('') }}
{% endmacro %}

{% macro _sw_nothing_new_open(plan) %}
  {#- With _sw_nothing_new_close, around a window macro's SQL when its plan found
      nothing new: the same columns and no row. Spark replaces a filter that is always
      false, and the plan beneath it, by an empty relation, so nothing is read. The
      macro builds its full build's SQL there, which needs no query to plan. -#}
  {{ return('select * from (\n' if plan is not none and plan.nothing_new else '') }}
{% endmacro %}

{% macro _sw_nothing_new_close(plan) %}
  {{ return('\n) as _sw_nothing_new where false' if plan is not none and plan.nothing_new else '') }}
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
