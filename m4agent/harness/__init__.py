"""The harness: agents in locked containers on task workspaces, run by campaigns.

Layers, each importing only those before it (and the ground floor's ``m4agent.layout``,
where things are inside a container, which workspaces read too): ``records`` (run keys,
attempts, outcomes), ``instructions`` and
``conditions`` (what the agent is told and given), ``egress`` (the one door out),
``container`` (Docker), ``agents`` (one module per agent), ``integrity`` (canaries,
lint), ``run`` (one attempt), ``campaign`` (a matrix of runs).
"""
