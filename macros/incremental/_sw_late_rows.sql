{#- What a scheduled run's plan does with the new rows it cannot simply append: rows
    that arrive after the watermark with an earlier time (late rows, under the model's
    `late_rows` policy), and input partitions whose rows changed after the model
    processed them (the fingerprints' comparison). -#}

{% macro _sw_plan_late_rows(macro_name, plan, spec, row, relation, partitions, arrival_order, w, is_fresh, late_condition, audit, exclude, from_key,
    reach_future) %}
  {#- The first new row below the watermark (`row`, with how many there are) under the
      model's late_rows policy: a NULL time or arrival position fails the run, naming
      it; 'error' fails it naming the first late row; 'audit' adds the audit to the
      plan's commit and returns the late rows' condition in `exclude`; 'reprocess'
      returns an earlier `from_key`. Returns {'exclude', 'from_key'}. -#}
  {%- set where = [] -%}
  {%- for column in partitions -%}{%- do where.append(column ~ '=' ~ row[column]) -%}{%- endfor -%}
  {%- if row['k'] is none -%}
    {{ exceptions.raise_compiler_error(macro_name ~ "() in model " ~ model.name ~ ": `time_column` " ~ spec.time_column ~ " is NULL at "
        ~ (where + ['arrival position ' ~ (row[arrival_order] if row[arrival_order] is not none else 'NULL')]) | join(', ')
        ~ " (a new row: a scheduled run places its rows by time, and its filters on the time would drop this one).") }}
  {%- elif row[arrival_order] is none -%}
    {{ exceptions.raise_compiler_error(macro_name ~ "() in model " ~ model.name ~ ": `arrival_order` " ~ arrival_order ~ " is NULL at "
        ~ (where + [spec.time_column ~ ' ' ~ row['t']]) | join(', ') ~ " (a new row; a run cannot tell it from the rows it has processed).") }}
  {%- endif -%}
  {%- set watermark_text -%}
    select cast({{ 'timestamp_micros(' ~ w ~ ')' if spec.kind == 'interval' else w }} as string) as t
  {%- endset -%}
  {%- set watermark = run_query(watermark_text).rows[0]['t'] -%}
  {%- if spec.late_rows == 'error' -%}
    {{ exceptions.raise_compiler_error(macro_name ~ "() in model " ~ model.name ~ ": " ~ row['n'] ~ " late row(s); the first, "
        ~ arrival_order ~ " " ~ row[arrival_order] ~ (" (" ~ where | join(', ') ~ ")" if where else "") ~ ", has " ~ spec.time_column ~ " "
        ~ row['t'] ~ ", before " ~ watermark ~ ", the latest " ~ spec.time_column ~ " this model has processed. Set incremental['late_rows'] to "
        ~ "'audit' (keep them out, in " ~ audit ~ ") or 'reprocess' (recompute the windows they fall in), or rebuild with --full-refresh.") }}
  {%- elif spec.late_rows == 'audit' -%}
    {#- This run leaves the late rows out by their condition; its commit hook audits
        them after the write (a run that dies before then audits them next time). -#}
    {%- set late = '((' ~ is_fresh ~ ') and ' ~ late_condition ~ ')' -%}
    {%- set create_audit -%}
      create table if not exists {{ audit }} using parquet as
      select *, cast(null as string) as late_reason, cast(null as string) as late_watermark, current_timestamp() as audited_at
      from {{ relation }}
      where false
    {%- endset -%}
    {%- do plan.commit.append(create_audit) -%}
    {%- set insert_audit -%}
      insert into {{ audit }}
      select
          *,
          '{{ spec.time_column }} before the latest processed time' as late_reason,
          '{{ watermark }}' as late_watermark,
          current_timestamp() as audited_at
      from {{ relation }} as _sw_late
      where {{ late }}
    {%- endset -%}
    {%- do plan.commit.append(insert_audit) -%}
    {%- do plan.notes.append(macro_name ~ '() in model ' ~ model.name ~ ': ' ~ row['n'] ~ ' late row(s) audited to ' ~ audit
        ~ ' and left out of the windows (first: ' ~ arrival_order ~ ' ' ~ row[arrival_order] ~ ', ' ~ spec.time_column ~ ' ' ~ row['t']
        ~ ', before ' ~ watermark ~ ')') -%}
    {%- set exclude = '(' ~ late ~ (' or ' ~ exclude if exclude else '') ~ ')' -%}
  {%- else -%}
    {%- set earliest = row['earliest'] | int if spec.kind == 'interval' else row['earliest'] | float -%}
    {%- set from_key = [from_key, earliest - reach_future] | min -%}
    {%- do log(macro_name ~ '() in model ' ~ model.name ~ ': ' ~ row['n'] ~ ' late row(s); recomputing from ' ~ spec.time_column ~ ' ' ~ row['t']
        ~ "'s partition", info=true) -%}
  {%- endif -%}
  {{ return({'exclude': exclude, 'from_key': from_key}) }}
{% endmacro %}

{% macro _sw_plan_changed_rows(macro_name, spec, now, from_key, reach_future) %}
  {#- The earliest input partition whose rows changed after the model processed them
      (now: the plan query's row): 'reprocess' returns an earlier from_key, the other
      policies fail the run naming the partition. -#}
  {%- set part = now['_sw_changed_part'] | int if spec.kind == 'interval' else now['_sw_changed_part'] | float -%}
  {%- set part_text = modules.datetime.datetime.utcfromtimestamp(part / 1000000).strftime('%Y-%m-%d') if spec.kind == 'interval' else part -%}
  {%- set what = "the input's rows with " ~ spec.time_column ~ " in the partition starting " ~ part_text ~ " changed after this model processed them ("
      ~ (now['_sw_changed_was'] if now['_sw_changed_was'] is not none else 0) ~ " row(s) then, "
      ~ (now['_sw_changed_is'] if now['_sw_changed_is'] is not none else 0) ~ " now, or the same count with other values)" -%}
  {%- if spec.late_rows == 'reprocess' -%}
    {%- set from_key = [from_key, part - reach_future] | min -%}
    {%- do log(macro_name ~ '() in model ' ~ model.name ~ ': ' ~ what ~ '; recomputing from that partition', info=true) -%}
  {%- else -%}
    {{ exceptions.raise_compiler_error(macro_name ~ "() in model " ~ model.name ~ ": " ~ what
        ~ ". Set incremental['late_rows'] to 'reprocess' (recompute from that partition) or rebuild with --full-refresh"
        ~ (" ('audit' keeps late rows out; a row changed in place has no earlier version left to keep)." if spec.late_rows == 'audit' else ".")) }}
  {%- endif -%}
  {{ return(from_key) }}
{% endmacro %}
