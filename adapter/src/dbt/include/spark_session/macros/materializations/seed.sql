{#- Seeds whose typed values do not parse fail, naming the value and its row.

    dbt-spark loads each CSV value as `cast(<value> as <type>)`, and Spark (ANSI mode
    off, as dbt-spark sets it) makes NULL of a value it cannot parse: a malformed time
    would load as NULL and surface later as "a NULL time" in a window model, with the
    raw value gone. dbt reads the columns named in `column_types` as text, so the raw
    values are still at hand here: each is cast as the load will cast it, before the
    table is dropped or created, and the first that turns into NULL fails the seed,
    which keeps its previous table.

    The rows are loaded through the session's DataFrame writer (adapter.load_seed_rows),
    with the casts of dbt-spark's `insert ... values`, instead of SQL statements whose
    thousands of literals Spark must parse. On a method that sends SQL statements only
    (thrift), dbt-spark's own `insert ... values` loads them. -#}

{% macro spark_session__check_seed_values(model, agate_table) -%}
  {%- set column_override = model['config'].get('column_types', {}) -%}
  {%- set typed = {} -%}
  {%- for name in agate_table.column_names -%}
    {%- set type = column_override.get(name) -%}
    {%- if type is not none and (type | lower) not in ('string', 'varchar', 'text') -%}
      {%- do typed.update({name: type}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set bad = adapter.first_unparseable_seed_value(agate_table, typed) -%}
  {%- if bad is not none -%}
    {%- set row_number = bad[0] | int -%}
    {%- set first = agate_table.column_names[0] ~ '=' ~ agate_table.rows[row_number - 1][0] -%}
    {{ exceptions.raise_compiler_error("seed " ~ model['name'] ~ ": the value '" ~ bad[2] ~ "' of column " ~ bad[1] ~ " at row " ~ row_number
        ~ " (line " ~ (row_number + 1) ~ " of the CSV file; " ~ first ~ ") does not parse as " ~ typed[bad[1]] ~ " (column_types); loaded, it would become NULL. The seed keeps its previous table.") }}
  {%- endif -%}
{%- endmacro %}


{% macro spark_session__create_csv_table(model, agate_table) -%}
  {% do spark_session__check_seed_values(model, agate_table) %}
  {{ return(spark__create_csv_table(model, agate_table)) }}
{%- endmacro %}


{% macro spark_session__reset_csv_table(model, full_refresh, old_relation, agate_table) -%}
  {% do spark_session__check_seed_values(model, agate_table) %}
  {{ return(spark__reset_csv_table(model, full_refresh, old_relation, agate_table)) }}
{%- endmacro %}


{% macro spark_session__load_csv_rows(model, agate_table) -%}
  {%- if not adapter.runs_dataframes() -%}
    {{ return(spark__load_csv_rows(model, agate_table)) }}
  {%- endif -%}
  {%- set column_override = model['config'].get('column_types', {}) -%}
  {%- set types = [] -%}
  {%- for name in agate_table.column_names -%}
    {%- do types.append(column_override.get(name, adapter.convert_type(agate_table, loop.index0))) -%}
  {%- endfor -%}
  {%- set loaded = adapter.load_seed_rows(this, agate_table, types) -%}
  {#- What the compiled seed file shows: the load, not its values. -#}
  {{ return('-- ' ~ loaded ~ ' rows loaded into ' ~ this.render() ~ ' through the session (spark_session__load_csv_rows)') }}
{%- endmacro %}
