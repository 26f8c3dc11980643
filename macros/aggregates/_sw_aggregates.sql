{#- The aggregate vocabulary of the SQL window macros: the Odysseus set of
    docs/semantics.md (Odysseus section), with the same results as the engine's range
    kernels (src/streamwindows/range_aggregates/).

    Users write aggregates as a mapping {output_column: "function(arguments)"};
    function names are case-insensitive. Each function is described once, here:
      - how it is computed over one window frame (_sw_window_expr, complete with its
        OVER clause, since some functions wrap the windowed aggregate);
      - as a plain aggregate call (_sw_single_window_expr) for callers that append
        the OVER clause or GROUP BY themselves; only single-call functions have one;
      - as mergeable parts over two disjoint pieces of a window and their merge
        (_sw_window_parts / _sw_merge_parts; the `ties='arrival'` plan of
        range_window_aggregate splits a RANGE window into "strictly earlier times"
        and "same time, arrived at or before the row");
      - as partial states per group and pane and their N-way merge
        (_sw_partial_aggregates.sql, used by partial_aggregate and
        merge_partial_aggregates).
    Decisions (as the engine): STDDEV, VAR, COV are the sample versions; MEDIAN
    interpolates like Spark's `median` (mean of the two middle values); FIRST, LAST,
    NTH(col, n) (1-based) are by arrival order and keep a NULL value as it is; NEST
    keeps arrival order and NULLs; DISTINCTNEST keeps first-arrival order and NULL
    once; RATE is COUNT divided by the window's duration (per second for timestamp
    windows, per unit of a numeric time column), NULL for a zero duration;
    COMPLETENESS is the non-NULL share of the rows (NULL on an empty window). -#}

