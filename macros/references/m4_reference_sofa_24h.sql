{#-
  The SOFA reference's SQL (model ref_sofa_24h), under its conventions as declared in
  models/marts/reference/ref_sofa_24h.yml, or with `flip` changing one of them (a variant,
  docs/explain.md). Vincent JL et al. Intensive Care Med 1996;22:707-710.
-#}
{% macro m4_reference_sofa_24h(flip={}) %}
{%- set conventions = m4_conventions('ref_sofa_24h', ['window', 'gas_specimen', 'missing_component'], flip) -%}

-- Macro sofa_first_day, shared with the first_day_sofa concept: gases and infusion starts in the window
-- (documented: intime - 6 h to intime + 24 h, both inclusive; convention window), arterial gases only
-- (convention gas_specimen), epinephrine or norepinephrine up to 0.1 scoring 3 only at a rate above 0,
-- a component without data shown as convention missing_component reads it (documented: 0); the total
-- counts it as 0 either way.
{{ sofa_first_day(
    window=conventions.window,
    arterial_only=conventions.gas_specimen.arterial_only,
    low_dose_needs_a_rate=true,
    missing_component=conventions.missing_component
) }}
{% endmacro %}
