{#- dbt-spark 1.11's table materialization, except that the new table is built aside
    and swapped in (replace_safely.sql) instead of dropping the old one first. -#}
{% materialization table, adapter='spark_session', supported_languages=['sql', 'python'] %}
  {%- set language = model['language'] -%}
  {%- set grant_config = config.get('grants') -%}
  {%- set target_relation = api.Relation.create(identifier=model['alias'], schema=schema, database=database, type='table') -%}

  {%- set old_relation = spark_session__restore_backup(target_relation) -%}

  {{ run_hooks(pre_hooks) }}

  {%- set new_relation = spark_session__prepare_new(target_relation) -%}
  {%- call statement('main', language=language) -%}
    {{ create_table_as(False, new_relation, compiled_code, language) }}
  {%- endcall -%}
  {% do spark_session__swap_in(target_relation, new_relation, old_relation) %}

  {% set should_revoke = should_revoke(old_relation, full_refresh_mode=True) %}
  {% do apply_grants(target_relation, grant_config, should_revoke) %}
  {% do persist_docs(target_relation, model) %}
  {% do persist_constraints(target_relation, model) %}

  {{ run_hooks(post_hooks) }}

  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
