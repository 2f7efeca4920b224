"""``lockstep.html``: the divergence report of a lockstep run as one self-contained page (no
script, nothing fetched; every text escaped). Per flow: one row per step, one column per
device (its outcome and refusal, the screen it showed after), and the differences."""

from __future__ import annotations

from html import escape
from pathlib import Path

from bridge.flows.html import _STYLE
from bridge.flows.report import LockstepFlow, LockstepReport, encode_lockstep


def _flow(flow: LockstepFlow) -> str:
    heads = "".join(f"<th>{escape(d)}</th>" for d in flow.devices)
    rows: list[str] = []
    for step in flow.steps:
        cells = "".join(
            f'<td><span class="badge {o.status}">{o.status}</span>'
            f"{' <b>' + escape(o.refusal) + '</b>' if o.refusal else ''}"
            f'<div class="muted">{escape(", ".join(o.markers) or "unmarked")}, '
            f"{o.elements} elements, {o.elapsed_ms} ms</div>"
            f"{'<div>' + escape(o.message) + '</div>' if o.message else ''}</td>"
            for o in step.outcomes
        )
        diffs = "".join(f"<li>{escape(line)}</li>" for line in step.differences)
        if step.persisting:
            diffs += f'<li class="muted">{step.persisting} as after the step before</li>'
        divergent = "true" if step.differences else "false"
        rows.append(
            f'<tr data-testid="lockstep-step" data-divergent="{divergent}">'
            f"<td>{step.index}</td>"
            f'<td class="muted">{escape(Path(step.file).name)}:{step.line}</td>'
            f"<td><pre>{escape(step.source)}</pre></td>{cells}"
            f'<td><ul data-testid="differences">{diffs}</ul></td></tr>'
        )
    return (
        f'<section class="test" data-testid="lockstep-flow" data-file="{escape(flow.file)}">'
        f'<details open><summary>{escape(flow.name)} <span class="muted">{escape(flow.file)}'
        f": {flow.divergent_steps} of {len(flow.steps)} steps diverge</span></summary>"
        f'<div class="body"><table><tr><th>#</th><th>where</th><th>step</th>{heads}'
        f"<th>differences</th></tr>{''.join(rows)}</table></div></details></section>"
    )


def render_lockstep(report: LockstepReport) -> str:
    divergent = sum(f.divergent_steps for f in report.flows)
    title = (
        f"lockstep on {', '.join(report.devices)}: {len(report.flows)} flows, "
        f"{divergent} divergent steps"
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>mobridge lockstep — {escape(title)}</title><style>{_STYLE}</style></head>"
        f'<body><header><h1 data-testid="summary">{escape(title)}</h1><div>hub '
        f"{escape(report.hub)}, started {escape(report.started_at)}, {escape(report.tool)}"
        f"</div></header><main>{''.join(_flow(f) for f in report.flows)}</main></body></html>\n"
    )


def write_lockstep(report: LockstepReport, report_dir: Path) -> Path:
    """``lockstep.json`` and ``lockstep.html`` in ``report_dir``; returns the page."""
    report_dir.mkdir(parents=True, exist_ok=True)
    (report_dir / "lockstep.json").write_bytes(encode_lockstep(report))
    page = report_dir / "lockstep.html"
    page.write_text(render_lockstep(report), encoding="utf-8")
    return page
