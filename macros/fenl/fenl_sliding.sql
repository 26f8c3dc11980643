{#- Fenl's `sliding(n, pred)` window generator, for fenl_aggregate's `window`: the
    aggregate over the n most recent rows of the entity for which `predicate` is
    true, emitted at every input row, NULL while fewer than n such rows exist
    (docs/semantics.md, Kaskada Fenl section). -#}
{% macro fenl_sliding(n, predicate='true') %}
  {{- stream_windows._sw_check_call('fenl_sliding', ['n', 'predicate'], varargs, kwargs) -}}
  {%- if not stream_windows._sw_is_number(n) or n != (n | int) or n < 1 -%}
    {{ stream_windows._sw_fail('fenl_sliding', 'n', 'a whole number of rows >= 1', n) }}
  {%- endif -%}
  {%- if predicate is not string or not predicate | trim -%}
    {{ stream_windows._sw_fail('fenl_sliding', 'predicate', 'a boolean SQL expression over the row (such as is_valid)', predicate) }}
  {%- endif -%}
  {{ return({'fenl_window': 'sliding', 'n': n | int, 'predicate': predicate}) }}
{% endmacro %}
