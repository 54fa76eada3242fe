"""Skills and operational specifications of the task tree, rendered from the reference models' YAML.

Each reference model's YAML (``models/marts/reference/*.yml``) carries a ``meta.skill``
block beside its description: the clinical definition, item and code families in words,
windows, units, missing-data and tie rules, pitfalls and sources. That block is the one
source of truth; ``m4agent tasks skills`` renders from it every family's
``skills/<name>/SKILL.md``, the ``operational-spec.md`` of the sentinel tasks, the
``skills-decoy/`` and ``skills-rawsql/`` variants and each family's ``PROVENANCE.yaml``
(``m4agent.skills.render``). ``m4agent.skills.preflight`` lints a task tree so that none of
these, nor an instruction, gives an answer away.
"""
