-- Urine output charted in intakeoutput: one row per output cell whose path counts as urine.
-- Cell paths of eicu-code concepts/pivoted/pivoted-uo.sql as M4Bench benchmark/ground_truth/oasis.sql lists them.
WITH output_cells AS (

    SELECT
        intakeoutputid,
        patientunitstayid,
        intakeoutputoffset,
        cellpath,
        cellvaluenumeric
    FROM {{ ref('stg_eicu_crd__intakeoutput') }}
    -- case-sensitive prefix: a case-insensitive pattern below never reaches other spellings
    WHERE cellpath LIKE 'flowsheet|Flowsheet Cell Labels|I&O|Output (ml)|%'
        AND cellvaluenumeric IS NOT NULL

),

urine_paths AS (

    SELECT
        cellpath_pattern,
        match_type
    FROM {{ ref('eicu_urine_output_cellpaths') }}

),

pattern_exclusions AS (

    SELECT
        cellpath_pattern,
        excluded_substring
    FROM {{ ref('eicu_urine_output_cellpath_exclusions') }}

),

classified AS (

    -- a row counts when any exact path or pattern matches it (pattern exclusions applied)
    SELECT
        output_cells.intakeoutputid,
        output_cells.patientunitstayid,
        output_cells.intakeoutputoffset,
        output_cells.cellpath,
        output_cells.cellvaluenumeric,
        EXISTS (
            SELECT 1
            FROM urine_paths
            WHERE urine_paths.match_type = 'exact'
                AND urine_paths.cellpath_pattern = output_cells.cellpath
        )
        OR EXISTS (
            SELECT 1
            FROM urine_paths
            WHERE (
                (urine_paths.match_type = 'like' AND output_cells.cellpath LIKE urine_paths.cellpath_pattern)
                OR (urine_paths.match_type = 'ilike' AND LOWER(output_cells.cellpath) LIKE LOWER(urine_paths.cellpath_pattern))
            )
            AND NOT EXISTS (
                SELECT 1
                FROM pattern_exclusions
                WHERE pattern_exclusions.cellpath_pattern = urine_paths.cellpath_pattern
                    AND LOWER(output_cells.cellpath) LIKE '%' || pattern_exclusions.excluded_substring || '%'
            )
        ) AS is_urine
    FROM output_cells

)

SELECT
    intakeoutputid,
    patientunitstayid,
    intakeoutputoffset,
    cellpath,
    cellvaluenumeric AS urineoutput
FROM classified
WHERE is_urine
