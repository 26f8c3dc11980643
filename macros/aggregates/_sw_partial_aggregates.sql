{#- Partial aggregates (Odysseus `outputPA`): each function of the vocabulary as
    mergeable state columns computed per group and pane (_sw_partial_states, plain
    GROUP BY aggregates) and the N-way merge of any set of such rows into the final
    value (_sw_partial_merge_helpers: window expressions over the state rows, then
    _sw_partial_merge_expr: one GROUP BY aggregate expression). State columns are
    named <output>__<state>.

    States: COUNT count; SUM sum; AVG sum, count; MIN/MAX min/max; FIRST/LAST the
    value and its arrival position; NTH the first n (arrival, value) items; NEST,
    DISTINCTNEST every (arrival, value) item; MEDIAN every non-NULL value; VAR,
    STDDEV (count, mean, M2 = sum of squared deviations); COV, CORR (count, means,
    co-moment and for CORR both M2) over the complete pairs; RATE count and the
    pane's time span; COMPLETENESS non-NULL and row counts. (co-)moments merge with
    Chan's formula M = sum(M_i) + sum(n_i * (mean_i - mean)^2), mean = sum(n_i *
    mean_i) / sum(n_i): no sum of squares is formed, so there is no cancellation.
    Sketches (approximate): approx_count_distinct is an HLL sketch
    (hll_sketch_agg, lgConfigK 12), approx_median a KLL sketch
    (kll_sketch_agg_double, k 200). -#}

