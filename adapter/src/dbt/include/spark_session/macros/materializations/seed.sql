{#- Seeds whose typed values do not parse fail, naming the value and its row.

    dbt-spark loads each CSV value as `cast(<value> as <type>)`, and Spark (ANSI mode
    off, as dbt-spark sets it) makes NULL of a value it cannot parse: a malformed time
    would load as NULL and surface later as "a NULL time" in a window model, with the
    raw value gone. dbt reads the columns named in `column_types` as text, so the raw
    values are still at hand here: each is cast as the load will cast it, before the
    table is dropped or created, and the first that turns into NULL fails the seed,
    which keeps its previous table. -#}

{% macro spark_session__check_seed_values(model, agate_table) -%}
  {%- set column_override = model['config'].get('column_types', {}) -%}
  {%- set typed = [] -%}
  {%- for name in agate_table.column_names -%}
    {%- set type = column_override.get(name) -%}
    {%- if type is not none and (type | lower) not in ('string', 'varchar', 'text') -%}
      {%- do typed.append({'index': loop.index0, 'name': name, 'type': type}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if not typed -%}{{ return(none) }}{%- endif -%}
  {%- set conditions = [] -%}
  {%- for column in typed -%}
    {%- do conditions.append('(_sw_column = ' ~ column['index'] ~ ' and cast(_sw_raw as ' ~ column['type'] ~ ') is null)') -%}
  {%- endfor -%}
  {%- set batch = get_batch_size() -%}
  {%- for chunk in agate_table.rows | batch(batch) -%}
    {%- set offset = loop.index0 * batch -%}
    {%- set values = [] -%}
    {%- for row in chunk -%}
      {%- set position = offset + loop.index -%}
      {%- for column in typed if row[column['index']] is not none -%}
        {#- A Spark string literal: backslashes and quotes escaped. -#}
        {%- set literal = "'" ~ (row[column['index']] | string).replace('\\', '\\\\').replace("'", "\\'") ~ "'" -%}
        {%- do values.append('(' ~ position ~ ', ' ~ column['index'] ~ ', ' ~ literal ~ ')') -%}
      {%- endfor -%}
    {%- endfor -%}
    {%- if values -%}
      {%- set query = 'select _sw_row, _sw_column, _sw_raw from values ' ~ values | join(', ') ~ ' as _sw_values(_sw_row, _sw_column, _sw_raw) where '
          ~ conditions | join(' or ') ~ ' order by _sw_row, _sw_column limit 1' -%}
      {%- set bad = run_query(query) -%}
      {%- if bad.rows | length > 0 -%}
        {%- set row_number = bad.rows[0][0] | int -%}
        {%- set column = (typed | selectattr('index', 'equalto', bad.rows[0][1] | int) | list)[0] -%}
        {%- set first = agate_table.column_names[0] ~ '=' ~ agate_table.rows[row_number - 1][0] -%}
        {{ exceptions.raise_compiler_error("seed " ~ model['name'] ~ ": the value '" ~ bad.rows[0][2] ~ "' of column " ~ column['name'] ~ " at row " ~ row_number
            ~ " (line " ~ (row_number + 1) ~ " of the CSV file; " ~ first ~ ") does not parse as " ~ column['type'] ~ " (column_types); loaded, it would become NULL. The seed keeps its previous table.") }}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
{%- endmacro %}


{% macro spark_session__create_csv_table(model, agate_table) -%}
  {% do spark_session__check_seed_values(model, agate_table) %}
  {{ return(spark__create_csv_table(model, agate_table)) }}
{%- endmacro %}


{% macro spark_session__reset_csv_table(model, full_refresh, old_relation, agate_table) -%}
  {% do spark_session__check_seed_values(model, agate_table) %}
  {{ return(spark__reset_csv_table(model, full_refresh, old_relation, agate_table)) }}
{%- endmacro %}
