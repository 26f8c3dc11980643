{#- Shared argument checks. Every message reads
    "<macro>(): `<argument>` must be <rule>; got '<value>'." so a failing build
    names the macro, the argument, what is allowed and what was given. -#}

{#- Raised when the model compiles to run, never while dbt parses the project: a bad
    argument then fails its own model only, and `dbt parse`, `dbt ls` and every build
    that does not select the model go on. -#}
{% macro _sw_fail(macro_name, argument, rule, value) %}
  {%- set msg -%}
{{ macro_name }}(): `{{ argument }}` must be {{ rule }}; got '{{ value }}'.
  {%- endset -%}
  {%- if execute -%}
  {{ stream_windows._sw_compile_error(msg) }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_compile_error(message) %}
  {#- Fails the model with `message`. dbt logs a microbatch batch's compile error at
      debug level only, so its console shows a bare ERROR: in a batch, the message is
      said on the console first. -#}
  {%- if model is defined and model is not none and model.batch is defined and model.batch is not none -%}
    {%- do log(message, info=true) -%}
  {%- endif -%}
  {{ exceptions.raise_compiler_error(message) }}
{% endmacro %}

{% macro _sw_check_call(macro_name, accepted, extra_positional, extra_named) %}
  {#- A public macro's call, checked for arguments it does not take. The public macros
      read `varargs` and `kwargs`, so Jinja accepts any call while dbt parses (a
      misspelled name would otherwise stop `dbt parse` and every build of the project);
      the model that has the call then fails here, when it compiles to run. -#}
  {%- if execute and extra_named -%}
    {%- set name = extra_named.keys() | sort | first -%}
    {%- set ranked = [] -%}
    {%- for candidate in accepted -%}
      {%- do ranked.append((stream_windows._sw_edit_distance(name | lower, candidate), candidate)) -%}
    {%- endfor -%}
    {%- set nearest = ranked | sort | first -%}
    {#- A near miss (a typo: a third of the name or two letters at most) is named;
        anything farther gets the list. -#}
    {%- set hint = ("did you mean `" ~ nearest[1] ~ "`?") if nearest[0] <= [2, (name | length) // 3] | max
                   else ("it takes " ~ accepted | join(', ') ~ ".") -%}
    {{ stream_windows._sw_compile_error(macro_name ~ "(): unknown argument `" ~ name ~ "`; " ~ hint) }}
  {%- endif -%}
  {%- if execute and extra_positional -%}
    {{ stream_windows._sw_compile_error(macro_name ~ "(): takes at most " ~ accepted | length ~ " arguments (" ~ accepted | join(', ')
        ~ "); got " ~ (accepted | length + extra_positional | length) ~ " positional ones.") }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_edit_distance(a, b) %}
  {#- Levenshtein distance between two short strings (argument names). -#}
  {%- set state = namespace(previous=range(b | length + 1) | list) -%}
  {%- for i in range(a | length) -%}
    {%- set current = [i + 1] -%}
    {%- for j in range(b | length) -%}
      {%- do current.append([state.previous[j + 1] + 1, current[j] + 1, state.previous[j] + (0 if a[i] == b[j] else 1)] | min) -%}
    {%- endfor -%}
    {%- set state.previous = current -%}
  {%- endfor -%}
  {{ return(state.previous[b | length]) }}
{% endmacro %}

{% macro _sw_unsupported_adapter(macro_name) %}
  {#- The `default__` of every public macro: the package writes Spark SQL, so another
      adapter fails the model at once, naming itself (while parsing it passes, so that
      the rest of the project parses). A project on another engine can give its own
      `<adapter>__<macro>` through dbt's `dispatch:` config. -#}
  {%- if not execute -%}{{ return('select 1 as parsed') }}{%- endif -%}
  {{ stream_windows._sw_compile_error(macro_name ~ "(): the adapter `" ~ adapter.type() ~ "` is not supported: stream_windows writes Spark SQL, "
      ~ "for the adapters spark and spark_session (any adapter that inherits from spark). Another adapter needs its own `"
      ~ adapter.type() ~ "__" ~ macro_name ~ "`, found through the project's `dispatch:` config.") }}
{% endmacro %}

{% macro _sw_check_choice(macro_name, argument, value, allowed) %}
  {%- if value not in allowed -%}
    {{ stream_windows._sw_fail(macro_name, argument, "one of " ~ (allowed | join(", ")), value) }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_as_list(macro_name, argument, value) %}
  {#- A column argument may be one name or a list of names. -#}
  {%- if value is none -%}
    {{ return([]) }}
  {%- elif value is string -%}
    {{ return([value]) }}
  {%- elif value is iterable and value is not mapping -%}
    {%- for item in value if item is not string -%}
      {{ stream_windows._sw_fail(macro_name, argument, "a column name or a list of column names", value) }}
    {%- endfor -%}
    {{ return(value | list) }}
  {%- else -%}
    {{ stream_windows._sw_fail(macro_name, argument, "a column name or a list of column names", value) }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_is_number(value) %}
  {{ return(value is number and value is not boolean) }}
{% endmacro %}

{% macro _sw_check_columns_exist(macro_name, relation, wanted, time=none, types=none) %}
  {#- With a ref()/source() relation, name a missing column and list the ones that
      exist, instead of letting Spark fail later with UNRESOLVED_COLUMN. `time`
      (optional: {'column', 'kind'}) checks the time column's type as well: 'interval'
      wants a timestamp or date (a window measured in time), 'number' a numeric column,
      'any' either. A string time would sort as text and window everything together.
      `types` (optional): the relation's _sw_column_types, already read, so that the
      relation is not described again; both checks read the same types. -#}
  {%- if execute and stream_windows._sw_is_catalog_relation(relation) -%}
    {%- set types = stream_windows._sw_column_types(relation) if types is none else types -%}
    {%- set available = types.keys() | list -%}
    {%- for argument, column in wanted if column | lower not in available -%}
      {{ stream_windows._sw_fail(macro_name, argument, "a column of " ~ relation ~ " (" ~ (available | join(", ")) ~ ")", column) }}
    {%- endfor -%}
    {%- if time is not none and (time.column | lower) in types -%}
      {%- set dtype = types[time.column | lower] | lower -%}
      {%- set is_time = dtype.startswith('timestamp') or dtype == 'date' -%}
      {%- set is_number = stream_windows._sw_is_numeric_type(dtype) -%}
      {%- set rules = {'interval': 'a timestamp or date column (the window is measured in time)',
                       'number': 'a numeric column (the window is measured in numbers)',
                       'any': 'a timestamp, date or numeric column'} -%}
      {%- if not {'interval': is_time, 'number': is_number, 'any': is_time or is_number}[time.kind] -%}
        {{ stream_windows._sw_fail(macro_name, 'time_column', rules[time.kind] ~ ' of ' ~ relation, (time.column | lower) ~ ' of type ' ~ dtype) }}
      {%- endif -%}
    {%- endif -%}
  {%- endif -%}
{% endmacro %}

{% macro _sw_model_name() %}
  {#- The model a message names (an inline query's is inline_query). -#}
  {{ return(model.name if model is defined and model is not none and model.name is defined else 'unknown model') }}
{% endmacro %}

{% macro _sw_group_sql(groups) %}
  {#- A row's group for a message raised in SQL: one `<column>=<value>` text per group
      column (NULL spelled out), to join with concat_ws. -#}
  {%- set texts = [] -%}
  {%- for column in groups -%}{%- do texts.append("concat('" ~ column ~ "=', coalesce(cast(" ~ column ~ " as string), 'NULL'))") -%}{%- endfor -%}
  {{ return(texts) }}
{% endmacro %}

{% macro _sw_repeated_arrival(arrival_order, partitions, order_by) %}
  {#- True on a row whose arrival position (its `arrival_order` value) the row before it
      in its window partition has too. `partitions` and `order_by` are those of a
      window the macro computes anyway: Spark computes the window functions of one
      partitioning and ordering over one sort, so the check costs no shuffle or sort. -#}
  {{ return('lag(' ~ arrival_order ~ ') over (' ~ ('partition by ' ~ partitions | join(', ') ~ ' ' if partitions else '')
            ~ 'order by ' ~ order_by ~ ') = ' ~ arrival_order) }}
{% endmacro %}

{% macro _sw_refuse_repeated_arrival(macro_name, repeated, expr, groups, arrival_order) %}
  {#- `expr`, failing the query where `repeated` (_sw_repeated_arrival) is true: two rows
      at one arrival position make the windows ambiguous (which arrived first?). The
      engine refuses them in the same words. -#}
  {%- set model_name = stream_windows._sw_model_name() -%}
  {%- set place = stream_windows._sw_group_sql(groups) -%}
  {%- set message -%}
    concat('{{ macro_name }}() in model {{ model_name }}: `arrival_order` must be a column whose values are unique '
           '(each row''s arrival position); got {{ arrival_order }} ', cast({{ arrival_order }} as string), ' twice'
           {%- if place %}, ' in ', concat_ws(', ', {{ place | join(', ') }}){% endif %}, '.')
  {%- endset -%}
  {{ return('case when ' ~ repeated ~ ' then raise_error(' ~ message | trim ~ ') else ' ~ expr ~ ' end') }}
{% endmacro %}

{% macro _sw_checked_time(macro_name, relation, groups, time_column, arrival_order) %}
  {#- `relation` with a NULL time failing the query, naming the model, the group and
      the arrival position, instead of the row silently falling out of every window
      (or, in a RANGE frame, forming a window of its own). -#}
  {%- set model_name = stream_windows._sw_model_name() -%}
  {%- set place = stream_windows._sw_group_sql(groups) -%}
  {%- if arrival_order -%}{%- do place.append("concat('arrival position ', coalesce(cast(" ~ arrival_order ~ " as string), 'NULL'))") -%}{%- endif -%}
  {%- set message = "concat('" ~ macro_name ~ "() in model " ~ model_name ~ ": `time_column` " ~ time_column ~ " is NULL at ', "
      ~ (("concat_ws(', ', " ~ place | join(', ') ~ ")") if place else "'a row'") ~ ")" -%}
  {#- A filter: right for full builds. A filter on the time above it (key >= X) would
      let Spark infer `time is not null` and drop the row first; scheduled runs check
      their new rows in the incremental plan instead. -#}
  {{ return('(select * from ' ~ relation ~ ' where case when ' ~ time_column ~ ' is null then raise_error(' ~ message ~ ') else true end)') }}
{% endmacro %}
