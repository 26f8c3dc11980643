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

{% macro _sw_checked_time(macro_name, relation, groups, time_column, arrival_order) %}
  {#- `relation` with a NULL time failing the query, naming the model, the group and
      the arrival position, instead of the row silently falling out of every window
      (or, in a RANGE frame, forming a window of its own). -#}
  {%- set model_name = model.name if model is defined and model is not none and model.name is defined else 'unknown model' -%}
  {%- set place = [] -%}
  {%- for column in groups -%}{%- do place.append("concat('" ~ column ~ "=', coalesce(cast(" ~ column ~ " as string), 'NULL'))") -%}{%- endfor -%}
  {%- if arrival_order -%}{%- do place.append("concat('arrival position ', coalesce(cast(" ~ arrival_order ~ " as string), 'NULL'))") -%}{%- endif -%}
  {%- set message = "concat('" ~ macro_name ~ "() in model " ~ model_name ~ ": `time_column` " ~ time_column ~ " is NULL at ', "
      ~ (("concat_ws(', ', " ~ place | join(', ') ~ ")") if place else "'a row'") ~ ")" -%}
  {#- A filter: right for full builds. A filter on the time above it (key >= X) would
      let Spark infer `time is not null` and drop the row first; scheduled runs check
      their new rows in the incremental plan instead. -#}
  {{ return('(select * from ' ~ relation ~ ' where case when ' ~ time_column ~ ' is null then raise_error(' ~ message ~ ') else true end)') }}
{% endmacro %}
