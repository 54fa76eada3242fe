"""Every known difference between our `mimiciv_derived` and m4-infra's, in one place.

The conformance test (tests/test_conformance.py) compares each of the 63 tables row
for row. A table listed here is compared through its exception's ``compare_sql``
instead of ``SELECT * FROM <table>``: the same query runs on both databases, so an
exception can only narrow what is compared, never make the two sides differ. Each
exception is named, says why the difference is acceptable, and is as narrow as
possible (one table, only the rows or columns affected).

``compare_sql`` is a query with the placeholder ``{table}`` for the qualified table
(``mimiciv_derived.<name>``); it may read the source schemas and other derived
tables of the same database.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ConformanceException:
    name: str
    table: str
    reason: str
    compare_sql: str


# Stays where two weight periods start at the same time (an admission and a daily weight
# charted together): mimic-code orders them arbitrarily, so which of the two weights
# applies after that time is unspecified.
_TIED_WEIGHT_STAYS = """
    SELECT DISTINCT stay_id FROM mimiciv_derived.weight_durations
    GROUP BY stay_id, starttime HAVING COUNT(*) > 1
"""

EXCEPTIONS: tuple[ConformanceException, ...] = (
    ConformanceException(
        name="weight_durations_tied_starts",
        table="weight_durations",
        reason=(
            "Weight periods of a stay that start at the same time are ordered arbitrarily by "
            "m4-infra (LEAD over starttime only), so which one ends at once and which one "
            "lasts until the next weight is unspecified; ours orders daily before admit. For "
            "tied periods the group's latest endtime is compared instead of each endtime."
        ),
        compare_sql="""
            SELECT
                stay_id, starttime,
                CASE WHEN COUNT(*) OVER (PARTITION BY stay_id, starttime) > 1 THEN NULL
                    ELSE endtime END AS endtime,
                MAX(endtime) OVER (PARTITION BY stay_id, starttime) AS tied_group_endtime,
                weight, weight_type
            FROM {table}
        """,
    ),
    ConformanceException(
        name="urine_output_rate_tied_weights",
        table="urine_output_rate",
        reason=(
            "Follows from weight_durations_tied_starts: in stays with two weights starting at "
            "the same time, the weight (and so the mL/kg/h rates) may come from either. For "
            "those stays only the weight-free columns are compared."
        ),
        compare_sql=f"""
            SELECT
                stay_id, charttime,
                CASE WHEN stay_id IN ({_TIED_WEIGHT_STAYS}) THEN NULL ELSE weight END AS weight,
                uo, urineoutput_6hr, urineoutput_12hr, urineoutput_24hr,
                CASE WHEN stay_id IN ({_TIED_WEIGHT_STAYS}) THEN NULL ELSE uo_mlkghr_6hr END,
                CASE WHEN stay_id IN ({_TIED_WEIGHT_STAYS}) THEN NULL ELSE uo_mlkghr_12hr END,
                CASE WHEN stay_id IN ({_TIED_WEIGHT_STAYS}) THEN NULL ELSE uo_mlkghr_24hr END,
                uo_tm_6hr, uo_tm_12hr, uo_tm_24hr
            FROM {{table}}
        """,
    ),
    ConformanceException(
        name="oxygen_delivery_flow_storetime_ties",
        table="oxygen_delivery",
        reason=(
            "When one O2 flow item (223834/227582 as one, or 227287) is charted twice at the same "
            "charttime with the same latest storetime, m4-infra keeps an arbitrary one "
            "(ROW_NUMBER ordered by storetime only); ours keeps the larger value, as mimic-code "
            "HEAD does. At such times the flows are not compared."
        ),
        compare_sql="""
            WITH flows AS (
                SELECT
                    subject_id, charttime,
                    CASE WHEN itemid IN (223834, 227582) THEN 223834 ELSE itemid END AS itemid,
                    storetime
                FROM mimiciv_icu.chartevents
                WHERE value IS NOT NULL AND itemid IN (223834, 227582, 227287)
            ),
            tied AS (
                SELECT DISTINCT subject_id, charttime
                FROM flows
                QUALIFY COUNT(*) OVER (PARTITION BY subject_id, charttime, itemid, storetime) > 1
                    AND storetime = MAX(storetime) OVER (PARTITION BY subject_id, charttime, itemid)
            )
            SELECT
                t.subject_id, t.stay_id, t.charttime,
                CASE WHEN tied.subject_id IS NULL THEN t.o2_flow END AS o2_flow,
                CASE WHEN tied.subject_id IS NULL THEN t.o2_flow_additional END AS o2_flow_additional,
                t.o2_delivery_device_1, t.o2_delivery_device_2,
                t.o2_delivery_device_3, t.o2_delivery_device_4
            FROM {table} AS t
            LEFT JOIN tied
                ON t.subject_id = tied.subject_id AND t.charttime = tied.charttime
        """,
    ),
    ConformanceException(
        name="first_day_rrt_dialysis_type_order",
        table="first_day_rrt",
        reason=(
            "m4-infra lists the distinct dialysis types with GROUP_CONCAT(DISTINCT ...), whose "
            "order DuckDB leaves unspecified; ours lists them alphabetically. The set of types "
            "is compared, not their order."
        ),
        compare_sql=(
            "SELECT subject_id, stay_id, dialysis_present, dialysis_active, "
            "ARRAY_TO_STRING(LIST_SORT(STRING_SPLIT(dialysis_type, ', ')), ', ') AS dialysis_type "
            "FROM {table}"
        ),
    ),
    ConformanceException(
        name="first_day_gcs_tied_lowest_score",
        table="first_day_gcs",
        reason=(
            "When a stay's lowest first-day GCS was charted more than once, m4-infra takes the "
            "components (motor, verbal, eyes, unable) of an arbitrary one of those chartings "
            "(ROW_NUMBER ordered by gcs only); ours takes the latest, as mimic-code HEAD does. For such stays only "
            "gcs_min is compared."
        ),
        compare_sql="""
            WITH first_day AS (
                SELECT g.stay_id, g.gcs
                FROM mimiciv_icu.icustays AS ie
                INNER JOIN mimiciv_derived.gcs AS g
                    ON ie.stay_id = g.stay_id
                    AND g.charttime >= ie.intime - INTERVAL '6' HOUR
                    AND g.charttime <= ie.intime + INTERVAL '1' DAY
            ),
            tied AS (
                SELECT stay_id
                FROM first_day
                QUALIFY COUNT(*) OVER (PARTITION BY stay_id, gcs) > 1
                    AND gcs = MIN(gcs) OVER (PARTITION BY stay_id)
            )
            SELECT
                t.subject_id, t.stay_id, t.gcs_min,
                CASE WHEN t.stay_id IN (SELECT stay_id FROM tied) THEN NULL ELSE t.gcs_motor END,
                CASE WHEN t.stay_id IN (SELECT stay_id FROM tied) THEN NULL ELSE t.gcs_verbal END,
                CASE WHEN t.stay_id IN (SELECT stay_id FROM tied) THEN NULL ELSE t.gcs_eyes END,
                CASE WHEN t.stay_id IN (SELECT stay_id FROM tied) THEN NULL ELSE t.gcs_unable END
            FROM {table} AS t
        """,
    ),
)


def exception_for(table: str) -> ConformanceException | None:
    matches = [e for e in EXCEPTIONS if e.table == table]
    if len(matches) > 1:
        raise ValueError(f"more than one conformance exception for {table}: {[e.name for e in matches]}")
    return matches[0] if matches else None
