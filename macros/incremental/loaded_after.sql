{# A condition keeping the rows of `relation` whose `column` is later than `after` (a SQL
   timestamp expression, which may be a scalar subquery): `false` when it has none, else
   `column in (<each such load time>)`, the load times named by one probe of the relation.
   Named, not compared (`column > after`), so that the query's generated code is the same from
   run to run: Spark writes a timestamp literal into the Java it generates, so each run's
   watermark made every reading query a new class to compile, while an IN of more than 10
   values is one set the code refers to (macro load_times_condition writes it; parquet still
   skips the older files, as an IN that long is pushed down as the range of its values). See
   _macros.yml. #}
{% macro loaded_after(relation, after, column='loaded_at', max_loads=1000) -%}
    {%- if not execute -%}
        {{ return('true') }}
    {%- endif -%}
    {%- set probe_sql -%}
        select distinct unix_micros({{ column }}) as load_micros from {{ relation }}
        where {{ column }} > {{ after }}
        order by load_micros
        limit {{ max_loads + 1 }}
    {%- endset -%}
    {%- set loads = run_query(probe_sql).columns[0].values() | map('int') | list -%}
    {{ return(load_times_condition(loads, column, max_loads)) }}
{%- endmacro %}
