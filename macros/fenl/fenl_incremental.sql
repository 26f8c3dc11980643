{#- Incremental builds of fenl_aggregate's per-row windows (docs/semantics.md,
    Incremental runs section).

    A Fenl output at a row depends on every earlier row of its entity: a cumulative
    aggregate, and every repeated stage (`sum() | mean()`), reach back to the
    entity's first row. So no lookback of days can serve them; they carry state.
    For each such stage, the state is the stage's mergeable parts (sum and count for
    mean, value and (time, arrival) for first and last, ...) over the entity's rows
    before a cut, kept per entity in the table <model>__fenl_state, partitioned by the
    cut (state_cut: the Derby metastore fails to filter on a partition column whose
    name starts with an underscore). A run that recomputes the partitions from key X on:
      - finds the state at X, or makes it from the latest kept cut before X and the
        rows between (the previous run's last partitions: one day in a daily
        schedule), or, with no cut before X (first run after a full build, or a
        reprocessed late row older than the kept cut), from every row before X;
      - computes each stage over the rows from X on, the running parts of the rows
        merged with the entity's state;
      - reads for sliding(n, pred) the n latest rows with pred true before X (the
        counted context the ROWS windows use): sliding's first stage is bounded and
        needs rows, not state;
      - for since(pred), keeps as the first stage's state the parts of the window still
        open at X (empty when the entity's last row before X closed its window).
    A full build keeps the state at the cut the next run will start from (the day of
    the newest time it built), computed from the rows before it: one more pass over
    the input, in its commit hook, after the write; its prepare hook drops the state
    an older input made, so a failed rebuild leaves no state to trust (the next run
    makes it from every row before its cut). Kept cuts other than X are dropped, so
    the state table holds one cut. Late rows, the watermark and the partitions
    overwritten are those of the shared plan (_sw_incremental_plan). A run writes the
    state at X in its prepare hook, before the model's rows: the state at X holds only
    rows before X, which the run does not change, so a run that dies after it leaves
    the state the rerun makes anyway, and the rerun recomputes the same partitions to
    the same rows.

    The stateful stages take count, sum, min, max, mean (avg), first and last; the
    others refuse `incremental` by name. Cron windows need no state (a period's cell
    is recomputed whole from its events): _sw_fenl_cron_incremental, at the end. -#}

{% macro _sw_fenl_incremental_functions() %}
  {{ return(['count', 'sum', 'min', 'max', 'avg', 'first', 'last']) }}
{% endmacro %}

{% macro _sw_fenl_check_incremental(macro_name, spec, pipelines, incremental, arrival_order) %}
  {%- if spec.fenl_window == 'cron' -%}
    {%- if arrival_order is none -%}
      {{ stream_windows._sw_fail(macro_name, 'arrival_order', "a column giving arrival order for an incremental build (late rows are those that arrive after the latest processed one)", arrival_order) }}
    {%- endif -%}
    {%- for p in pipelines if p.stages | length > 1 -%}
      {{ stream_windows._sw_fail(macro_name, "aggregates['" ~ p.name ~ "']", "one function per output with an incremental cron window (a repeated stage runs over every period since the first)", p.stages | map(attribute='function') | join(' | ')) }}
    {%- endfor -%}
    {{ return(none) }}
  {%- endif -%}
  {%- set allowed = stream_windows._sw_fenl_incremental_functions() -%}
  {%- for p in pipelines -%}
    {%- for agg in p.stages if agg.function not in allowed -%}
      {{ stream_windows._sw_fail(macro_name, "aggregates['" ~ p.name ~ "']", "functions that carry state between incremental runs (" ~ (allowed | join(', ')) ~ "), or no `incremental`", agg.function ~ '()') }}
    {%- endfor -%}
  {%- endfor -%}
{% endmacro %}

{% macro _sw_fenl_stateful_stages(spec, pipelines) %}
  {#- [(pipeline, stage number k, agg)] of the stages that carry state: every stage
      but sliding's first. -#}
  {%- set stages = [] -%}
  {%- for p in pipelines -%}
    {%- for agg in p.stages -%}
      {%- if loop.index > 1 or spec.fenl_window != 'sliding' -%}{%- do stages.append((p, loop.index, agg)) -%}{%- endif -%}
    {%- endfor -%}
  {%- endfor -%}
  {{ return(stages) }}
{% endmacro %}

{% macro _sw_fenl_merge_parts(agg, a, b) %}
  {#- {part: SQL} of the parts of two consecutive pieces: `a` (the state, NULL parts
      when empty) before `b` (the running rows, never empty). -#}
  {%- set f = agg.function -%}
  {%- if f == 'count' -%}
    {{ return({'count': 'coalesce(' ~ a['count'] ~ ', 0) + ' ~ b['count']}) }}
  {%- elif f == 'sum' -%}
    {{ return({'sum': 'case when ' ~ a.sum ~ ' is null then ' ~ b.sum ~ ' when ' ~ b.sum ~ ' is null then ' ~ a.sum ~ ' else ' ~ a.sum ~ ' + ' ~ b.sum ~ ' end'}) }}
  {%- elif f == 'min' -%}
    {{ return({'min': 'least(' ~ a.min ~ ', ' ~ b.min ~ ')'}) }}
  {%- elif f == 'max' -%}
    {{ return({'max': 'greatest(' ~ a.max ~ ', ' ~ b.max ~ ')'}) }}
  {%- elif f == 'avg' -%}
    {{ return({'sum': 'case when ' ~ a.sum ~ ' is null then ' ~ b.sum ~ ' when ' ~ b.sum ~ ' is null then ' ~ a.sum ~ ' else ' ~ a.sum ~ ' + ' ~ b.sum ~ ' end',
               'count': 'coalesce(' ~ a['count'] ~ ', 0) + ' ~ b['count']}) }}
  {%- elif f == 'first' -%}
    {{ return({'value': 'case when ' ~ a.arrival ~ ' is not null then ' ~ a.value ~ ' else ' ~ b.value ~ ' end', 'arrival': 'coalesce(' ~ a.arrival ~ ', ' ~ b.arrival ~ ')'}) }}
  {%- else -%}
    {{ return({'value': b.value, 'arrival': b.arrival}) }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_fenl_final(agg, m) %}
  {#- The stage's value from its merged parts. -#}
  {%- set f = agg.function -%}
  {%- if f == 'avg' -%}
    {{ return('(' ~ m.sum ~ ') / nullif(' ~ m['count'] ~ ', 0)') }}
  {%- elif f in ('first', 'last') -%}
    {{ return(m.value) }}
  {%- else -%}
    {{ return(m[f]) }}
  {%- endif -%}
{% endmacro %}

{% macro _sw_fenl_state_field(p, k, part) %}
  {{ return(p.name ~ '_' ~ k ~ '_' ~ part) }}
{% endmacro %}

{% macro _sw_fenl_merged_stage(p, k, value, over, order_key, state, prior_when, keep_when) %}
  {#- Stage k of pipeline p over `value`, merged with the state: {'exprs': the merged
      parts as columns _sw_m_<field>, 'fields': what the stage adds to _sw_state (the
      merged parts, or NULL where `keep_when` is false), 'final': its value as
      _sw_<name>_<k>}. The state applies where `prior_when` holds (none: always). -#}
  {%- set agg = p.stages[k - 1] -%}
  {%- set a = {} -%}
  {%- set b = {} -%}
  {%- set merged = {} -%}
  {%- for part, call in stream_windows._sw_window_parts(agg, value, order_key) -%}
    {%- set field = stream_windows._sw_fenl_state_field(p, k, part) -%}
    {%- set prior = ('_sw_prior.' ~ field) if state is not none else 'null' -%}
    {%- do a.update({part: ('case when ' ~ prior_when ~ ' then ' ~ prior ~ ' end') if prior_when and state is not none else prior}) -%}
    {%- do b.update({part: call ~ ' over ' ~ over}) -%}
    {%- do merged.update({part: '_sw_m_' ~ field}) -%}
  {%- endfor -%}
  {%- set exprs = [] -%}
  {%- set fields = [] -%}
  {%- for part, sql in stream_windows._sw_fenl_merge_parts(agg, a, b).items() -%}
    {%- do exprs.append(sql ~ ' as ' ~ merged[part]) -%}
    {%- do fields.append("'" ~ stream_windows._sw_fenl_state_field(p, k, part) ~ "', " ~ (('case when ' ~ keep_when ~ ' then ' ~ merged[part] ~ ' end') if keep_when else merged[part])) -%}
  {%- endfor -%}
  {{ return({'exprs': exprs, 'fields': fields, 'final': stream_windows._sw_fenl_final(agg, merged) ~ ' as _sw_' ~ p.name ~ '_' ~ k}) }}
{% endmacro %}

{% macro _sw_fenl_stateful_sql(source, entities, time_column, arrival_order, pipelines, spec, state, context_before) %}
  {#- Every input row of `source` with each stage's value (_sw_<name>_<k>) and
      _sw_state, the merged parts of every stateful stage after the row (the entity's
      state at a cut after it). `state` is a relation of (entities, _sw_state) at the
      cut the rows start from, or none (empty state). For sliding, `source` holds
      context rows too, marked by `context_before` (a condition true on them): they
      feed the first stage only. -#}
  {%- set order_by = time_column ~ ', ' ~ arrival_order -%}
  {%- set order_key = 'struct(' ~ time_column ~ ', ' ~ arrival_order ~ ')' -%}
  {%- set partition = 'partition by ' ~ entities | join(', ') -%}
  {%- set running = '(' ~ partition ~ ' order by ' ~ order_by ~ ' rows between unbounded preceding and current row)' -%}
  {%- set kind = spec.fenl_window -%}
  {%- set on = [] -%}
  {%- for column in entities -%}{%- do on.append('_sw_rows.' ~ column ~ ' <=> _sw_prior.' ~ column) -%}{%- endfor -%}
  {%- if state is not none -%}
    {%- set joined = 'select _sw_rows.*, _sw_prior._sw_state as _sw_prior from ' ~ source ~ ' as _sw_rows left join ' ~ state ~ ' as _sw_prior on ' ~ on | join(' and ') -%}
  {%- else -%}
    {%- set joined = 'select *, cast(null as string) as _sw_prior from ' ~ source ~ ' as _sw_rows' -%}
  {%- endif -%}
  {%- set fields = [] -%}
  {#- The repeated-arrival flag beside a window of the same ordering, as in
      _sw_fenl_first_stage (sliding: there). -#}
  {%- set repeated = stream_windows._sw_repeated_arrival(arrival_order, entities, order_by) ~ ' as _sw_repeated_arrival' -%}
  {#- First stage. -#}
  {%- if kind == 'sliding' -%}
    {%- set first = stream_windows._sw_fenl_first_stage('(' ~ joined ~ ')', entities, time_column, arrival_order, pipelines, spec) -%}
    {%- set staged = 'select * from (' ~ first.sql ~ ') as _sw_sliding where not (' ~ context_before ~ ')' -%}
  {%- else -%}
    {%- if kind == 'since' -%}
      {%- set prepared = 'select *, coalesce(count(case when _sw_is_closing then 1 end) over (' ~ partition ~ ' order by ' ~ order_by
          ~ ' rows between unbounded preceding and 1 preceding), 0) as _sw_since_window, ' ~ repeated ~ ' from (select *, coalesce(' ~ spec.predicate
          ~ ', false) as _sw_is_closing from (' ~ joined ~ ') as _sw_joined) as _sw_flagged' -%}
      {%- set over = '(' ~ partition ~ ', _sw_since_window order by ' ~ order_by ~ ' rows between unbounded preceding and current row)' -%}
    {%- else -%}
      {%- set prepared = 'select *, ' ~ repeated ~ ' from (' ~ joined ~ ') as _sw_joined' -%}
      {%- set over = running -%}
    {%- endif -%}
    {%- set exprs = [] -%}
    {%- set finals = [] -%}
    {%- for p in pipelines -%}
      {#- since: the state continues the entity's first window only, and a row that
          closes its window leaves an empty one open after it. -#}
      {%- set stage = stream_windows._sw_fenl_merged_stage(p, 1, '1' if p.stages[0].column == '*' else p.stages[0].column, over, order_key, state,
          '_sw_since_window = 0' if kind == 'since' else none, 'not _sw_is_closing' if kind == 'since' else none) -%}
      {%- do exprs.extend(stage.exprs) -%}
      {%- do fields.extend(stage.fields) -%}
      {%- do finals.append(stage.final) -%}
    {%- endfor -%}
    {%- set merged = 'select _sw_prepared.*, ' ~ exprs | join(', ') ~ ' from (' ~ prepared ~ ') as _sw_prepared' -%}
    {%- set staged = 'select _sw_merged.*, ' ~ finals | join(', ') ~ ' from (' ~ merged ~ ') as _sw_merged' -%}
  {%- endif -%}
  {#- Later stages: cumulative over the stage before, merged with the state. -#}
  {%- set depth = pipelines | map(attribute='stages') | map('length') | max -%}
  {%- set sql = namespace(text=staged) -%}
  {%- for k in range(2, depth + 1) -%}
    {%- set exprs = [] -%}
    {%- set finals = [] -%}
    {%- for p in pipelines if p.stages | length >= k -%}
      {%- set stage = stream_windows._sw_fenl_merged_stage(p, k, '_sw_' ~ p.name ~ '_' ~ (k - 1), running, order_key, state, none, none) -%}
      {%- do exprs.extend(stage.exprs) -%}
      {%- do fields.extend(stage.fields) -%}
      {%- do finals.append(stage.final) -%}
    {%- endfor -%}
    {%- set merged = 'select _sw_stage_' ~ (k - 1) ~ '.*, ' ~ exprs | join(', ') ~ ' from (' ~ sql.text ~ ') as _sw_stage_' ~ (k - 1) -%}
    {%- set sql.text = 'select _sw_merged_' ~ k ~ '.*, ' ~ finals | join(', ') ~ ' from (' ~ merged ~ ') as _sw_merged_' ~ k -%}
  {%- endfor -%}
  {%- if not fields -%}{%- do fields.append("'none', cast(null as int)") -%}{%- endif -%}
  {{ return('select *, named_struct(' ~ fields | join(', ') ~ ') as _sw_state from (' ~ sql.text ~ ') as _sw_stateful') }}
{% endmacro %}

{% macro _sw_fenl_internal_stateful_columns(spec, pipelines) %}
  {#- The helper columns _sw_fenl_stateful_sql adds to the input's. -#}
  {%- set helpers = ['_sw_prior', '_sw_state', '_sw_repeated_arrival'] -%}
  {%- if spec.fenl_window == 'since' -%}{%- do helpers.extend(['_sw_is_closing', '_sw_since_window']) -%}{%- endif -%}
  {%- if spec.fenl_window == 'sliding' -%}
    {%- do helpers.extend(['_sw_is_counted', '_sw_counted_rank', '_sw_counted_cell']) -%}
    {%- for p in pipelines -%}{%- do helpers.append('_sw_' ~ p.name ~ '_raw') -%}{%- endfor -%}
  {%- endif -%}
  {%- for p, k, agg in stream_windows._sw_fenl_stateful_stages(spec, pipelines) -%}
    {%- for part, call in stream_windows._sw_window_parts(agg, 'x', 'o') -%}{%- do helpers.append('_sw_m_' ~ stream_windows._sw_fenl_state_field(p, k, part)) -%}{%- endfor -%}
  {%- endfor -%}
  {{ return(stream_windows._sw_fenl_internal_columns(pipelines, helpers)) }}
{% endmacro %}

{% macro _sw_fenl_rows_from(source, entities, time_column, arrival_order, spec, inc, plan_like, below_key) %}
  {#- The rows a stateful pass reads: `source`'s rows with key >= plan_like.from_key (all
      rows when none) and < below_key (none: no bound), audited late rows left out;
      for sliding, each entity's n latest rows with the predicate true before
      from_key as context. Returns {'sql', 'context'}: context is the condition true
      on context rows. -#}
  {%- set key = plan_like.key -%}
  {%- set bounded = '(select * from ' ~ source ~ ' as _sw_all' ~ (' where ' ~ key ~ ' < ' ~ below_key if below_key is not none else '') ~ ')' -%}
  {%- set kept = (' and not ' ~ plan_like.exclude) if plan_like.exclude else '' -%}
  {%- if plan_like.from_key is none -%}
    {{ return({'sql': '(select * from ' ~ bounded ~ ' as _sw_bounded where true' ~ kept ~ ')', 'context': 'false'}) }}
  {%- endif -%}
  {%- if spec.fenl_window != 'sliding' -%}
    {{ return({'sql': '(select * from ' ~ bounded ~ ' as _sw_bounded where ' ~ stream_windows._sw_key_from(plan_like, plan_like.from_key) ~ kept ~ ')', 'context': 'false'}) }}
  {%- endif -%}
  {%- set counted = '(select * from ' ~ bounded ~ ' as _sw_bounded where coalesce(' ~ spec.predicate ~ ', false) or ' ~ key ~ ' >= ' ~ plan_like.from_key ~ ')' -%}
  {%- set newest_first = 'row_number() over (partition by ' ~ entities | join(', ') ~ ' order by ' ~ time_column ~ ' desc, ' ~ arrival_order ~ ' desc)' -%}
  {%- set sql = stream_windows._sw_counted_context(counted, plan_like, inc, entities, spec.n, 'rows', newest_first) -%}
  {{ return({'sql': sql, 'context': key ~ ' < ' ~ plan_like.from_key}) }}
{% endmacro %}

{% macro _sw_fenl_state_at(source, entities, time_column, arrival_order, pipelines, spec, inc, key, exclude, cut, state_table, cuts, floor=none) %}
  {#- The state at `cut`: from the latest kept cut before it (`cuts`: those the table
      holds) and the rows between, else from every row before it. Returns
      {'statements': what makes it in state_table (in a new table when none is kept)
      and drops every other kept cut, 'query': the state at `cut` as a query (none
      when the table holds it already)}. -#}
  {%- set statements = [] -%}
  {%- set query = none -%}
  {%- set earlier = cuts | select('lt', cut) | list -%}
  {%- set since = earlier | max if earlier else none -%}
  {%- if cut not in cuts -%}
    {%- set rows = stream_windows._sw_fenl_rows_from(source, entities, time_column, arrival_order, spec, inc, {'from_key': since, 'key': key, 'exclude': exclude, 'arrival_order': arrival_order, 'floor': floor}, cut) -%}
    {%- set prior = ('(select * except (state_cut) from ' ~ state_table ~ ' where state_cut = ' ~ since ~ ')') if since is not none else none -%}
    {%- set stateful = stream_windows._sw_fenl_stateful_sql(rows.sql, entities, time_column, arrival_order, pipelines, spec, prior, rows.context) -%}
    {%- set order_key = 'struct(' ~ time_column ~ ', ' ~ arrival_order ~ ')' -%}
    {%- set advanced = 'select ' ~ entities | join(', ') ~ ', max_by(_sw_state, ' ~ order_key ~ ') as _sw_state from (' ~ stateful ~ ') as _sw_rows group by ' ~ entities | join(', ') -%}
    {%- if prior is not none -%}
      {%- set on = [] -%}
      {%- for column in entities -%}{%- do on.append('_sw_kept.' ~ column ~ ' <=> _sw_advanced.' ~ column) -%}{%- endfor -%}
      {%- set advanced = advanced ~ ' union all select _sw_kept.* from ' ~ prior ~ ' as _sw_kept left anti join (' ~ advanced ~ ') as _sw_advanced on ' ~ on | join(' and ') -%}
    {%- endif -%}
    {%- set query = 'select *, ' ~ cut ~ ' as state_cut from (' ~ advanced ~ ') as _sw_new_state' -%}
    {%- if not cuts -%}
      {%- do statements.append('drop table if exists ' ~ state_table) -%}
      {%- do statements.append('create table ' ~ state_table ~ ' using parquet partitioned by (state_cut) as ' ~ query) -%}
    {%- else -%}
      {%- do statements.append('insert into ' ~ state_table ~ ' ' ~ query) -%}
    {%- endif -%}
  {%- endif -%}
  {%- for other in cuts if other != cut -%}
    {%- do statements.append('alter table ' ~ state_table ~ ' drop if exists partition (state_cut = ' ~ other ~ ')') -%}
  {%- endfor -%}
  {{ return({'statements': statements, 'query': query}) }}
{% endmacro %}

{% macro _sw_fenl_incremental(macro_name, relation, source, entities, time_column, arrival_order, pipelines, spec, passthrough, inc, incremental, time_zone) %}
  {#- The model's SELECT for an incremental build, and the state it needs (above). -#}
  {{- stream_windows._sw_fenl_check_incremental(macro_name, spec, pipelines, incremental, arrival_order) -}}
  {%- if spec.fenl_window == 'cron' -%}
    {{ return(stream_windows._sw_fenl_cron_incremental(macro_name, relation, source, entities, time_column, arrival_order, pipelines, spec.period, time_zone, inc)) }}
  {%- endif -%}
  {#- The state may lag the cut by up to a week of partitions (below), and a sliding
      window reads its context before that: the arrival floor sits that far back. -#}
  {%- set step = stream_windows._sw_step(inc) -%}
  {%- set lag = 7 * step -%}
  {%- set plan = stream_windows._sw_incremental_plan(macro_name, inc, relation, arrival_order, entities, stream_windows._sw_reach('all'),
      horizon=lag + (16 * step if spec.fenl_window == 'sliding' else 0)) -%}
  {%- set key = stream_windows._sw_incremental_key(inc) -%}
  {%- set state_table = stream_windows._sw_companion('__fenl_state') -%}
  {%- if plan.full or plan.nothing_new -%}
    {#- A full build: the usual SELECT; its hooks drop the old state before the write
        and keep the state at the day of its newest time after it (by `dbt run` and
        `dbt build` only: a compile or docs generate need not pay a pass over the
        input, and a missing state is made by the next run). With nothing new, the
        same SELECT under a filter that keeps no row, and the state as it is. -#}
    {%- if plan.full -%}{%- do plan.prepare.append('drop table if exists ' ~ state_table) -%}{%- endif -%}
    {%- if plan.full and stream_windows._sw_building() -%}
      {%- set newest = run_query('select max(' ~ key ~ ') as k from ' ~ source ~ ' as _sw_input').rows[0]['k'] -%}
      {%- if newest is not none -%}
        {%- set cut = stream_windows._sw_partition_start(inc, newest | int if inc.kind == 'interval' else newest | float) -%}
        {%- do plan.commit.extend(stream_windows._sw_fenl_state_at(source, entities, time_column, arrival_order, pipelines, spec, inc, key, none, cut, state_table, []).statements) -%}
      {%- endif -%}
    {%- endif -%}
    {{ return(stream_windows._sw_plan_comment(plan) ~ '\n' ~ stream_windows._sw_nothing_new_open(plan) ~ 'select *, ' ~ stream_windows._sw_incremental_partition_column(inc) ~ ' from (' ~ stream_windows._sw_fenl_per_row(source, entities, time_column, arrival_order, pipelines, spec, passthrough) ~ ') as _sw_full' ~ stream_windows._sw_nothing_new_close(plan)) }}
  {%- endif -%}
  {%- set cut = plan.from_key -%}
  {#- The SELECT reads the state at the cut: `dbt run` and `dbt build` make it in the
      prepare hook, before the SELECT runs; any other command (compile, show, docs
      generate) runs no hook, and its SELECT computes the state in place. -#}
  {%- set cuts = [] -%}
  {%- if load_relation(state_table) is not none -%}
    {#- A state kept for other stages (the model's aggregates changed, or an older
        version of this package) is made again from every row before the cut. -#}
    {%- set expected = [] -%}
    {%- for p, k, agg in stream_windows._sw_fenl_stateful_stages(spec, pipelines) -%}
      {%- for part, call in stream_windows._sw_window_parts(agg, 'x', 'o') -%}{%- do expected.append(stream_windows._sw_fenl_state_field(p, k, part)) -%}{%- endfor -%}
    {%- endfor -%}
    {%- set kept = run_query('select _sw_state.* from ' ~ state_table ~ ' limit 0').column_names | list -%}
    {%- if (kept | sort | list) == ((expected or ['none']) | sort | list) -%}
      {%- for row in run_query('show partitions ' ~ state_table) -%}{%- set value = row[0].split('=', 1)[1] -%}{%- do cuts.append(value | int if inc.kind == 'interval' else value | float) -%}{%- endfor -%}
    {%- else -%}
      {%- do log(macro_name ~ '() in model ' ~ model.name ~ ': the state in ' ~ state_table ~ ' holds ' ~ kept | join(', ') ~ ", not this model's "
          ~ (expected or ['none']) | join(', ') ~ '; making it again from every row before the cut', info=true) -%}
    {%- endif -%}
  {%- endif -%}
  {#- The state may lag the cut by up to a week of partitions: the SELECT then reads
      the rows from the state's cut on (with their context) and outputs those from the
      cut on. Advancing the state is a statement of its own (2-4 s on the bench's year,
      whatever the days it covers); lagging, a daily run pays it once a week, and reads
      at most six more days of rows in its SELECT. -#}
  {%- set usable = cuts | select('le', cut) | select('ge', cut - lag) | list -%}
  {%- set state_cut = usable | max if usable else cut -%}
  {%- set state = stream_windows._sw_fenl_state_at(source, entities, time_column, arrival_order, pipelines, spec, inc, key, plan.exclude, state_cut, state_table, cuts, plan.floor) -%}
  {%- set rows = stream_windows._sw_fenl_rows_from(source, entities, time_column, arrival_order, spec, inc, {'from_key': state_cut, 'key': plan.key, 'exclude': plan.exclude, 'arrival_order': arrival_order, 'floor': plan.floor}, none) -%}
  {%- if stream_windows._sw_building() -%}
    {%- do plan.prepare.extend(state.statements) -%}
    {%- set kept_state = state_table -%}
  {%- else -%}
    {%- set kept_state = ('(' ~ state.query ~ ')') if state.query is not none else state_table -%}
  {%- endif -%}
  {%- set prior = '(select * except (state_cut) from ' ~ kept_state ~ ' as _sw_kept_state where state_cut = ' ~ state_cut ~ ')' -%}
  {%- set internal = stream_windows._sw_fenl_internal_stateful_columns(spec, pipelines) -%}
{{ stream_windows._sw_plan_comment(plan) }}
select
    {{ (passthrough | join(', ')) if passthrough else '* except (' ~ internal | join(', ') ~ ')' }},
    {{ stream_windows._sw_fenl_outputs(pipelines, entities, arrival_order) | join(',\n    ') }},
    {{ stream_windows._sw_incremental_partition_column(inc) }}
from ({{ stream_windows._sw_fenl_stateful_sql(rows.sql, entities, time_column, arrival_order, pipelines, spec, prior, rows.context) }}) as _sw_result
where {{ key }} >= {{ cut }}
{% endmacro %}

{% macro _sw_fenl_cron_incremental(macro_name, relation, source, entities, time_column, arrival_order, pipelines, period, time_zone, inc) %}
  {#- A cron window built batch by batch. Its rows are entity periods, partitioned by
      the day (or month) of period_start. A run recomputes every period starting on or after X,
      the day start of the period holding W (the latest time the input had at the last
      run, kept as for count windows: the output shows no arrival position): those
      periods' events all have times >= X, so the run groups only the input from X on,
      and lays the groups on the grid of every entity x every period from the first
      period starting at or after X (or the span's first, if later) to the newest
      event's. The entities are kept in <model>__fenl_entities (made by a full build,
      appended to by later runs). An entity seen for the first time needs its empty
      periods back to the span's first, so the run then recomputes from there; the
      span's first period is the table's first. -#}
  {#- No reopen: an entity's periods since its last event are empty cells of the grid.
      The run reads from X, the day start of the period holding the plan's cut: the
      cut's own day for UTC hours and days, up to a day before it in another zone, a
      month or a year before it for those periods (the arrival floor's horizon). -#}
  {%- set day = stream_windows._sw_step(inc) -%}
  {%- set horizon = (0 if time_zone == 'UTC' else day) if period in ('hourly', 'daily') else day * {'monthly': 32, 'yearly': 367}[period] -%}
  {%- set entity_table = stream_windows._sw_companion('__fenl_entities') -%}
  {#- Without its entities (a full build that failed after its prepare hook dropped
      them), a run cannot tell new entities: it rebuilds every period. -#}
  {%- set plan = stream_windows._sw_incremental_plan(macro_name, inc, relation, arrival_order, entities, stream_windows._sw_reach('all'), 'input', horizon=horizon,
      full=is_incremental() and load_relation(entity_table) is none) -%}
  {%- set key = stream_windows._sw_incremental_key(inc) -%}
  {%- set bounds = stream_windows._sw_fenl_period_sql(period, time_zone) -%}
  {%- set entity_sql = entities | join(', ') -%}
  {%- if plan.full or plan.nothing_new -%}
    {#- The entities of a full build: dropped before its write, kept after it (with
        nothing new, the full build's SELECT keeps no row, and the entities stand). -#}
    {%- if plan.full -%}
      {%- do plan.prepare.append('drop table if exists ' ~ entity_table) -%}
      {%- do plan.commit.append('create table ' ~ entity_table ~ ' using parquet as select distinct ' ~ entity_sql ~ ' from ' ~ source ~ ' as _sw_input') -%}
    {%- endif -%}
    {{ return(stream_windows._sw_plan_comment(plan) ~ '\n' ~ stream_windows._sw_nothing_new_open(plan) ~ 'select *, ' ~ stream_windows._sw_incremental_partition_column(inc, 'period_start') ~ ' from (' ~ stream_windows._sw_fenl_cron(source, entities, time_column, arrival_order, pipelines, period, time_zone) ~ ') as _sw_full' ~ stream_windows._sw_nothing_new_close(plan)) }}
  {%- endif -%}
  {#- The key (period) of an instant given in microseconds, and a period's start in microseconds. -#}
  {%- set key_of = 'select ' ~ bounds.key ~ ' as _sw_period from (select timestamp_micros(%s) as _sw_time) as _sw_instant' -%}
  {%- set start_of = 'select unix_micros(cast(' ~ bounds.start ~ ' as timestamp)) as s from (' ~ key_of ~ ') as _sw_key' -%}
  {#- X: the partition start (a UTC midnight) of the period holding the plan's
      from_key. UTC hours and days both start at every UTC midnight, so X is from_key
      itself for them (no query). -#}
  {%- if period in ('hourly', 'daily') and time_zone == 'UTC' -%}
    {%- set x = plan.from_key -%}
  {%- else -%}
    {%- set x = stream_windows._sw_partition_start(inc, run_query(start_of | format(plan.from_key)).rows[0]['s'] | int) -%}
  {%- endif -%}
  {#- The span's first period lies in the table's first partition (period_start's
      day or month), named by the metastore. It is read only when it can matter: when
      X is before the next partition (a young table), or for new entities below.
      The query reads one partition's files; its filter is <=, not =: the Derby
      metastore can fail to filter a date partition by equality
      (INTERNAL_ERROR_HIVE_METASTORE_PARTITION_FILTER). -#}
  {%- set first_partition = run_query('show partitions ' ~ this).columns[0].values() | map('replace', 'time_partition=', '') | min -%}
  {%- set span_first_query = 'select unix_micros(min(period_start)) as s from ' ~ this ~ " where time_partition <= date'" ~ first_partition ~ "'" -%}
  {%- set first_partition_end = stream_windows._sw_partition_end(inc, (modules.datetime.datetime.strptime(first_partition ~ '+0000', '%Y-%m-%d%z').timestamp() | int) * 1000000) -%}
  {%- set span_first = (run_query(span_first_query).rows[0]['s'] | int) if x < first_partition_end else none -%}
  {%- set kept = (' and not ' ~ plan.exclude) if plan.exclude else '' -%}
  {%- set on = [] -%}
  {%- for column in entities -%}{%- do on.append('_sw_known.' ~ column ~ ' <=> _sw_seen.' ~ column) -%}{%- endfor -%}
  {#- The input from X on. A new row with a NULL time has failed the plan's query
      already, which names it: no check is needed here. -#}
  {%- set source = '(select * from ' ~ relation ~ ' as _sw_all where ' ~ stream_windows._sw_key_from(plan, x) ~ ')' -%}
  {%- set unseen = 'select distinct ' ~ entity_sql ~ ' from ' ~ source ~ ' as _sw_seen where ' ~ key ~ ' >= ' ~ x ~ kept
      ~ ' and not exists (select 1 from ' ~ entity_table ~ ' as _sw_known where ' ~ on | join(' and ') ~ ')' -%}
  {#- An entity the table has never seen has new rows and no processed row since the
      plan's cut: when the plan counted no such group, none is new (no query). -#}
  {%- set grid_entities = entity_table -%}
  {%- if plan.fresh_groups_unseen_since_cut != 0 and run_query('select count(*) as n from (' ~ unseen ~ ') as _sw_unseen').rows[0]['n'] > 0 -%}
    {%- set grid_entities = '(select * from ' ~ entity_table ~ ' union all ' ~ unseen ~ ')' -%}
    {#- Recorded by the commit hook, after the write: recorded before it, they would
        be hidden from a rerun of a run that failed, which would skip their periods. -#}
    {%- do plan.commit.insert(0, 'insert into ' ~ entity_table ~ ' ' ~ unseen) -%}
    {%- set span_first = run_query(span_first_query).rows[0]['s'] | int -%}
    {%- set x = stream_windows._sw_partition_start(inc, span_first) -%}
    {%- set source = '(select * from ' ~ relation ~ ' as _sw_all where ' ~ stream_windows._sw_key_from(plan, x) ~ ')' -%}
    {%- do log(macro_name ~ '() in model ' ~ model.name ~ ': new entities; recomputing every period', info=true) -%}
  {%- endif -%}
  {%- set fresh = '(select * from ' ~ source ~ ' as _sw_all where ' ~ key ~ ' >= ' ~ x ~ kept ~ ')' -%}
  {#- The kept input's first and last keys from X on: the plan's aggregation read them
      when it started at X. -#}
  {%- if plan.kept_key_range.from_key == x -%}
    {%- set ends = plan.kept_key_range -%}
  {%- else -%}
    {%- set ends = run_query('select min(' ~ key ~ ') as lo, max(' ~ key ~ ') as hi from ' ~ fresh ~ ' as _sw_fresh').rows[0] -%}
  {%- endif -%}
  {%- set lo = [span_first, x] | max if span_first is not none else x -%}
  {%- set lo = [lo, ends['lo'] | int] | min if ends['lo'] is not none else lo -%}
  {%- set hi = ends['hi'] | int if ends['hi'] is not none else lo -%}
  {%- set cells = stream_windows._sw_fenl_cron_cells(pipelines, time_column, arrival_order) -%}
  {%- set per_period = [] -%}
  {%- set on_grid = [] -%}
  {%- for cell in cells -%}
    {%- do per_period.append(cell.expr ~ ' as ' ~ cell.column) -%}
    {%- do on_grid.append('case when _sw_cells._sw_present is null then ' ~ cell.empty ~ ' else _sw_cells.' ~ cell.column ~ ' end as ' ~ cell.column) -%}
  {%- endfor -%}
  {%- set join_on = ['_sw_cells._sw_period = _sw_grid._sw_period'] -%}
  {%- for column in entities -%}{%- do join_on.append('_sw_cells.' ~ column ~ ' <=> _sw_grid.' ~ column) -%}{%- endfor -%}
  {%- set grid_columns = [] -%}
  {%- for column in entities -%}{%- do grid_columns.append('_sw_grid.' ~ column) -%}{%- endfor -%}
  {%- set grid -%}
select {{ grid_columns | join(', ') }}, _sw_grid._sw_period, {{ on_grid | join(', ') }}
from (
    select _sw_entities.*, _sw_periods._sw_period
    from {{ grid_entities }} as _sw_entities
    cross join (
        select explode({{ stream_windows._sw_fenl_period_keys(bounds, '(' ~ (key_of | format(lo)) ~ ')', '(' ~ (key_of | format(hi)) ~ ')') }}) as _sw_period
    ) as _sw_periods
) as _sw_grid
left join (
    select {{ entity_sql }}, _sw_period, true as _sw_present, {{ per_period | join(', ') }}
    from (select *, {{ bounds.key }} as _sw_period from (select *, {{ time_column }} as _sw_time from {{ fresh }} as _sw_rows) as _sw_timed) as _sw_events
    group by {{ entity_sql }}, _sw_period
) as _sw_cells
on {{ join_on | join(' and ') }}
  {%- endset -%}
{{ stream_windows._sw_plan_comment(plan) }}
select *, {{ stream_windows._sw_incremental_partition_column(inc, 'period_start') }}
from (
    select
        {{ entity_sql }},
        {{ bounds.start }} as period_start,
        {{ bounds.end }} as period_end,
        {{ stream_windows._sw_fenl_outputs(pipelines) | join(',\n        ') }}
    from ({{ grid }}) as _sw_result
) as _sw_periods_out
where period_start >= timestamp_micros({{ x }})
{% endmacro %}
