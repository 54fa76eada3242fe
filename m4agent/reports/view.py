"""``m4agent view``: static HTML pages of runs, for reading what an agent did and how it scored.

``write_view(PATH)`` writes, for a run folder (``runs/<task>/<key>``), ``view.html`` beside
its files; for a campaign folder, ``view/index.html`` (every run with its outcome, reward,
tokens and cost) and one page per run; with a second run folder, a side-by-side page of
the two (for example the same task without and with skills). A run's page shows the
instruction, each step of its trajectory (``trajectory``: the commands and SQL the
agent ran, what they printed, tokens per step), the egress decisions, the ledger, and
the output against the reference, row by row, with every mismatching cell marked
(class ``mismatch``): the runs are graded again, in one call, with grading's verdict on
each cell kept (``cells.cell_verdicts``), against the references of the data directory
the campaign ran on; the grade itself is the run's ``result.json``. The pages are self-contained (inline CSS,
a few lines of script that count the marks) and open from disk in any browser.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from m4agent import campaign_folder, discovery
from m4agent.errors import M4AgentError
from m4agent.harness import records, trajectory
from m4agent.harness.agents import get_agent
from m4agent.run_folder import ATTEMPTS_DIR, OUTPUT_NAME, RESULT_FILE, RUN_FILE, read_json

if TYPE_CHECKING:
    from m4agent.grading.cells import CellVerdicts

MAX_ROWS = 300  # rows of the output table (mismatching rows first)
MARKS = {"match": "ok", "mismatch": "mismatch", "missing": "missing"}  # a cell's verdict -> its class

CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.3em}h2{font-size:1.1em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ddd;padding:2px 6px;text-align:left}
pre{background:#f6f8fa;padding:.6em;overflow:auto;max-height:30em;white-space:pre-wrap}
.step{border-left:3px solid #999;padding-left:.8em;margin:.8em 0}.step.tool{border-color:#2a7ae2}
.step.error{border-color:#d33}.mismatch{background:#fdd;font-weight:bold}.missing{background:#eee;color:#888}
.ok{background:#efe}.tokens{color:#666;font-size:12px}.denied{color:#d33}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:1.5em}.pair>section{min-width:0}
"""
SCRIPT = """
document.addEventListener('DOMContentLoaded',function(){
  document.querySelectorAll('[data-count-of]').forEach(function(el){
    var scope=el.closest('section')||document;
    el.textContent=scope.querySelectorAll('td.'+el.getAttribute('data-count-of')).length;
  });
  document.body.setAttribute('data-rendered','yes');
});
"""


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value))


def _page(title: str, body: str) -> str:
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{_e(title)}</title>"
            f"<style>{CSS}</style><script>{SCRIPT}</script></head><body>{body}</body></html>")


def _final_attempt(run_folder: Path, result: dict[str, Any] | None) -> Path | None:
    folders = records.attempt_folders(run_folder)
    if result and result.get("attempt"):
        wanted = run_folder / ATTEMPTS_DIR / f"{int(result['attempt']):04d}"
        if wanted.is_dir():
            return wanted
    return folders[-1] if folders else None


def _task(run_folder: Path, name: str) -> Any:
    from m4agent.registry import TASKS_DIR, all_tasks

    campaign_dir = discovery.campaign_of(run_folder)
    tasks_dir = TASKS_DIR
    if campaign_dir is not None:
        tasks_dir = Path(read_json(campaign_dir / campaign_folder.CAMPAIGN_FILE).get("tasks_dir", TASKS_DIR))
    return all_tasks(tasks_dir).get(name)


def output_table(cells: CellVerdicts | None, result: dict[str, Any]) -> str:
    """The output against the reference, one row per reference row, each cell marked with grading's
    verdict on it (``cells.cell_verdicts``): mismatching rows first."""
    if cells is None or not cells.rows:
        reasons = "; ".join(result.get("errors") or []) or "grading compared no rows"
        return f"<p>The output cannot be compared: {_e(reasons)}</p>"
    first = cells.rows[0]
    head = "".join(f"<th>{_e(column)}</th>" for column, role, *_ in first if role == "key")
    head += "".join(f"<th>{_e(column)}</th>" for column, role, *_ in first if role != "key")
    rows = []
    for row in cells.rows:
        keys = "".join(f"<td>{_e(truth)}</td>" for _, role, truth, _, _ in row if role == "key")
        scored = ""
        for _, role, truth, agent, verdict in row:
            if role == "key":
                continue
            mark = MARKS[verdict or "missing"]
            shown = "(no row)" if mark == "missing" else _e(agent)
            scored += f"<td class='{mark}' title='{_e(f'reference: {truth}')}'>{shown}</td>"
        rows.append(f"<tr>{keys}{scored}</tr>")
    note = (f"<p>{cells.differing_rows} of {cells.truth_rows} reference rows differ "
            f"(<span data-count-of='mismatch'></span> mismatching cells, marked; hover a cell for the "
            f"reference value); {int(result.get('extra_keys') or 0)} output rows have no reference key.")
    if cells.truth_rows > len(cells.rows):
        note += f" First {len(cells.rows)} rows shown, mismatching rows first."
    return note + f"</p><table><tr>{head}</tr>{''.join(rows)}</table>"


