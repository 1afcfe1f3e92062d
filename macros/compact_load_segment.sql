{# Post-hook of the appended tables (see _macros.yml): counts the run's append to the open
   `load_segment`; every `cdc_lake_segment_appends`-th append rewrites that segment into two
   files, and a rewritten segment of `cdc_lake_segment_rows` rows or more is closed (later
   runs append to the next). After a first or full-refresh run (the table has no segment
   properties yet), segment 0 holds everything and is closed. Renders the `alter table` that
   records where the table stands; nothing after a run that wrote nothing. #}
{% macro compact_load_segment(relation) -%}
    {%- if execute and not is_writing_nothing(relation) -%}
        {%- set state = load_segment_state(relation) -%}
        {%- set properties = {} -%}
        {%- if table_property(relation, 'cdc_lake.open_segment') is none -%}
            {%- set newest = run_query(
                'select coalesce(unix_micros(max(loaded_at)), -62135596800000000) from '
                ~ relation
            ).rows[0][0] | int -%}
            {%- do properties.update({
                'open_segment': 1,
                'segment_appends': 0,
                'closed_through': newest,
            }) -%}
        {%- elif state.appends + 1 < var('cdc_lake_segment_appends') -%}
            {%- do properties.update({'segment_appends': state.appends + 1}) -%}
        {%- else -%}
            {%- set segment_path = relation_location(relation) ~ '/load_segment=' ~ state.open -%}
            {#- Dynamic overwrite replaces only the segment the rows name, once they are
                written; read by path, since Spark refuses to overwrite the table it reads. -#}
            {%- do run_query('set spark.sql.sources.partitionOverwriteMode = dynamic') -%}
            {%- do run_query(
                'insert overwrite table ' ~ relation ~ ' by name'
                ~ ' select /*+ coalesce(2) */ *, ' ~ state.open ~ ' as load_segment'
                ~ ' from parquet.`' ~ segment_path ~ '`'
            ) -%}
            {%- set held = run_query(
                'select count(*), unix_micros(max(loaded_at)) from ' ~ relation
                ~ ' where load_segment = ' ~ state.open
            ).rows[0] -%}
            {%- do properties.update({'segment_appends': 0}) -%}
            {%- if held[0] | int >= var('cdc_lake_segment_rows') -%}
                {%- set closed = [held[1] | int] + ([] if state.closed_through is none
                    else [state.closed_through]) -%}
                {%- do properties.update({
                    'open_segment': state.open + 1,
                    'closed_through': closed | max,
                }) -%}
            {%- endif -%}
        {%- endif -%}
        {%- set assignments = [] -%}
        {%- for name, value in properties.items() -%}
            {%- do assignments.append("'cdc_lake." ~ name ~ "' = '" ~ value ~ "'") -%}
        {%- endfor -%}
        alter table {{ relation }} set tblproperties ({{ assignments | join(', ') }})
    {%- endif -%}
{%- endmacro %}