{% macro _sw_partial_states(agg, x, arrival, pane) %}
  {#- [[state, SQL aggregate expression over the pane's rows], ...]. -#}
  {{- stream_windows._sw_require_arrival(agg, arrival) -}}
  {%- set f = agg.function -%}
  {%- set y = stream_windows._sw_second_input(agg) -%}
  {%- if f in ('min', 'max', 'sum', 'count', 'avg', 'first', 'last') -%}
    {#- The same parts as the ties='arrival' split of a window. -#}
    {{ return(stream_windows._sw_window_parts(agg, x, arrival)) }}
  {%- elif f == 'nth' -%}
    {#- Only the pane's first n items can be the merged n-th. -#}
    {{ return([['items', 'slice(array_sort(collect_list(' ~ stream_windows._sw_items_expr(x, arrival) ~ ')), 1, ' ~ agg.n ~ ')']]) }}
  {%- elif f in ('nest', 'distinctnest') -%}
    {{ return([['items', 'array_sort(collect_list(' ~ stream_windows._sw_items_expr(x, arrival) ~ '))']]) }}
  {%- elif f == 'median' -%}
    {#- Sorted: the state is then the same whatever order the partitions arrive in. #}
    {{ return([['values', 'array_sort(collect_list(' ~ x ~ '))']]) }}
  {%- elif f == 'rate' -%}
    {{ return([['count', 'count(' ~ x ~ ')'], ['window_from', 'min(' ~ pane.window_from ~ ')'], ['window_to', 'max(' ~ pane.window_to ~ ')']]) }}
  {%- elif f == 'completeness' -%}
    {{ return([['present', 'count(' ~ x ~ ')'], ['rows', 'count(1)']]) }}
  {%- elif f in ('var', 'stddev') -%}
    {{ return([['n', 'count(' ~ x ~ ')'], ['mean', 'avg(' ~ x ~ ')'], ['m2', 'var_pop(' ~ x ~ ') * count(' ~ x ~ ')']]) }}
  {%- elif f in ('cov', 'corr') -%}
    {%- set xp, yp = stream_windows._sw_pair_inputs(x, y) -%}
    {%- set states = [['n', 'count(' ~ xp ~ ')'], ['mean_x', 'avg(' ~ xp ~ ')'], ['mean_y', 'avg(' ~ yp ~ ')'],
                      ['cxy', 'covar_pop(' ~ x ~ ', ' ~ y ~ ') * count(' ~ xp ~ ')']] -%}
    {%- if f == 'corr' -%}
      {%- do states.extend([['cxx', 'var_pop(' ~ xp ~ ') * count(' ~ xp ~ ')'], ['cyy', 'var_pop(' ~ yp ~ ') * count(' ~ xp ~ ')']]) -%}
    {%- endif -%}
    {{ return(states) }}
  {%- elif f == 'approx_count_distinct' -%}
    {{ return([['hll', 'hll_sketch_agg(cast(' ~ x ~ ' as string), 12)']]) }}
  {%- elif f == 'approx_median' -%}
    {{ return([['kll', 'kll_sketch_agg_double(cast(' ~ x ~ ' as double))']]) }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_partial_state_names(agg) %}
  {%- set names = [] -%}
  {%- for state, sql in stream_windows._sw_partial_states(agg, 'x', 'a', {'window_from': 'f', 'window_to': 't'}) -%}
    {%- do names.append(agg.name ~ '__' ~ state) -%}
  {%- endfor -%}
  {{ return(names) }}
{% endmacro %}

{% macro _sw_partial_merge_helpers(agg, over_group) %}
  {#- [[helper column, window expression over the state rows], ...]: the merged means
      that Chan's formula centres on, and RATE's span over all rows (all groups: the
      window's duration is the same for every group). -#}
  {%- set f = agg.function -%}
  {%- set s = agg.name ~ '__' -%}
  {%- set h = '_sw_' ~ agg.name ~ '__' -%}
  {%- if f in ('var', 'stddev') -%}
    {{ return([[h ~ 'mean_all', 'sum(' ~ s ~ 'n * ' ~ s ~ 'mean) over ' ~ over_group ~ ' / sum(' ~ s ~ 'n) over ' ~ over_group]]) }}
  {%- elif f in ('cov', 'corr') -%}
    {{ return([[h ~ 'mean_x_all', 'sum(' ~ s ~ 'n * ' ~ s ~ 'mean_x) over ' ~ over_group ~ ' / sum(' ~ s ~ 'n) over ' ~ over_group],
               [h ~ 'mean_y_all', 'sum(' ~ s ~ 'n * ' ~ s ~ 'mean_y) over ' ~ over_group ~ ' / sum(' ~ s ~ 'n) over ' ~ over_group]]) }}
  {%- elif f == 'rate' -%}
    {{ return([[h ~ 'span', 'max(' ~ s ~ 'window_to) over () - min(' ~ s ~ 'window_from) over ()']]) }}
  {%- endif -%}
  {{ return([]) }}
{% endmacro %}

{% macro _sw_partial_merge_expr(agg) %}
  {#- The final value from the state rows of one group, as a GROUP BY expression. -#}
  {%- set f = agg.function -%}
  {%- set s = agg.name ~ '__' -%}
  {%- set h = '_sw_' ~ agg.name ~ '__' -%}
  {%- if f in ('count', 'sum') -%}
    {{ return('sum(' ~ s ~ f ~ ')') }}
  {%- elif f in ('min', 'max') -%}
    {{ return(f ~ '(' ~ s ~ f ~ ')') }}
  {%- elif f == 'avg' -%}
    {{ return('sum(' ~ s ~ 'sum) / nullif(sum(' ~ s ~ 'count), 0)') }}
  {%- elif f == 'first' -%}
    {{ return('min_by(' ~ s ~ 'value, ' ~ s ~ 'arrival)') }}
  {%- elif f == 'last' -%}
    {{ return('max_by(' ~ s ~ 'value, ' ~ s ~ 'arrival)') }}
  {%- elif f in ('nth', 'nest', 'distinctnest') -%}
    {{ return(stream_windows._sw_from_items(agg, 'array_sort(flatten(collect_list(' ~ s ~ 'items)))')) }}
  {%- elif f == 'median' -%}
    {{ return(stream_windows._sw_median_of_sorted('array_sort(flatten(collect_list(' ~ s ~ 'values)))')) }}
  {%- elif f == 'rate' -%}
    {{ return('cast(sum(' ~ s ~ 'count) as double) / case when max(' ~ h ~ 'span) > 0 then max(' ~ h ~ 'span) end') }}
  {%- elif f == 'completeness' -%}
    {{ return('cast(sum(' ~ s ~ 'present) as double) / nullif(sum(' ~ s ~ 'rows), 0)') }}
  {%- elif f in ('var', 'stddev') -%}
    {%- set n = 'sum(' ~ s ~ 'n)' -%}
    {%- set m2 = '(coalesce(sum(' ~ s ~ 'm2), 0) + coalesce(sum(' ~ s ~ 'n * (' ~ s ~ 'mean - ' ~ h ~ 'mean_all) * (' ~ s ~ 'mean - ' ~ h ~ 'mean_all)), 0))' -%}
    {%- set variance = 'case when ' ~ n ~ ' >= 2 then ' ~ m2 ~ ' / (' ~ n ~ ' - 1) end' -%}
    {{ return(('sqrt(' ~ variance ~ ')') if f == 'stddev' else variance) }}
  {%- elif f in ('cov', 'corr') -%}
    {%- set n = 'sum(' ~ s ~ 'n)' -%}
    {%- set dx = '(' ~ s ~ 'mean_x - ' ~ h ~ 'mean_x_all)' -%}
    {%- set dy = '(' ~ s ~ 'mean_y - ' ~ h ~ 'mean_y_all)' -%}
    {%- set cxy = '(coalesce(sum(' ~ s ~ 'cxy), 0) + coalesce(sum(' ~ s ~ 'n * ' ~ dx ~ ' * ' ~ dy ~ '), 0))' -%}
    {%- if f == 'cov' -%}
      {{ return('case when ' ~ n ~ ' >= 2 then ' ~ cxy ~ ' / (' ~ n ~ ' - 1) end') }}
    {%- endif -%}
    {%- set cxx = '(coalesce(sum(' ~ s ~ 'cxx), 0) + coalesce(sum(' ~ s ~ 'n * ' ~ dx ~ ' * ' ~ dx ~ '), 0))' -%}
    {%- set cyy = '(coalesce(sum(' ~ s ~ 'cyy), 0) + coalesce(sum(' ~ s ~ 'n * ' ~ dy ~ ' * ' ~ dy ~ '), 0))' -%}
    {{ return('case when ' ~ n ~ ' >= 2 and ' ~ cxx ~ ' > 0 and ' ~ cyy ~ ' > 0 then ' ~ cxy ~ ' / sqrt(' ~ cxx ~ ' * ' ~ cyy ~ ') end') }}
  {%- elif f == 'approx_count_distinct' -%}
    {{ return('hll_sketch_estimate(hll_union_agg(' ~ s ~ 'hll))') }}
  {%- elif f == 'approx_median' -%}
    {#- A sketch of no value (a group whose values are all NULL) has no quantile:
        NULL, as the exact median gives (the merged sketch is bound once). -#}
    {{ return('element_at(transform(array(kll_merge_agg_double(' ~ s ~ 'kll)), _sw_k -> case when kll_sketch_get_n_double(_sw_k) > 0 then kll_sketch_get_quantile_double(_sw_k, 0.5D) end), 1)') }}
  {%- endif -%}
{% endmacro %}
