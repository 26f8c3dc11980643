{#- dbt-spark 1.11's incremental materialization, except that
    - a first build, a --full-refresh and the replacement of a view build the new table
      aside and swap it in (replace_safely.sql), so a failed rebuild keeps the old rows;
    - a Python model's `__dbt_tmp` table is written over whatever a killed run left in
      its folder;
    - a Python model's staged input fingerprints are discarded before it runs and
      committed after its write (adapter.staged_fingerprints);
    - a Python model's run that recomputed its whole table (late_rows='reprocess' of
      input rows changed in place, adapter.staged_whole_table) has its rows swapped in
      as the table, like a full refresh's. -#}
{% materialization incremental, adapter='spark_session', supported_languages=['sql', 'python'] -%}
  {#-- Validate early so we don't run SQL if the file_format + strategy combo is invalid --#}
  {%- set raw_file_format = config.get('file_format', default='parquet') -%}
  {%- set raw_strategy = config.get('incremental_strategy') or 'append' -%}
  {%- set grant_config = config.get('grants') -%}

  {%- set file_format = dbt_spark_validate_get_file_format(raw_file_format) -%}
  {%- set strategy = dbt_spark_validate_get_incremental_strategy(raw_strategy, file_format) -%}

  {%- set unique_key = config.get('unique_key', none) -%}
  {%- set partition_by = config.get('partition_by', none) -%}
  {%- set language = model['language'] -%}
  {%- set on_schema_change = incremental_validate_on_schema_change(config.get('on_schema_change'), default='ignore') -%}
  {%- set incremental_predicates = config.get('predicates', none) or config.get('incremental_predicates', none) -%}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- set existing_relation = spark_session__restore_backup(target_relation) -%}
  {% set tmp_relation = this.incorporate(path = {"identifier": this.identifier ~ '__dbt_tmp'}) -%}

  {#-- for SQL model we will create temp view that doesn't have database and schema --#}
  {%- if language == 'sql'-%}
    {%- set tmp_relation = tmp_relation.include(database=false, schema=false) -%}
  {%- endif -%}

  {%- if strategy in ['insert_overwrite', 'microbatch'] and partition_by -%}
    {%- call statement() -%}
      set spark.sql.sources.partitionOverwriteMode = DYNAMIC
    {%- endcall -%}
  {%- endif -%}

  {%- if language == 'python' -%}
    {% do adapter.staged_fingerprints(target_relation, 'discard') %}
  {%- endif -%}

  {{ run_hooks(pre_hooks) }}

  {%- if existing_relation is none or existing_relation.is_view or should_full_refresh() -%}
    {%- set new_relation = spark_session__prepare_new(target_relation) -%}
    {%- call statement('main', language=language) -%}
      {{ create_table_as(False, new_relation, compiled_code, language) }}
    {%- endcall -%}
    {% do spark_session__swap_in(target_relation, new_relation, existing_relation) %}
    {% do persist_constraints(target_relation, model) %}
  {%- else -%}
    {%- if language == 'python' -%}
      {% do spark_session__drop_side_table(tmp_relation) %}
    {%- endif -%}
    {%- call statement('create_tmp_relation', language=language) -%}
      {{ create_table_as(True, tmp_relation, compiled_code, language) }}
    {%- endcall -%}
    {{ spark_session__failpoint('after_prepare') if language == 'python' }}
    {%- if language == 'python' and adapter.staged_whole_table(target_relation) -%}
      {#-- The run's rows are the whole table: the tmp table becomes the table. --#}
      {% do spark_session__swap_in(target_relation, tmp_relation, existing_relation) %}
      {%- call noop_statement('main', 'OK (whole table recomputed: input rows changed in place)') -%}
        -- {{ target_relation }}: recomputed whole and swapped in (late_rows='reprocess' of rows changed in place)
      {%- endcall -%}
    {%- else -%}
      {%- do process_schema_changes(on_schema_change, tmp_relation, existing_relation) -%}
      {{ spark_session__failpoint('batch:' ~ model.batch.id) if strategy == 'microbatch' and model.batch }}
      {%- call statement('main') -%}
        {{ dbt_spark_get_incremental_sql(strategy, tmp_relation, target_relation, existing_relation, unique_key, incremental_predicates) }}
      {%- endcall -%}
      {%- if language == 'python' -%}
        {#-- dbt-spark's note: a Python model's tmp relation is a table, dropped by SQL. --#}
        {% call statement('drop_relation') -%}
          drop table if exists {{ tmp_relation }}
        {%- endcall %}
      {%- endif -%}
    {%- endif -%}
  {%- endif -%}

  {#-- The model's rows are written: what its run staged now describes them. --#}
  {%- if language == 'python' -%}
    {{ spark_session__failpoint('before_commit') }}
    {#-- STREAM_WINDOWS_FAILPOINT=in_commit fails it between its drop and rename. --#}
    {% do adapter.staged_fingerprints(target_relation, 'commit') %}
  {%- endif -%}

  {% set should_revoke = should_revoke(existing_relation, should_full_refresh()) %}
  {% do apply_grants(target_relation, grant_config, should_revoke) %}
  {% do persist_docs(target_relation, model) %}

  {{ run_hooks(post_hooks) }}

  {{ return({'relations': [target_relation]}) }}
{%- endmaterialization %}


{#- Fault injection for the tests that prove a Python model's incremental run safe,
    at the points of the stream_windows package's SQL protocol (failpoints.py): the run
    fails 'after_prepare' (the model ran: late rows audited, fingerprints staged, rows
    in `__dbt_tmp`; the table not yet written), 'before_commit' (the table written, the
    fingerprints not committed) or 'in_commit' (between the commit's two catalog
    operations); and 'batch:<batch id>' (such as batch:20240303) fails that batch of a
    microbatch model before its write, as a batch whose query fails. -#}
{% macro spark_session__failpoint(point) -%}
  {{ adapter.failpoint(point, model.name) }}
{%- endmacro %}
