{#- A window's reach: the one description of a window from which both incremental
    modes plan (docs/incremental.md, "A window's reach"). A window macro states its
    reach once; the incremental plan (_sw_incremental_plan) turns it into the
    partitions a scheduled run recomputes after its watermark, the batch plan
    (_sw_batch_plan) into what one of dbt's batches rewrites and reads. -#}

{% macro _sw_reach(past, future=0, reopen=false, grid=none) %}
  {#- past: how far before a row its window reads, in key units (microseconds for a
      timestamp time); none when the lookback is counted (ROWS, a count window: the
      reader adds each group's counted context), 'all' when a window reaches back to
      its group's first row (Fenl's per-row windows).
      future: how far after a row its window reads (RANGE FOLLOWING; a pane's or a
      hopping window's length): the row stays open until the stream passes it by that
      much.
      reopen: a group's last window stays provisional until the group's next start
      time (a count window), so new rows of a group rewrite its last window before
      them, however old.
      grid: {'every', 'size'} for windows on a fixed time grid (panes: every = size;
      hopping windows over panes): a window is open while the stream is inside it. -#}
  {{ return({'past': past, 'future': future, 'reopen': reopen, 'grid': grid}) }}
{% endmacro %}

{% macro _sw_reach_back(reach) %}
  {#- reach.past as a number of key units, or none (counted, or back to the start). -#}
  {{ return(reach.past if reach.past is number else none) }}
{% endmacro %}

{% macro _sw_reopened_from(relation, key, groups, older, touched) %}
  {#- Where the rewrite of reopened windows starts: the earliest, over the groups
      `touched` names (a query giving the group columns), of the group's last key
      among its rows matching `older` (as the query gives it); none when no such group has one. Both modes
      ask it of a count window: the scheduled run for the groups with new rows and no
      processed row in its span, a batch for the groups with start times in it. -#}
  {%- set group_list = groups if groups else ['_sw_all'] -%}
  {%- set on = [] -%}
  {%- for column in group_list -%}{%- do on.append('_sw_older.' ~ column ~ ' <=> _sw_touched.' ~ column) -%}{%- endfor -%}
  {%- set query -%}
    select min(_sw_last) as k
    from (
        select {{ groups | join(', ') if groups else '1 as _sw_all' }}, max({{ key }}) as _sw_last
        from {{ relation }} as _sw_input
        where {{ older }}
        group by {{ group_list | join(', ') }}
    ) as _sw_older
    left semi join ({{ touched }}) as _sw_touched
    on {{ on | join(' and ') }}
  {%- endset -%}
  {{ return(run_query(query).rows[0]['k']) }}
{% endmacro %}
