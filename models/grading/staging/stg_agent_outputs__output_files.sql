{{ config(enabled=var('m4_grading', false), materialized='view') }}
SELECT * FROM {{ source('agent_outputs', 'output_files') }}
