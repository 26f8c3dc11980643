{% macro _sw_counted_context(relation, plan, spec, partitions, n, counted, rank_expr) %}
  {#- The input of a recomputation whose windows reach back a count, not a time: the
      rows of the recomputed partitions (key >= from_key), and before them each
      partition's (group's) n latest `counted` ('rows', or distinct 'times') among the
      rows not recomputed, picked by `rank_expr` (a row_number() or dense_rank() over
      the group, newest first). -#}
  {%- set kept = (' and not ' ~ plan.exclude) if plan.exclude else '' -%}
  {%- set recent -%}
    select *
    from {{ relation }}
    where {{ stream_windows._sw_key_from(plan, plan.from_key) }}{{ kept }}
  {%- endset -%}
  {%- if n < 1 -%}{{ return('(' ~ recent ~ ')') }}{%- endif -%}
  {#- The lookback is the shortest span (1, 2, 3, 4, 6, 8, 12, ... partitions) in which
      every group with recomputed rows finds its n. A query counts, per group, its older
      rows (or distinct times) in each span up to 16 partitions back, and when a group
      is short, a second one up to the oldest input (16, 64, 256, ... partitions), over
      the group and time columns only (a query's cost is mostly Spark's fixed cost per
      job, so the first reaches far): most runs ask once, and the recomputation then
      reads little more than the context it needs.
      A span that ends before the oldest input, or the last search, reads every older
      row of the groups still short. -#}
  {%- set step = stream_windows._sw_step(spec) -%}
  {%- set group_list = partitions | join(', ') if partitions else '' -%}
  {%- set spans = [1, 2, 3, 4] -%}
  {%- for power in range(1, 11) -%}
    {%- do spans.extend([6 * 4 ** (power - 1), 8 * 4 ** (power - 1), 12 * 4 ** (power - 1), 16 * 4 ** (power - 1)]) -%}
  {%- endfor -%}
  {%- set search = namespace(reach=16, span=none, earliest=none, short_groups=none) -%}
  {%- for attempt in range(11) if search.span is none -%}
    {%- set tried = spans | select('le', search.reach) | list -%}
    {%- set far_from = plan.from_key - step * search.reach -%}
    {%- set keys -%}
      select {{ 'distinct ' if counted == 'times' else '' }}{{ group_list ~ ', ' if partitions else '' }}{{ plan.key }} as _sw_k
      from {{ relation }} as _sw_input
      where {{ stream_windows._sw_key_from(plan, far_from) }}{{ kept }}
    {%- endset -%}
    {%- set counts = [] -%}
    {%- for span in tried -%}
      {%- do counts.append('count(case when _sw_k >= ' ~ (plan.from_key - step * span) ~ ' and _sw_k < ' ~ plan.from_key ~ ' then 1 end) as _sw_in_' ~ span) -%}
    {%- endfor -%}
    {%- set per_group -%}
      select {{ counts | join(', ') }}
      from ({{ keys }}) as _sw_keys
      {{ 'group by ' ~ group_list if partitions else '' }}
      having max(_sw_k) >= {{ plan.from_key }}
    {%- endset -%}
    {%- set least = [] -%}
    {%- for span in tried -%}{%- do least.append('min(_sw_in_' ~ span ~ ') as _sw_in_' ~ span) -%}{%- endfor -%}
    {%- set least_per_span -%}
      select {{ least | join(', ') }}
      from ({{ per_group }}) as _sw_groups
    {%- endset -%}
    {%- set found = run_query(least_per_span).rows[0] -%}
    {%- for span in tried if search.span is none and (found['_sw_in_' ~ span] is none or found['_sw_in_' ~ span] >= n) -%}
      {%- set search.span = span -%}
    {%- endfor -%}
    {%- if search.span is none -%}
      {%- if search.earliest is none -%}
        {%- set oldest -%}
          select min({{ plan.key }}) as k
          from {{ relation }} as _sw_input
          where {{ plan.key }} < {{ plan.from_key }}
        {%- endset -%}
        {%- set search.earliest = run_query(oldest).rows[0]['k'] -%}
      {%- endif -%}
      {%- if search.earliest is none or far_from <= search.earliest or attempt == 10 -%}
        {%- set search.span = search.reach -%}
        {%- set short_groups -%}
          select {{ group_list if partitions else '1' }}
          from ({{ keys }}) as _sw_keys
          {{ 'group by ' ~ group_list if partitions else '' }}
          having max(_sw_k) >= {{ plan.from_key }} and count(case when _sw_k < {{ plan.from_key }} then 1 end) < {{ n }}
        {%- endset -%}
        {%- set search.short_groups = short_groups -%}
      {%- else -%}
        {#- The oldest key is known now: the next search reaches it (16, 64, 256, ...
            partitions, the first that gets there), one query where reaching 4x further
            each time took one per step (a sparse input: five for a few purchases over
            years). The shortest span found is the same: every span up to the reach
            is counted. -#}
        {%- set search.reach = search.reach * 4 -%}
        {%- for _ in range(10) if plan.from_key - step * search.reach > search.earliest and search.reach < 16 * 4 ** 10 -%}
          {%- set search.reach = search.reach * 4 -%}
        {%- endfor -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set near_from = plan.from_key - step * search.span -%}
  {%- set before -%}
    select *
    from {{ relation }}
    where {{ stream_windows._sw_key_from(plan, near_from) }} and {{ plan.key }} < {{ plan.from_key }}{{ kept }}
  {%- endset -%}
  {%- if search.short_groups is not none -%}
    {%- set older -%}
      select *
      from {{ relation }}
      where {{ plan.key }} < {{ near_from }}{{ kept }}
    {%- endset -%}
    {%- if partitions -%}
      {%- set on = [] -%}
      {%- for column in partitions -%}{%- do on.append('_sw_older.' ~ column ~ ' <=> _sw_short.' ~ column) -%}{%- endfor -%}
      {%- set before -%}
        {{ before }}
        union all
        select _sw_older.*
        from ({{ older }}) as _sw_older
        left semi join ({{ search.short_groups }}) as _sw_short
        on {{ on | join(' and ') }}
      {%- endset -%}
    {%- else -%}
      {%- set before -%}
        {{ before }}
        union all
        {{ older }}
      {%- endset -%}
    {%- endif -%}
  {%- endif -%}
  {%- set with_context -%}
    ({{ recent }}
    union all
    select * except (_sw_context_rank)
    from (
        select *, {{ rank_expr }} as _sw_context_rank
        from ({{ before }}) as _sw_before
    ) as _sw_context
    where _sw_context_rank <= {{ n }})
  {%- endset -%}
  {{ return(with_context) }}
{% endmacro %}