{% macro _sw_window_function_names() %}
  {#- The functions that a caller appending its own OVER clause can always compute
      on a derived value (fenl_aggregate's repeated-aggregation stages). -#}
  {{ return(['avg', 'count', 'first', 'last', 'max', 'min', 'sum']) }}
{% endmacro %}

{% macro _sw_aggregate_functions() %}
  {#- name -> {'arguments': argument kinds, 'numeric': numeric columns only,
      'ordered': needs the arrival order}. Argument kinds: column, column_or_star,
      n (a whole number >= 1). -#}
  {%- set one = ['column'] -%}
  {{ return({
      'avg': {'arguments': one, 'numeric': true},
      'completeness': {'arguments': one},
      'corr': {'arguments': ['column', 'column'], 'numeric': true},
      'count': {'arguments': ['column_or_star']},
      'cov': {'arguments': ['column', 'column'], 'numeric': true},
      'distinctnest': {'arguments': one, 'ordered': true},
      'first': {'arguments': one, 'ordered': true},
      'last': {'arguments': one, 'ordered': true},
      'max': {'arguments': one},
      'median': {'arguments': one, 'numeric': true},
      'min': {'arguments': one},
      'nest': {'arguments': one, 'ordered': true},
      'nth': {'arguments': ['column', 'n'], 'ordered': true},
      'rate': {'arguments': ['column_or_star']},
      'stddev': {'arguments': one, 'numeric': true},
      'sum': {'arguments': one, 'numeric': true},
      'var': {'arguments': one, 'numeric': true},
  }) }}
{% endmacro %}

{% macro _sw_sketch_functions() %}
  {#- Approximate, mergeable functions, only for partial aggregates (the exact
      DISTINCT count and MEDIAN need every value in the state). -#}
  {{ return({
      'approx_count_distinct': {'arguments': ['column']},
      'approx_median': {'arguments': ['column'], 'numeric': true},
  }) }}
{% endmacro %}

{% macro _sw_unsupported_functions(macro_name) %}
  {#- Functions a window macro cannot compute, with the reason. fenl_aggregate
      appends its own OVER clause to a single aggregate call, masks the rows its
      sliding window does not count and groups its cron windows without an order,
      so it takes the order-free, NULL-ignoring functions only. -#}
  {%- if macro_name == 'fenl_aggregate' -%}
    {%- set reason = "its sliding and cron windows keep no arrival order or row count" -%}
    {{ return({'completeness': reason, 'distinctnest': reason, 'nest': reason, 'nth': reason}) }}
  {%- endif -%}
  {{ return({}) }}
{% endmacro %}

{% macro _sw_aggregate_function_names(macro_name, sketches=false) %}
  {%- set unsupported = stream_windows._sw_unsupported_functions(macro_name) -%}
  {%- set names = [] -%}
  {%- for name in stream_windows._sw_aggregate_functions() if name not in unsupported -%}{%- do names.append(name) -%}{%- endfor -%}
  {%- if sketches -%}{%- do names.extend(stream_windows._sw_sketch_functions().keys()) -%}{%- endif -%}
  {{ return(names | sort) }}
{% endmacro %}

{% macro _sw_is_integer_type(data_type) %}
  {#- Spark's integer types, as `describe` names them or a user writes them. -#}
  {{ return(modules.re.match('^(tinyint|smallint|int|integer|bigint|long|short|byte)\\b', data_type | lower) is not none) }}
{% endmacro %}

{% macro _sw_is_numeric_type(data_type) %}
  {#- Spark's numeric types (booleans are not: Spark does not add them). -#}
  {{ return(stream_windows._sw_is_integer_type(data_type)
            or modules.re.match('^(float|double|real|decimal|numeric)\\b', data_type | lower) is not none) }}
{% endmacro %}

{% macro _sw_parse_aggregates(macro_name, aggregates, context=none) %}
  {#- Returns a list of {'name', 'function', 'column' (first column or '*'),
      'columns', 'n', 'macro', 'duration'} in the given order.
      `context` (optional mapping) says what the window kind has:
        duration - the window's duration in the RATE unit (RATE is refused without it);
        relation - the input, whose columns are checked (existence, numeric types)
                   when it is a ref() or source();
        sketches - true to accept the approximate functions (partial aggregates). -#}
  {%- set context = context or {} -%}
  {%- set functions = dict(stream_windows._sw_aggregate_functions()) -%}
  {%- if context.get('sketches') -%}{%- do functions.update(stream_windows._sw_sketch_functions()) -%}{%- endif -%}
  {%- set unsupported = stream_windows._sw_unsupported_functions(macro_name) -%}
  {%- set known = stream_windows._sw_aggregate_function_names(macro_name, context.get('sketches', false)) | reject('equalto', none if context.get('duration') is not none else 'rate') | list -%}
  {%- set spec_rule = "a mapping of output column to 'function(column)' with function one of " ~ (known | join(", ")) -%}
  {%- if aggregates is not mapping or aggregates | length == 0 -%}
    {{ stream_windows._sw_fail(macro_name, "aggregates", spec_rule, aggregates) }}
  {%- endif -%}
  {%- set parsed = [] -%}
  {%- set wanted = [] -%}
  {%- for name, spec in aggregates.items() -%}
    {%- set argument = "aggregates['" ~ name ~ "']" -%}
    {%- if not modules.re.match("^[A-Za-z_][A-Za-z0-9_]*$", name) -%}
      {{ stream_windows._sw_fail(macro_name, "aggregates", "keyed by plain output column names", name) }}
    {%- endif -%}
    {%- set match = modules.re.match("^\\s*([A-Za-z_]+)\\s*[(]([^()]*)[)]\\s*$", spec if spec is string else "") -%}
    {%- if not match -%}
      {{ stream_windows._sw_fail(macro_name, argument, "'function(column)' with function one of " ~ (known | join(", ")), spec) }}
    {%- endif -%}
    {%- set function = match.group(1) | lower -%}
    {%- if function in unsupported -%}
      {{ stream_windows._sw_fail(macro_name, argument, "an aggregate that " ~ macro_name ~ "() can compute (" ~ function ~ "(): " ~ unsupported[function] ~ ")", spec) }}
    {%- endif -%}
    {%- if function not in functions -%}
      {{ stream_windows._sw_fail(macro_name, argument, "a known function: one of " ~ (known | join(", ")), spec) }}
    {%- endif -%}
    {%- set kinds = functions[function].arguments -%}
    {%- set values = [] -%}
    {%- for value in match.group(2).split(',') -%}{%- do values.append(value | trim) -%}{%- endfor -%}
    {%- set shapes = {'column': 'column', 'column_or_star': 'column or *', 'n': 'n: a whole number >= 1'} -%}
    {%- set described = [] -%}
    {%- for kind in kinds -%}{%- do described.append(shapes[kind]) -%}{%- endfor -%}
    {%- set call_rule = "a call of " ~ function ~ "() with " ~ (kinds | length) ~ " argument" ~ ('s' if kinds | length > 1 else '') ~ " (" ~ (described | join(', ')) ~ ")" -%}
    {%- if values | length != kinds | length -%}
      {{ stream_windows._sw_fail(macro_name, argument, call_rule, spec) }}
    {%- endif -%}
    {%- set columns = [] -%}
    {%- set literals = [] -%}
    {%- for kind in kinds -%}
      {%- set value = values[loop.index0] -%}
      {%- if kind == 'n' -%}
        {%- if not modules.re.match('^[0-9]+$', value) or (value | int) < 1 -%}
          {{ stream_windows._sw_fail(macro_name, argument, "a call of nth() whose n is a whole number >= 1 (1-based)", spec) }}
        {%- endif -%}
        {%- do literals.append(value | int) -%}
      {%- elif value == '*' and kind != 'column_or_star' -%}
        {{ stream_windows._sw_fail(macro_name, argument, "function(column); only count and rate take *", spec) }}
      {%- elif value != '*' and not modules.re.match("^[A-Za-z_][A-Za-z0-9_]*$", value) -%}
        {{ stream_windows._sw_fail(macro_name, argument, call_rule, spec) }}
      {%- else -%}
        {%- do columns.append(value) -%}
      {%- endif -%}
    {%- endfor -%}
    {%- if function == 'rate' and context.get('duration') is none -%}
      {{ stream_windows._sw_fail(macro_name, argument, "an aggregate that " ~ macro_name ~ "() can compute (rate() divides by the window's duration, which this window kind does not have)", spec) }}
    {%- endif -%}
    {%- for column in columns if column != '*' -%}{%- do wanted.append((argument, column, function, spec)) -%}{%- endfor -%}
    {%- do parsed.append({'name': name, 'function': function, 'column': columns[0], 'columns': columns,
                          'n': literals[0] if literals else none, 'macro': macro_name,
                          'numeric': functions[function].get('numeric', false),
                          'ordered': functions[function].get('ordered', false),
                          'duration': context.get('duration')}) -%}
  {%- endfor -%}
  {{- stream_windows._sw_check_aggregate_columns(macro_name, context.get('relation'), wanted) -}}
  {{ return(parsed) }}
{% endmacro %}

{% macro _sw_is_catalog_relation(relation) %}
  {#- A ref() or source() Relation, whose columns the catalog can give; not a CTE name
      or SQL text (strings), nor none, nor a ref() that renders as a CTE: an ephemeral
      model, or a unit test's fixture (its input has no table to describe; the
      column checks are then Spark's, at run time). -#}
  {{ return(relation is not none and relation is not string and relation.identifier is defined and not relation.is_cte) }}
{% endmacro %}

{% macro _sw_column_types(relation) %}
  {#- lower column name -> Spark type of a ref()/source() relation; none for a CTE
      name or SQL text (their columns are not in the catalog) and while parsing. -#}
  {%- if not execute or not stream_windows._sw_is_catalog_relation(relation) -%}
    {{ return(none) }}
  {%- endif -%}
  {%- set types = {} -%}
  {%- for column in adapter.get_columns_in_relation(relation) -%}{%- do types.update({column.name | lower: column.dtype}) -%}{%- endfor -%}
  {{ return(types) }}
{% endmacro %}

{% macro _sw_check_aggregate_columns(macro_name, relation, wanted) %}
  {#- With a ref()/source() relation: every aggregate column exists, and the
      numeric functions get numeric columns. `wanted`: (argument, column, function, spec). -#}
  {%- if execute and stream_windows._sw_is_catalog_relation(relation) and wanted -%}
    {%- set pairs = [] -%}
    {%- for argument, column, function, spec in wanted -%}{%- do pairs.append((argument, column)) -%}{%- endfor -%}
    {%- set types = stream_windows._sw_column_types(relation) -%}
    {{- stream_windows._sw_check_columns_exist(macro_name, relation, pairs, types=types) -}}
    {%- set functions = dict(stream_windows._sw_aggregate_functions()) -%}
    {%- do functions.update(stream_windows._sw_sketch_functions()) -%}
    {%- for argument, column, function, spec in wanted
        if functions[function].get('numeric') and not stream_windows._sw_is_numeric_type(types[column | lower]) -%}
      {{ stream_windows._sw_fail(macro_name, argument, "a call of " ~ function ~ "() on numeric columns (" ~ column ~ " is " ~ types[column | lower] ~ ")", spec) }}
    {%- endfor -%}
  {%- endif -%}
{% endmacro %}

{% macro _sw_require_arrival(agg, arrival) %}
  {%- if agg.ordered and not arrival -%}
    {{ stream_windows._sw_fail(agg.macro, 'arrival_order', "a column giving arrival order for " ~ agg.function ~ "()", arrival) }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_input_expr(agg, mask) %}
  {#- The aggregate's (first) input; `mask` is a boolean SQL expression that is true
      on rows that carry no data (rowtime bounds), which must not count. -#}
  {%- set column = '1' if agg.column == '*' else agg.column -%}
  {%- if mask -%}
    {{ return('case when not ' ~ mask ~ ' then ' ~ column ~ ' end') }}
  {%- else -%}
    {{ return(column) }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_second_input(agg) %}
  {#- The second column of corr/cov. Rows masked out by the first input's mask drop
      out of the pair anyway (pairs need both values). -#}
  {{ return(agg.columns[1] if agg.columns | length > 1 else none) }}
{% endmacro %}

{% macro _sw_items_expr(x, arrival, mask=none) %}
  {#- A row as a struct ordered by arrival: collect_list keeps it even when the
      value is NULL, and array_sort orders by its first field. A row `mask` marks
      (a rowtime bound: no data) gives NULL, which collect_list leaves out. -#}
  {%- set item = "named_struct('a', " ~ arrival ~ ", 'v', " ~ x ~ ")" -%}
  {{ return(('case when not ' ~ mask ~ ' then ' ~ item ~ ' end') if mask else item) }}
{% endmacro %}

{% macro _sw_from_items(agg, sorted_items) %}
  {#- NEST / DISTINCTNEST / NTH from arrival-sorted items. -#}
  {%- set values = 'transform(' ~ sorted_items ~ ', _sw_e -> _sw_e.v)' -%}
  {%- if agg.function == 'nest' -%}
    {{ return(values) }}
  {%- elif agg.function == 'distinctnest' -%}
    {#- array_distinct keeps first occurrences in order and one NULL. -#}
    {{ return('array_distinct(' ~ values ~ ')') }}
  {%- else -%}
    {{ return('try_element_at(' ~ sorted_items ~ ', ' ~ agg.n ~ ').v') }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_median_of_sorted(sorted_values) %}
  {#- Spark's percentile interpolation at 0.5 over an ascending array without NULLs
      (the mean of the two middle values of an even count). The array is bound once
      to a lambda variable. -#}
  {%- set n = 'size(_sw_s)' -%}
  {%- set low = 'cast(element_at(_sw_s, cast((' ~ n ~ ' - 1) div 2 + 1 as int)) as double)' -%}
  {%- set high = 'cast(element_at(_sw_s, cast(' ~ n ~ ' div 2 + 1 as int)) as double)' -%}
  {%- set median = 'case when ' ~ n ~ ' = 0 then null when ' ~ n ~ ' % 2 = 1 then ' ~ low ~ ' else 0.5D * ' ~ low ~ ' + 0.5D * ' ~ high ~ ' end' -%}
  {{ return('element_at(transform(array(' ~ sorted_values ~ '), _sw_s -> ' ~ median ~ '), 1)') }}
{% endmacro %}

{% macro _sw_rate_of(count_sql, duration) %}
  {%- if duration is none or duration <= 0 -%}
    {{ return('cast(null as double)') }}
  {%- endif -%}
  {{ return('cast(' ~ count_sql ~ ' as double) / cast(' ~ duration ~ ' as double)') }}
{% endmacro %}

{% macro _sw_single_window_expr(agg, x, arrival, integer_avg) %}
  {#- The aggregate over one window frame or group as ONE aggregate call, for callers
      that append the OVER clause themselves (fenl_aggregate) or group. Functions that
      need more than one call go through _sw_window_expr. -#}
  {%- set f = agg.function -%}
  {%- set y = stream_windows._sw_second_input(agg) -%}
  {%- if f in ('nest', 'distinctnest', 'nth', 'rate') -%}
    {#- A caller that appends its own OVER clause cannot wrap these: it must use
        _sw_window_expr, or refuse them (_sw_unsupported_functions). -#}
    {{ stream_windows._sw_fail(agg.macro, "aggregates['" ~ agg.name ~ "']", "an aggregate that " ~ agg.macro ~ "() can compute (" ~ f ~ "() is not one aggregate call)", f ~ '(' ~ (agg.columns | join(', ')) ~ ')') }}
  {%- elif f == 'avg' and integer_avg -%}
    {{ return('cast(sum(' ~ x ~ ') / count(' ~ x ~ ') as bigint)') }}
  {%- elif f == 'first' -%}
    {{ return('min_by(' ~ x ~ ', ' ~ arrival ~ ')') }}
  {%- elif f == 'last' -%}
    {{ return('max_by(' ~ x ~ ', ' ~ arrival ~ ')') }}
  {%- elif f == 'median' -%}
    {#- median() refuses a window frame in Spark 4; percentile(x, 0.5) is the same. -#}
    {{ return('percentile(' ~ x ~ ', 0.5)') }}
  {%- elif f == 'var' -%}
    {{ return('variance(' ~ x ~ ')') }}
  {%- elif f == 'cov' -%}
    {{ return('covar_samp(' ~ x ~ ', ' ~ y ~ ')') }}
  {%- elif f == 'corr' -%}
    {{ return('corr(' ~ x ~ ', ' ~ y ~ ')') }}
  {%- elif f == 'completeness' -%}
    {{ return('avg(cast(' ~ x ~ ' is not null as double))') }}
  {%- else -%}
    {{ return(f ~ '(' ~ x ~ ')') }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_window_expr(agg, x, arrival, integer_avg, over, mask=none) %}
  {#- The aggregate over one window frame, with its OVER clause: `over` is a window
      name or a parenthesized window spec. `mask` (optional) is true on the rows that
      carry no data (rowtime bounds): `x` is NULL there already (_sw_input_expr), and
      the functions that see rows, not only values (first, last, nth, nest,
      distinctnest, completeness), leave those rows out too. -#}
  {{- stream_windows._sw_require_arrival(agg, arrival) -}}
  {%- set f = agg.function -%}
  {%- set w = ' over ' ~ over -%}
  {%- if f == 'avg' and integer_avg -%}
    {{ return('cast(sum(' ~ x ~ ')' ~ w ~ ' / count(' ~ x ~ ')' ~ w ~ ' as bigint)') }}
  {%- elif f in ('nest', 'distinctnest', 'nth') -%}
    {{ return(stream_windows._sw_from_items(agg, 'array_sort(collect_list(' ~ stream_windows._sw_items_expr(x, arrival, mask) ~ ')' ~ w ~ ')')) }}
  {%- elif f == 'rate' -%}
    {{ return(stream_windows._sw_rate_of('count(' ~ x ~ ')' ~ w, agg.duration)) }}
  {%- elif mask and f == 'completeness' -%}
    {{ return('avg(case when not ' ~ mask ~ ' then cast(' ~ x ~ ' is not null as double) end)' ~ w) }}
  {%- elif mask and f in ('first', 'last') -%}
    {#- min_by/max_by skip the rows whose ordering value is NULL. -#}
    {{ return(stream_windows._sw_single_window_expr(agg, x, 'case when not ' ~ mask ~ ' then ' ~ arrival ~ ' end', integer_avg) ~ w) }}
  {%- else -%}
    {{ return(stream_windows._sw_single_window_expr(agg, x, arrival, integer_avg) ~ w) }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_frame_mergeable(agg, types) %}
  {#- Whether the aggregate's value over a window frame can be merged from its parts
      computed per distinct time (_sw_window_parts, then _sw_merge_parts_over_frame)
      with the same value and the same type as over the frame's rows: the order-free
      functions and first/last (their parts keep the arrival position). SUM and AVG
      need a known, non-decimal column type (`types`: lower column name -> Spark
      type, none when the relation's columns cannot be read): a sum of decimal sums
      widens the decimal type, which the rows' own SUM or AVG would not. -#}
  {%- if agg.function in ('count', 'min', 'max', 'first', 'last', 'rate', 'completeness') -%}
    {{ return(true) }}
  {%- elif agg.function in ('sum', 'avg') and types is not none -%}
    {%- set dtype = types.get(agg.column | lower, 'unknown') | lower -%}
    {{ return(stream_windows._sw_is_numeric_type(dtype) and not dtype.startswith(('decimal', 'numeric'))) }}
  {%- endif -%}
  {{ return(false) }}
{% endmacro %}

{% macro _sw_merge_parts_over_frame(agg, parts, over, duration=none) %}
  {#- The aggregate's value over a window frame of rows that each hold the parts of one
      piece (_sw_window_parts): `parts` maps part names to column references, `over`
      is the frame (a window name or spec). Only for _sw_frame_mergeable aggregates.
      RATE divides by `duration` (SQL: the frame's own span, a count window's). -#}
  {%- set f = agg.function -%}
  {%- set w = ' over ' ~ over -%}
  {%- if f in ('min', 'max') -%}
    {{ return(f ~ '(' ~ parts[f] ~ ')' ~ w) }}
  {%- elif f == 'count' -%}
    {#- Never NULL, as a count over rows (coalesce tells Spark so). -#}
    {{ return('coalesce(sum(' ~ parts['count'] ~ ')' ~ w ~ ', 0)') }}
  {%- elif f == 'sum' -%}
    {{ return('sum(' ~ parts.sum ~ ')' ~ w) }}
  {%- elif f == 'avg' -%}
    {{ return('sum(' ~ parts.sum ~ ')' ~ w ~ ' / nullif(sum(' ~ parts['count'] ~ ')' ~ w ~ ', 0)') }}
  {%- elif f == 'first' -%}
    {{ return('min_by(' ~ parts.value ~ ', ' ~ parts.arrival ~ ')' ~ w) }}
  {%- elif f == 'last' -%}
    {{ return('max_by(' ~ parts.value ~ ', ' ~ parts.arrival ~ ')' ~ w) }}
  {%- elif f == 'rate' and duration is not none -%}
    {{ return('cast(sum(' ~ parts['count'] ~ ')' ~ w ~ ' as double) / ' ~ duration) }}
  {%- elif f == 'completeness' -%}
    {{ return('cast(sum(' ~ parts.present ~ ')' ~ w ~ ' as double) / nullif(sum(' ~ parts.rows ~ ')' ~ w ~ ', 0)') }}
  {%- endif -%}
  {{ stream_windows._sw_fail(agg.macro, "aggregates['" ~ agg.name ~ "']", "an aggregate merged over a frame (internal: check _sw_frame_mergeable first)", agg.function) }}
{% endmacro %}

{% macro _sw_pair_inputs(x, y) %}
  {#- corr/cov use the complete pairs only. -#}
  {{ return(['case when ' ~ y ~ ' is not null then ' ~ x ~ ' end', 'case when ' ~ x ~ ' is not null then ' ~ y ~ ' end']) }}
{% endmacro %}

{% macro _sw_window_parts(agg, x, arrival, mask=none) %}
  {#- The mergeable parts of the aggregate over one piece of a window: a list of
      [part_name, ONE SQL aggregate call] (the caller appends the OVER clause).
      Variances and co-moments are kept as (count, mean, population (co)variance)
      and merged with Chan's formula, so no sum of squares ever cancels. -#}
  {{- stream_windows._sw_require_arrival(agg, arrival) -}}
  {%- set f = agg.function -%}
  {%- set y = stream_windows._sw_second_input(agg) -%}
  {#- With a `mask` (rowtime bounds, as in _sw_window_expr), a bound row has no
      arrival position for first/last and counts as no row. -#}
  {%- set arrival = ('case when not ' ~ mask ~ ' then ' ~ arrival ~ ' end') if mask and f in ('first', 'last') else arrival -%}
  {%- if f in ('min', 'max', 'sum', 'count') -%}
    {{ return([[f, f ~ '(' ~ x ~ ')']]) }}
  {%- elif f == 'avg' -%}
    {{ return([['sum', 'sum(' ~ x ~ ')'], ['count', 'count(' ~ x ~ ')']]) }}
  {%- elif f == 'first' -%}
    {{ return([['value', 'min_by(' ~ x ~ ', ' ~ arrival ~ ')'], ['arrival', 'min(' ~ arrival ~ ')']]) }}
  {%- elif f == 'last' -%}
    {{ return([['value', 'max_by(' ~ x ~ ', ' ~ arrival ~ ')'], ['arrival', 'max(' ~ arrival ~ ')']]) }}
  {%- elif f in ('nest', 'distinctnest', 'nth') -%}
    {{ return([['items', 'collect_list(' ~ stream_windows._sw_items_expr(x, arrival, mask) ~ ')']]) }}
  {%- elif f == 'median' -%}
    {{ return([['values', 'collect_list(' ~ x ~ ')']]) }}
  {%- elif f == 'rate' -%}
    {{ return([['count', 'count(' ~ x ~ ')']]) }}
  {%- elif f == 'completeness' -%}
    {{ return([['present', 'count(' ~ x ~ ')'], ['rows', ('count(case when not ' ~ mask ~ ' then 1 end)') if mask else 'count(1)']]) }}
  {%- elif f in ('var', 'stddev') -%}
    {{ return([['n', 'count(' ~ x ~ ')'], ['mean', 'avg(' ~ x ~ ')'], ['var_pop', 'var_pop(' ~ x ~ ')']]) }}
  {%- else -%}
    {%- set xp, yp = stream_windows._sw_pair_inputs(x, y) -%}
    {%- set parts = [['n', 'count(' ~ xp ~ ')'], ['mean_x', 'avg(' ~ xp ~ ')'], ['mean_y', 'avg(' ~ yp ~ ')'],
                     ['covar_pop', 'covar_pop(' ~ x ~ ', ' ~ y ~ ')']] -%}
    {%- if f == 'corr' -%}
      {%- do parts.extend([['var_pop_x', 'var_pop(' ~ xp ~ ')'], ['var_pop_y', 'var_pop(' ~ yp ~ ')']]) -%}
    {%- endif -%}
    {{ return(parts) }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_chan(na, nb, central_a, central_b, delta_a, delta_b) %}
  {#- Chan's merge of two central (co-)moment sums: M = Ma + Mb + da * db * na * nb / n.
      `central_*` are the pieces' sums of (co-)deviations, `delta_*` the mean
      differences (NULL when a piece is empty, which then adds nothing). -#}
  {{ return('(coalesce(' ~ central_a ~ ', 0) + coalesce(' ~ central_b ~ ', 0) + coalesce((' ~ delta_a ~ ') * (' ~ delta_b ~ ') * cast('
            ~ na ~ ' as double) * ' ~ nb ~ ' / (' ~ na ~ ' + ' ~ nb ~ '), 0))') }}
{% endmacro %}

{% macro _sw_merge_parts(agg, a, b, integer_avg) %}
  {#- Combine the parts of two disjoint pieces. `a` and `b` map part names to column
      references; piece `b` always holds the current row, piece `a` may be empty. -#}
  {%- set f = agg.function -%}
  {%- if f == 'min' -%}
    {{ return('least(' ~ a.min ~ ', ' ~ b.min ~ ')') }}
  {%- elif f == 'max' -%}
    {{ return('greatest(' ~ a.max ~ ', ' ~ b.max ~ ')') }}
  {%- elif f == 'count' -%}
    {{ return(a['count'] ~ ' + ' ~ b['count']) }}
  {%- elif f == 'sum' -%}
    {{ return('case when ' ~ a.sum ~ ' is null then ' ~ b.sum ~ ' when ' ~ b.sum ~ ' is null then ' ~ a.sum ~ ' else ' ~ a.sum ~ ' + ' ~ b.sum ~ ' end') }}
  {%- elif f == 'avg' -%}
    {%- set total = '(coalesce(' ~ a.sum ~ ', 0) + coalesce(' ~ b.sum ~ ', 0)) / nullif(' ~ a['count'] ~ ' + ' ~ b['count'] ~ ', 0)' -%}
    {{ return('cast(' ~ total ~ ' as bigint)' if integer_avg else total) }}
  {%- elif f == 'first' -%}
    {{ return('case when ' ~ a.arrival ~ ' < ' ~ b.arrival ~ ' then ' ~ a.value ~ ' else ' ~ b.value ~ ' end') }}
  {%- elif f == 'last' -%}
    {{ return('case when ' ~ a.arrival ~ ' > ' ~ b.arrival ~ ' then ' ~ a.value ~ ' else ' ~ b.value ~ ' end') }}
  {%- elif f in ('nest', 'distinctnest', 'nth') -%}
    {{ return(stream_windows._sw_from_items(agg, 'array_sort(concat(' ~ a['items'] ~ ', ' ~ b['items'] ~ '))')) }}
  {%- elif f == 'median' -%}
    {{ return(stream_windows._sw_median_of_sorted('array_sort(concat(' ~ a['values'] ~ ', ' ~ b['values'] ~ '))')) }}
  {%- elif f == 'rate' -%}
    {{ return(stream_windows._sw_rate_of(a['count'] ~ ' + ' ~ b['count'], agg.duration)) }}
  {%- elif f == 'completeness' -%}
    {{ return('cast(' ~ a.present ~ ' + ' ~ b.present ~ ' as double) / nullif(' ~ a.rows ~ ' + ' ~ b.rows ~ ', 0)') }}
  {%- elif f in ('var', 'stddev') -%}
    {%- set n = '(' ~ a.n ~ ' + ' ~ b.n ~ ')' -%}
    {%- set delta = b.mean ~ ' - ' ~ a.mean -%}
    {%- set m2 = stream_windows._sw_chan(a.n, b.n, a.var_pop ~ ' * ' ~ a.n, b.var_pop ~ ' * ' ~ b.n, delta, delta) -%}
    {%- set variance = 'case when ' ~ n ~ ' >= 2 then ' ~ m2 ~ ' / (' ~ n ~ ' - 1) end' -%}
    {{ return(('sqrt(' ~ variance ~ ')') if f == 'stddev' else variance) }}
  {%- else -%}
    {%- set n = '(' ~ a.n ~ ' + ' ~ b.n ~ ')' -%}
    {%- set dx = b.mean_x ~ ' - ' ~ a.mean_x -%}
    {%- set dy = b.mean_y ~ ' - ' ~ a.mean_y -%}
    {%- set cxy = stream_windows._sw_chan(a.n, b.n, a.covar_pop ~ ' * ' ~ a.n, b.covar_pop ~ ' * ' ~ b.n, dx, dy) -%}
    {%- if f == 'cov' -%}
      {{ return('case when ' ~ n ~ ' >= 2 then ' ~ cxy ~ ' / (' ~ n ~ ' - 1) end') }}
    {%- endif -%}
    {%- set cxx = stream_windows._sw_chan(a.n, b.n, a.var_pop_x ~ ' * ' ~ a.n, b.var_pop_x ~ ' * ' ~ b.n, dx, dx) -%}
    {%- set cyy = stream_windows._sw_chan(a.n, b.n, a.var_pop_y ~ ' * ' ~ a.n, b.var_pop_y ~ ' * ' ~ b.n, dy, dy) -%}
    {{ return('case when ' ~ n ~ ' >= 2 and ' ~ cxx ~ ' > 0 and ' ~ cyy ~ ' > 0 then ' ~ cxy ~ ' / sqrt(' ~ cxx ~ ' * ' ~ cyy ~ ') end') }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_check_grouped_call(macro_name, relation, time_column, time_kind, keys, arrival_order, aggs, reserved) %}
  {#- The checks a macro that groups events into windows (sessions, Flink's windows)
      makes of its call: an arrival order for the ordered aggregates, aggregates named
      apart from the output's own columns (`reserved`, the keys added) and, over a
      ref()/source(), every column there with a time column of `time_kind`. -#}
  {%- if arrival_order is not none and (arrival_order is not string or not arrival_order) -%}
    {{ stream_windows._sw_fail(macro_name, 'arrival_order', 'a column name', arrival_order) }}
  {%- endif -%}
  {%- for agg in aggs -%}{{ stream_windows._sw_require_arrival(agg, arrival_order) }}{%- endfor -%}
  {%- set reserved = reserved + keys -%}
  {%- for agg in aggs if agg.name | lower in reserved -%}
    {{ stream_windows._sw_fail(macro_name, "aggregates['" ~ agg.name ~ "']", "named apart from the output's own columns (" ~ reserved | join(', ') ~ ")", agg.name) }}
  {%- endfor -%}
  {%- set wanted = [('time_column', time_column)] -%}
  {%- for column in keys -%}{%- do wanted.append(('partition_by', column)) -%}{%- endfor -%}
  {%- if arrival_order -%}{%- do wanted.append(('arrival_order', arrival_order)) -%}{%- endif -%}
  {%- for agg in aggs if agg.column != '*' -%}{%- do wanted.append(("aggregates['" ~ agg.name ~ "']", agg.column)) -%}{%- endfor -%}
  {{- stream_windows._sw_check_columns_exist(macro_name, relation, wanted, {'column': time_column, 'kind': time_kind}) -}}
{% endmacro %}

{% macro _sw_grouped_expr(agg, arrival, seconds) %}
  {#- The aggregate over one GROUP BY group of events, as `<expr> as <name>`: nest,
      distinctnest and nth from an arrival-sorted collect_list, rate as the count over
      `seconds` (a SQL expression: the group's window's duration in the rate unit), the
      others as one aggregate call. -#}
  {%- set x = stream_windows._sw_input_expr(agg, none) -%}
  {%- if agg.function in ('nest', 'distinctnest', 'nth') -%}
    {{ return(stream_windows._sw_from_items(agg, 'array_sort(collect_list(' ~ stream_windows._sw_items_expr(x, arrival) ~ '))') ~ ' as ' ~ agg.name) }}
  {%- elif agg.function == 'rate' -%}
    {{ return('cast(count(' ~ x ~ ') as double) / ' ~ seconds ~ ' as ' ~ agg.name) }}
  {%- endif -%}
  {{ return(stream_windows._sw_single_window_expr(agg, x, arrival, false) ~ ' as ' ~ agg.name) }}
{% endmacro %}
