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
  {%- if incremental is not mapping or 'partition' not in incremental -%}
    {{ stream_windows._sw_fail(macro_name, 'incremental', rule, incremental) }}
  {%- endif -%}
  {%- for key in incremental if key not in allowed -%}{{ stream_windows._sw_fail(macro_name, 'incremental', rule, incremental) }}{%- endfor -%}
  {%- set column = time_column if time_column is not none else incremental.get('time_column') -%}
  {%- if column is not string or not column -%}
    {{ stream_windows._sw_fail(macro_name, "incremental['time_column']", 'the column whose time partitions the table', column) }}
  {%- endif -%}
  {%- set partition = incremental.partition -%}
  {%- if partition in ('day', 'month') -%}
    {%- set kind = 'interval' -%}
  {%- elif stream_windows._sw_is_number(partition) and partition > 0 -%}
    {%- set kind = 'number' -%}
  {%- else -%}
    {{ stream_windows._sw_fail(macro_name, "incremental['partition']",
        "'day' or 'month' for a timestamp time column or a number > 0 for a numeric one", partition) }}
  {%- endif -%}
  {%- if time_kind is not none and time_kind != kind -%}
    {{ stream_windows._sw_fail(macro_name, "incremental['partition']",
        ("'day' or 'month' (the window's size is an interval)" if time_kind == 'interval' else "a number > 0 (the window's size is numeric)"),
        partition) }}
  {%- endif -%}
  {%- set late_rows = incremental.get('late_rows', 'error') -%}
  {{- stream_windows._sw_check_choice(macro_name, "incremental['late_rows']", late_rows, ['error', 'audit', 'reprocess']) -}}
  {#- A dbt unit test compiles the model over fixture CTEs, under its own config and
      without tables or hooks: it tests the model's windows as a full build computes
      them (without time_partition). An incremental run plans from the input's table
      and the model's own, which a unit test does not have. -#}
  {%- if stream_windows._sw_in_unit_test() -%}
    {#- (is_incremental() itself needs `this`, which a unit test has only as a fixture:
        read the unit test's override instead.) -#}
    {%- set overrides = model.overrides.macros if model.overrides is defined and model.overrides and model.overrides.macros else {} -%}
    {%- if overrides.get('is_incremental') -%}
      {{ stream_windows._sw_compile_error(macro_name ~ "() in unit test " ~ model.name ~ ": is_incremental cannot be overridden to true: "
          ~ "an incremental run plans from the input's table and the model's own, which a unit test has as fixtures. "
          ~ "Unit-test the model's windows (its full build), and its incremental runs with dbt build.") }}
    {%- endif -%}
    {{ return(none) }}
  {%- endif -%}
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

{% macro _sw_building() %}
  {#- Whether this command builds the model's table (`dbt run`, `dbt build`), so that
      its hooks will write the state a plan prepares: not a compile, show or docs (a
      unit test plans nothing: _sw_incremental_spec is none in one). -#}
  {{ return(flags.WHICH in ('run', 'build')) }}
{% endmacro %}

{% macro _sw_in_unit_test() %}
  {{ return(model is defined and model is not none and model.resource_type is defined and model.resource_type == 'unit_test') }}
{% endmacro %}

{% macro _sw_check_incremental_config(macro_name) %}
  {%- set strategy = config.get('incremental_strategy') -%}
  {%- set partition_by = config.get('partition_by') -%}
  {%- set partition_by = [partition_by] if partition_by is string else (partition_by or []) | list -%}
  {%- if config.get('materialized') != 'incremental' or strategy != 'insert_overwrite' or partition_by != ['time_partition'] -%}
    {{ stream_windows._sw_fail(macro_name, 'incremental',
        "used in a model configured materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['time_partition'] (model "
        ~ model.name ~ " has materialized=" ~ config.get('materialized') ~ ", incremental_strategy=" ~ strategy ~ ", partition_by=" ~ partition_by ~ ")",
        'incremental') }}
  {%- endif -%}
{% endmacro %}
