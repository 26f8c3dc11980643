{#- Replacing a table without an outage.

    dbt-spark drops a parquet table before it re-creates it, so any failure of the
    rebuild (bad input, a killed process, an out-of-memory executor) leaves no table:
    every model downstream then fails too. Here the new rows are written to a table
    beside the old one (`<name>__dbt_new`) and swapped in by two renames only once they
    are complete:

        build <name>__dbt_new  ->  rename <name> to <name>__dbt_backup
                               ->  rename <name>__dbt_new to <name>  ->  drop the backup

    A failure while building leaves the old table as it was. A process killed between
    the two renames leaves the rows in the backup, and the next run puts them back
    before it starts (spark_session__restore_backup). A managed table's rename moves its
    folder, and a killed write leaves a folder that no table owns, which Spark refuses
    to create a table over (LOCATION_ALREADY_EXISTS): such folders are removed first
    (adapter.clear_leftover_location, which never touches a registered table). -#}

{% macro spark_session__side_relation(relation, suffix) -%}
  {{ return(relation.incorporate(path={'identifier': relation.identifier ~ suffix}, type='table')) }}
{%- endmacro %}


{% macro spark_session__drop_side_table(relation) -%}
  {% call statement('drop_' ~ relation.identifier) -%}
    drop table if exists {{ relation }}
  {%- endcall %}
  {% do adapter.clear_leftover_location(relation) %}
{%- endmacro %}


{#- A run killed between the two renames of a swap left `<name>__dbt_backup` and no
    `<name>`: the backup holds the last complete rows, so it becomes the table again. -#}
{% macro spark_session__restore_backup(target_relation) -%}
  {%- set backup = spark_session__side_relation(target_relation, '__dbt_backup') -%}
  {%- set existing = load_relation(target_relation) -%}
  {%- if existing is none and load_relation(backup) is not none -%}
    {% do adapter.clear_leftover_location(target_relation) %}
    {% call statement('restore_backup') -%}
      alter table {{ backup }} rename to {{ target_relation }}
    {%- endcall %}
    {%- set existing = load_relation(target_relation) -%}
  {%- endif -%}
  {{ return(existing) }}
{%- endmacro %}


{#- The side table a rebuild writes: `<name>__dbt_new`, cleared of an earlier run's. The
    materialization runs its main statement into it itself (dbt submits a Python model
    only from the materialization's own body), then calls spark_session__swap_in. -#}
{% macro spark_session__prepare_new(target_relation) -%}
  {%- set new_relation = spark_session__side_relation(target_relation, '__dbt_new') -%}
  {% do spark_session__drop_side_table(new_relation) %}
  {{ return(new_relation) }}
{%- endmacro %}


{#- Swap the complete new_relation in for existing_relation (a table, a view or none). -#}
{% macro spark_session__swap_in(target_relation, new_relation, existing_relation) -%}
  {%- set backup_relation = spark_session__side_relation(target_relation, '__dbt_backup') -%}
  {%- if existing_relation is not none and existing_relation.is_view -%}
    {% do adapter.drop_relation(existing_relation) %}
  {%- elif existing_relation is not none -%}
    {% do spark_session__drop_side_table(backup_relation) %}
    {% call statement('swap_out_old') -%}
      alter table {{ target_relation }} rename to {{ backup_relation }}
    {%- endcall %}
  {%- endif -%}
  {% do adapter.clear_leftover_location(target_relation) %}
  {% call statement('swap_in_new') -%}
    alter table {{ new_relation }} rename to {{ target_relation }}
  {%- endcall %}
  {% call statement('drop_backup') -%}
    drop table if exists {{ backup_relation }}
  {%- endcall %}
{%- endmacro %}