def _output_of(run_folder: Path) -> Path | None:
    """The final attempt's output.csv (the one graded), if there is one."""
    spec_result = run_folder / RESULT_FILE
    result = read_json(spec_result) if spec_result.exists() else None
    attempt = _final_attempt(run_folder, result)
    output = attempt / OUTPUT_NAME if attempt else None
    return output if output is not None and output.is_file() and not output.is_symlink() else None


def comparisons(run_folders: list[Path]) -> dict[Path, str]:
    """Each run's output against its reference, as HTML: the runs of one campaign are graded in one
    call with every cell's verdict (against the references of the campaign's data directory)."""
    from m4agent.grading.cells import cell_verdicts
    from m4agent.grading.loader import Run

    shown: dict[Path, str] = {}
    by_data_dir: dict[Path, list[tuple[Path, Run]]] = {}
    for folder in run_folders:
        spec = read_json(folder / RUN_FILE)
        campaign_dir = discovery.campaign_of(folder)
        data_dir = read_json(campaign_dir / campaign_folder.CAMPAIGN_FILE).get("data_dir") if campaign_dir \
            else None
        task = _task(folder, spec["task"])
        output = _output_of(folder)
        if output is None:
            shown[folder] = "<p>No output.csv.</p>"
        elif data_dir is None or task is None:
            shown[folder] = ("<p>No reference beside this run: it is compared only inside a campaign folder "
                             "whose campaign.json names its data directory.</p>")
        else:
            by_data_dir.setdefault(Path(data_dir), []).append((folder, Run(run_id=spec["key"], task=task,
                                                                           output_path=output)))
    for data_dir, runs in by_data_dir.items():
        try:
            results, cells = cell_verdicts([run for _, run in runs], data_dir, limit=MAX_ROWS)
        except M4AgentError as exc:
            for folder, _ in runs:
                shown[folder] = f"<p>The output cannot be compared: {_e(exc)}</p>"
            continue
        for folder, run in runs:
            shown[folder] = output_table(cells.get(run.run_id), results.get(run.run_id, {}))
    return shown


def _steps_html(traj: dict[str, Any]) -> str:
    parts = []
    for number, step in enumerate(traj["steps"], 1):
        tokens = f"<span class='tokens'>tokens {_e(json.dumps(step['tokens']))}</span>" if step.get("tokens") else ""
        when = f"<span class='tokens'>{_e(step.get('ts'))}</span>" if step.get("ts") else ""
        if step["kind"] == "tool":
            body = (f"<b>{number}. {_e(step.get('tool'))}</b> {when} {tokens}<pre class='input'>{_e(step.get('input'))}"
                    f"</pre><pre class='output'>{_e(step.get('output'))}</pre>")
        else:
            body = f"<b>{number}. {_e(step['kind'])}</b> {when} {tokens}<pre>{_e(step.get('text'))}</pre>"
        parts.append(f"<div class='step {_e(step['kind'])}'>{body}</div>")
    return "".join(parts) or "<p>No steps (the agent left no trace).</p>"


def _ledger_html(ledger: dict[str, Any] | None) -> str:
    if not ledger:
        return "<p>No token counts (this agent reports none).</p>"
    usage = ledger["usage"]
    reported = (ledger.get("reported") or {}).get("usage") or {}
    differ = set(ledger.get("disagreements") or ())
    cells = "".join(
        f"<tr{' class=mismatch' if k in differ else ''}><th>{_e(k)}</th>"
        f"<td>{_e('not reported by the protocol' if v is None else v)}</td>"
        + (f"<td>{_e(reported.get(k, ''))}</td>" if reported else "") + "</tr>"
        for k, v in usage.items())
    head = "<tr><th></th><th>on the wire</th><th>the CLI reported</th></tr>" if reported else ""
    cost = ledger.get("cost") or {}
    usd = "unknown" if cost.get("usd") is None else f"${cost['usd']:.4f}"
    note = "<p>Counted from the provider's answers as the metering proxy read them.</p>" \
        if ledger.get("source") == "wire" else ""
    return (f"{note}<table>{head}{cells}<tr><th>cost</th><td>{_e(usd)} ({_e(cost.get('source'))}, prices "
            f"{_e(cost.get('price_table'))})</td></tr><tr><th>model</th><td>{_e(ledger.get('model'))}</td></tr></table>")


