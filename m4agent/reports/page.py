"""``report.html``: one self-contained page (no network, no side files): the headline, the tables and
the figures, embedded as PNG data URIs with their SVG beside them in ``figures/``.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import Any

from m4agent.reports.tables import Table, all_tables, basis, fmt, fmt_ci, fmt_p, label, primary

STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1200px;
color:#1d1d1f;padding:0 1rem;line-height:1.45}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.25rem;margin-top:2.2rem;border-bottom:1px solid #ddd}
h3{font-size:1.05rem;margin-top:1.6rem}
table{border-collapse:collapse;margin:.6rem 0;font-size:.86rem}
th,td{border:1px solid #d0d0d0;padding:.25rem .5rem;text-align:right;vertical-align:top}
th{background:#f2f4f7}td:first-child,th:first-child{text-align:left}
.headline{background:#f5f9ff;border:1px solid #b8d0f0;border-radius:6px;padding:.8rem 1.1rem;margin:1rem 0}
.headline strong{font-size:1.15rem}.note{color:#555;font-size:.82rem}
figure{margin:1.2rem 0}figure img{max-width:100%;border:1px solid #e3e3e3}
figcaption{color:#444;font-size:.85rem}.scroll{overflow-x:auto}
"""


def _table(table: Table) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in table.headers)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in table.rows)
    note = f'<p class="note">{html.escape(table.note)}</p>' if table.note else ""
    return (f'<h3 id="{html.escape(table.name)}">{html.escape(table.title)}</h3><div class="scroll"><table>'
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>{note}")


def _headline(report: dict[str, Any]) -> str:
    parts = []
    for c in primary(report):
        strict = ", ".join(f"{name}: {p}/{n}" for name, (p, n) in c["strict_pass"].items())
        parts.append(
            f'<div class="headline"><strong>{html.escape(label(c))}: delta {fmt(c["delta"])} '
            f'{fmt_ci(c["ci_low"], c["ci_high"])}</strong>, sign-flip p {fmt_p(c["p_sign_flip"])}; '
            f'{c["tasks_improved"]} of {c["tasks"]} tasks improve, {c["tasks_declined"]} decline. '
            f'Strict passes {html.escape(strict)}. Key F1 delta {fmt(c["key_f1_delta"])}, ordered-value nMAE '
            f'delta {fmt(c["nmae_delta"])}. Estimated {html.escape(basis(report))}.</div>')
    if not parts:
        parts.append('<div class="headline">No two conditions share a task and model: there is no '
                     "comparison to make; the tables below describe the runs.</div>")
    return "".join(parts)


def _figure(figure: Any) -> str:
    data = base64.b64encode(figure.png.read_bytes()).decode("ascii")
    return (f'<figure id="{html.escape(figure.name)}"><img alt="{html.escape(figure.title)}" '
            f'src="data:image/png;base64,{data}"><figcaption><strong>{html.escape(figure.title)}.</strong> '
            f"{html.escape(figure.caption)} (SVG: figures/{html.escape(figure.svg.name)})</figcaption></figure>")


def render(report: dict[str, Any], figures: list[Any]) -> str:
    sources = ", ".join(f"{s['path']} ({s['kind']}, {s['runs']} runs)" for s in report["sources"])
    params = report["parameters"]
    tables = all_tables(report)
    figure_html = "".join(_figure(f) for f in figures) or "<p>No figures (made with --no-figures).</p>"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>m4agent report</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>{STYLE}</style></head>
<body><h1>m4agent report</h1>
<p class="note">Runs from {html.escape(sources)}. Bootstrap {params['bootstrap_reps']} repetitions (seed
{params['seed']}; family bootstraps seed {params['family_seed']}), sign-flip test {params['sign_flip_reps']}
repetitions (seed {params['sign_flip_seed']}).</p>
<h2>Headline</h2>{_headline(report)}
<h2>Figures</h2>{figure_html}
<h2>Tables</h2>{''.join(_table(t) for t in tables)}
</body></html>
"""


def write_html(report: dict[str, Any], figures: list[Any], path: Path) -> Path:
    path.write_text(render(report, figures))
    return path
