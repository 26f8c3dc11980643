{#- The incremental plan's reads of the input: the key bound with the arrival floor
    every read after the watermark takes, and the per-group aggregation of the span an
    input-watermark plan recomputes. -#}

{% macro _sw_touched_groups(relation, reads, s, lo, exclude, groups, group_select) %}
  {#- Per group, over the kept input with keys from lo on (per_group): its newest fresh
      key (arrival after s), newest processed key, newest and least arrival, least
      key; and their one-row summary (summary: _sw_now_w, _sw_now_s, _sw_now_reopened
      - groups with fresh rows and no processed row there - _sw_now_lo, _sw_now_hi,
      _sw_now_first_arrival). reads:
      {'key', 'arrival_order', 'floor'}, as _sw_key_from takes them. -#}
  {%- set key = reads.key -%}
  {%- set arrival_order = reads.arrival_order -%}
  {%- set per_group -%}
    select
        {{ group_select }},
        max(case when {{ arrival_order }} > {{ s }} then {{ key }} end) as _sw_fresh_w,
        max(case when {{ arrival_order }} <= {{ s }} then {{ key }} end) as _sw_seen_w,
        max({{ arrival_order }}) as _sw_s,
        min({{ arrival_order }}) as _sw_a,
        min({{ key }}) as _sw_lo
    from {{ relation }} as _sw_input
    where {{ stream_windows._sw_key_from(reads, lo) }}{{ (' and not ' ~ exclude) if exclude else '' }}
    group by {{ groups | join(', ') }}
  {%- endset -%}
  {%- set summary -%}
    select
        cast(max(_sw_fresh_w) as string) as _sw_now_w,
        cast(max(_sw_s) as string) as _sw_now_s,
        count(case when _sw_fresh_w is not null and _sw_seen_w is null then 1 end) as _sw_now_reopened,
        cast(min(_sw_lo) as string) as _sw_now_lo,
        cast(max(greatest(_sw_fresh_w, _sw_seen_w)) as string) as _sw_now_hi,
        cast(min(_sw_a) as string) as _sw_now_first_arrival
    from ({{ per_group }}) as _sw_touched
  {%- endset -%}
  {{ return({'per_group': per_group, 'summary': summary}) }}
{% endmacro %}

{% macro _sw_key_from(reads, bound) %}
  {#- The condition `key >= bound` of a read of the input, and with it `arrival >= A`
      when the recorded arrival floor (F, A) covers the bound (bound >= F): every row
      with key >= F arrived at or after A, so the second condition removes no row the
      first keeps, and Parquet prunes the files (and row groups) by it. reads: a plan,
      or any mapping with 'key', 'arrival_order' and 'floor' ({'key', 'arrival'} or
      none). -#}
  {%- set floor = reads.get('floor') -%}
  {%- set covered = floor is not none and bound is not none and bound >= floor.key -%}
  {{ return(reads.key ~ ' >= ' ~ bound ~ ((' and ' ~ reads.arrival_order ~ ' >= ' ~ floor.arrival) if covered else '')) }}
{% endmacro %}