def _egress_html(traj: dict[str, Any]) -> str:
    events, more, summary = traj.get("egress", []), traj.get("egress_more", 0), traj.get("egress_summary")
    if not events and not summary:
        return "<p>No egress.</p>"
    rows = "".join(f"<tr class='{'' if e.get('allowed') else 'denied'}'><td>{_e(e.get('ts'))}</td><td>{_e(e.get('host'))}:"
                   f"{_e(e.get('port'))}</td><td>{'allowed' if e.get('allowed') else 'denied'}</td>"
                   f"<td>{_e(e.get('reason'))}</td></tr>" for e in events)
    parts = [f"<table><tr><th>time</th><th>host</th><th>decision</th><th>why</th></tr>{rows}</table>"] if rows else []
    if more:
        parts.append(f"<p>{more} more decisions in egress.jsonl, not shown.</p>")
    if summary:
        refused = ", ".join(f"{_e(kind)} {_e(count)}" for kind, count in (summary.get("refused") or {}).items())
        unlogged = (summary.get("not_logged") or {}).get("refusals") or 0
        parts.append(f"<p class='egress-summary'>The proxy served {_e(summary.get('connections'))} connections, "
                     f"{_e(summary.get('tunnels'))} tunnels; refused: {refused or 'none'}"
                     + (f" ({_e(unlogged)} of them counted, not logged)" if unlogged else "") + ".</p>")
    return "".join(parts)


def _diagnosis_html(run_folder: Path, key: str) -> str:
    """The run's diagnosis from its campaign's ``explain.json`` (``m4agent explain``), or how to get one."""
    from m4agent.explain import saved

    campaign_dir = discovery.campaign_of(run_folder)
    record = saved(campaign_dir).get(key) if campaign_dir is not None else None
    if record is None:
        return "<p>Not diagnosed: run <code>m4agent explain</code> on the campaign folder.</p>"
    rows = "".join(
        f"<tr class='{'explains' if r.get('explains') else ''}'><td>{_e(r.get('label'))}</td>"
        f"<td>{_e(r.get('convention'))}</td><td>{_e((r.get('fit') or {}).get('agreeing_rows'))}/"
        f"{_e((r.get('fit') or {}).get('counted_rows'))}</td><td>{_e(r.get('rows_changed'))}</td>"
        f"<td>{_e(r.get('rows_explained'))}</td><td>{'yes' if r.get('explains') else ''}</td></tr>"
        for r in record.get("readings", []))
    documented = record.get("documented") or {}
    table = ("<table><tr><th>reading</th><th>convention</th><th>rows agreeing under it</th><th>rows it changes"
             "</th><th>rows it explains</th><th>explains</th></tr>" + rows + "</table>") if rows else ""
    return (f"<p class='diagnosis'>{_e(record.get('summary'))}</p><p>Under the documented reading "
            f"{_e(documented.get('agreeing_rows'))}/{_e(documented.get('counted_rows'))} rows agree.</p>{table}")


def run_section(run_folder: Path, compared: str) -> tuple[str, dict[str, Any]]:
    """One run's HTML section, with ``compared`` (its output against the reference, ``comparisons``),
    and its summary (for the index); writes the run's ``trajectory.json``."""
    spec = read_json(run_folder / RUN_FILE)
    result_path = run_folder / RESULT_FILE
    result = read_json(result_path) if result_path.exists() else None
    attempt = _final_attempt(run_folder, result)
    try:
        agent: Any = get_agent(spec["agent"])
    except M4AgentError:
        agent = spec["agent"]
    traj = trajectory.build(attempt, agent) if attempt else {"steps": [], "egress": [], "ledger": None}
    if attempt is not None:
        trajectory.write(attempt, agent)
    instruction = run_folder / "instruction.md"
    reward = "-" if result is None else f"{result.get('reward', 0):.4f}"
    summary = {"task": spec["task"], "condition": spec["condition"], "schema": spec["schema"],
               "agent": spec["agent"], "model": spec["model"], "trial": spec["trial"], "key": spec["key"],
               "outcome": (result or {}).get("outcome", traj.get("outcome") or "not run"), "reward": reward,
               "cost": ((traj.get("ledger") or {}).get("cost") or {}).get("usd")}
    head = (f"<h1>{_e(spec['task'])} · {_e(spec['condition'])} · {_e(spec['schema'])} · {_e(spec['agent'])}/"
            f"{_e(spec['model'])} · trial {_e(spec['trial'])}</h1><p>outcome <b class='outcome'>"
            f"{_e(summary['outcome'])}</b> {_e((result or {}).get('reason', ''))} · reward <b class='reward'>{reward}"
            f"</b> · strict pass {_e((result or {}).get('strict_pass', '-'))}</p>")
    body = (head + "<h2>Instruction</h2><pre>" + _e(instruction.read_text() if instruction.exists() else "") + "</pre>"
            + "<h2>Tokens and cost</h2>" + _ledger_html(traj.get("ledger"))
            + "<h2>Output against the reference</h2>" + compared
            + "<h2>Why it missed: conventions (m4agent explain)</h2>" + _diagnosis_html(run_folder, spec["key"])
            + "<h2>Steps</h2>" + _steps_html(traj) + "<h2>Egress</h2>" + _egress_html(traj))
    return f"<section>{body}</section>", summary


def _index(found: discovery.CampaignRuns, out: Path) -> Path:
    campaign_dir = found.folder
    pages = out
    pages.mkdir(parents=True, exist_ok=True)
    rows, by_task = [], {}
    specs = sorted(found.specs, key=lambda s: (s.task, s.condition, s.agent, s.trial))
    folders = [found.run_folder(spec) for spec in specs]
    compared = comparisons(folders)
    sections = {folder: run_section(folder, compared[folder]) for folder in folders}
    for folder in folders:
        section, summary = sections[folder]
        (pages / f"{summary['key']}.html").write_text(_page(summary["task"], section))
        by_task.setdefault(summary["task"], []).append((folder, summary))
        cost = "-" if summary["cost"] is None else f"${summary['cost']:.4f}"
        rows.append("<tr>" + "".join(f"<td>{_e(summary[k])}</td>" for k in
                                     ("task", "condition", "schema", "agent", "model", "trial", "outcome", "reward"))
                    + f"<td>{cost}</td><td><a href='{summary['key']}.html'>run</a></td></tr>")
    pairs = []
    for task, runs in by_task.items():
        conditions = {s["condition"]: f for f, s in runs}
        if len(conditions) >= 2:
            (a_cond, a), (b_cond, b) = list(conditions.items())[:2]
            name = f"compare-{task}.html"
            (pages / name).write_text(compare_page(sections[a], sections[b]))
            pairs.append(f"<li><a href='{name}'>{_e(task)}: {_e(a_cond)} against {_e(b_cond)}</a></li>")
    head = "".join(f"<th>{h}</th>" for h in ("task", "condition", "schema", "agent", "model", "trial", "outcome",
                                               "reward", "cost", ""))
    body = (f"<h1>Campaign {_e(campaign_dir.name)}</h1><table><tr>{head}</tr>{''.join(rows)}</table>"
            + (f"<h2>Side by side</h2><ul>{''.join(pairs)}</ul>" if pairs else ""))
    index = pages / "index.html"
    index.write_text(_page(f"campaign {campaign_dir.name}", body))
    return index


def compare_page(first: tuple[str, dict[str, Any]], second: tuple[str, dict[str, Any]]) -> str:
    """Two runs' sections (``run_section``) side by side."""
    (left, a), (right, b) = first, second
    title = f"{a['task']}: {a['condition']} against {b['condition']}"
    return _page(title, f"<div class='pair'>{left}{right}</div>")


def write_view(target: Path, other: Path | None = None, out: Path | None = None) -> Path:
    """Write the HTML view of a run folder, two run folders side by side, or a campaign; returns the page."""
    target = target.resolve()
    if other is not None:
        other = other.resolve()
        for folder in (target, other):
            if not discovery.is_run(folder):
                raise M4AgentError(f"{folder} is not a run folder (no run.json, or not a run of the campaign it "
                                   "lies in); pass two runs/<task>/<key> folders")
        page = out or target / "compare.html"
        pair = [target, other]
        compared = comparisons(pair)
        page.write_text(compare_page(*(run_section(folder, compared[folder]) for folder in pair)))
        return page
    if discovery.is_run(target):
        section, summary = run_section(target, comparisons([target])[target])
        page = out or target / "view.html"
        page.write_text(_page(summary["task"], section))
        return page
    found = discovery.campaign_at(target)
    if found is not None:
        return _index(found, out or target / "view")
    raise M4AgentError(f"{target} is neither a run folder (run.json) nor a campaign folder (campaign.json and "
                       "plan.json), or it lies inside a run's attempts (what an agent wrote is never read as a "
                       "run); pass a runs/<task>/<key> folder or a campaign folder")


def view_command(
    target: Annotated[Path, typer.Argument(help="A run folder (runs/<task>/<key>) or a campaign folder.")],
    other: Annotated[Path | None, typer.Argument(help="A second run folder: the two side by side.",
                                                 show_default=False)] = None,
    out: Annotated[Path | None, typer.Option("--out", metavar="PATH", help="Where to write the page (a folder for a campaign).",
                                             show_default=False)] = None,
) -> None:
    """Write the HTML view of a run folder, a campaign folder, or two run folders side by side."""

    page = write_view(target, other, out)
    typer.echo(f"wrote {page}; open it in a browser")
