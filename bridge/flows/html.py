"""``index.html``: the suite report as one self-contained page.

Styles are inline, screenshots are ``data:`` URIs read from the report directory, and the page
has no script and fetches nothing, so it opens from a CI artifact, a mail attachment or a
file share alike. Every text from a flow or the hub is HTML-escaped. Per test: status,
device, timings, the failure (message, the hub's refusal with its recovery hints and the
candidates of an ambiguous match, the screenshot at the failure), every step (as written,
with outcome and elapsed time; a runFlow's steps nested), and the named screenshots.
Elements carry ``data-testid`` attributes for browser tests.
"""

from __future__ import annotations

import base64
from html import escape
from pathlib import Path

from bridge.flows.report import Refusal, Shot, StepReport, SuiteReport, TestReport

MAX_INLINE_PNG = 8 << 20

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
header{background:#1d2330;color:#fff;padding:16px 24px}
header h1{margin:0 0 6px;font-size:20px}
main{padding:16px 24px;max-width:1280px}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600}
.passed{background:#d8f3e0;color:#135c2b}.failed{background:#fde0dd;color:#8a1c12}
.error{background:#fff1cc;color:#7a5200}.skipped{background:#e7e9ee;color:#555}
.tolerated{background:#fff1cc;color:#7a5200}.refused{background:#dfe9fb;color:#1c3f8a}
section.test{background:#fff;border:1px solid #dde1e8;border-radius:8px;margin:12px 0}
section.test>details>summary{padding:10px 14px;cursor:pointer;font-weight:600}
.body{padding:0 14px 14px}
table{border-collapse:collapse;width:100%;margin:8px 0}
td,th{border-bottom:1px solid #eceff3;padding:4px 6px;text-align:left;vertical-align:top}
th{font-size:12px;color:#555}
pre{margin:0;white-space:pre-wrap;font:12px/1.4 ui-monospace,monospace}
.failure{border-left:4px solid #c0392b;background:#fff6f5;padding:8px 12px;margin:8px 0}
.shot img{max-width:320px;height:auto;border:1px solid #ccd;border-radius:4px}
.shots{display:flex;gap:16px;flex-wrap:wrap}
.muted{color:#667}
"""


def _png(report_dir: Path, shot: Shot | None) -> str | None:
    if shot is None or not shot.file:
        return None
    try:
        data = (report_dir / shot.file).read_bytes()[: MAX_INLINE_PNG + 1]
    except OSError:
        return None
    if len(data) > MAX_INLINE_PNG:
        return None
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def _shot(report_dir: Path, shot: Shot | None, testid: str) -> str:
    uri = _png(report_dir, shot)
    if shot is None or uri is None:
        return ""
    return (
        f'<figure class="shot" data-testid="{testid}"><img alt="{escape(shot.name)}" '
        f'src="{uri}" width="{shot.width}" height="{shot.height}">'
        f"<figcaption>{escape(shot.name)} ({shot.width}x{shot.height})</figcaption></figure>"
    )


def _refusal(refusal: Refusal) -> str:
    parts = [f'<div data-testid="refusal"><b>{escape(refusal.code)}</b>: {escape(refusal.message)}']
    if refusal.recovery:
        hints = "".join(f"<li>{escape(h)}</li>" for h in refusal.recovery)
        parts.append(f'<div>What to try:<ul data-testid="recovery">{hints}</ul></div>')
    if refusal.candidates:
        rows = "".join(
            "<tr>"
            f"<td>{escape(c.node_id)}</td><td>{escape(c.role or '')}</td>"
            f"<td>{escape(c.label or '')}</td><td>{escape(c.where or c.resource_id or '')}</td>"
            "</tr>"
            for c in refusal.candidates
        )
        parts.append(
            f"<div>Candidates ({len(refusal.candidates)}), the hub picks none:"
            '<table data-testid="candidates"><tr><th>node</th><th>role</th><th>label</th>'
            f"<th>what tells it apart</th></tr>{rows}</table></div>"
        )
    parts.append("</div>")
    return "".join(parts)


def _details(step: StepReport) -> str:
    bits: list[str] = []
    if step.expected:
        bits.append(f'<div class="muted">expected: {escape(step.expected)}</div>')
    if step.message:
        bits.append(f"<div>{escape(step.message)}</div>")
    if step.refusal is not None:
        bits.append(_refusal(step.refusal))
    result = step.action_result
    if result is not None:
        method = result.dispatch.method.value if result.dispatch.method else ""
        obs = result.observation
        line = (
            f"{result.dispatch.status.value} {method}; screen "
            f"{'changed' if obs.screen_changed else 'unchanged'} ({obs.stability.value})"
        )
        if result.verification is not None:
            line += f"; verification {result.verification.result.value}"
        bits.append(f'<div class="muted">{escape(line)}</div>')
    if step.wait_result is not None:
        w = step.wait_result
        bits.append(f'<div class="muted">{escape(w.result.value)} after {w.elapsed_ms} ms</div>')
    return "".join(bits)


def _label(step: StepReport) -> str:
    """The step's name (Maestro's ``label``) and the runner's notes (``--first-match``)."""
    out = f"<strong>{escape(step.label)}</strong>" if step.label else ""
    out += "".join(f'<div class="muted">{escape(note)}</div>' for note in step.notes)
    return out


def _steps(steps: list[StepReport], report_dir: Path) -> str:
    if not steps:
        return ""
    rows: list[str] = []
    for step in steps:
        nested = _steps(step.steps, report_dir)
        shot = _shot(report_dir, step.screenshot, "step-screenshot")
        rows.append(
            f'<tr data-testid="step" data-status="{step.status}">'
            f"<td>{step.index}</td>"
            f'<td class="muted">{escape(Path(step.file).name)}:{step.line}</td>'
            f"<td>{_label(step)}<pre>{escape(step.source)}</pre>{nested}</td>"
            f'<td><span class="badge {step.status}">{step.status}</span></td>'
            f"<td>{step.elapsed_ms} ms</td><td>{_details(step)}{shot}</td></tr>"
        )
    return (
        "<table><tr><th>#</th><th>where</th><th>step</th><th>outcome</th><th>time</th>"
        f"<th>details</th></tr>{''.join(rows)}</table>"
    )


def _test(test: TestReport, report_dir: Path) -> str:
    failure = ""
    if test.failure is not None:
        f = test.failure
        failure = (
            f'<div class="failure" data-testid="failure"><div><b>{escape(f.at)}</b> '
            f"{escape(f.message)}</div>"
            f"{_refusal_of(test)}{_shot(report_dir, f.screenshot, 'failure-screenshot')}</div>"
        )
    named = [s for s in test.screenshots if s.name != "failure"]
    shots = "".join(_shot(report_dir, s, "screenshot") for s in named)
    gallery = f'<h4>Screenshots</h4><div class="shots">{shots}</div>' if shots else ""
    end = ""
    if test.end_screen is not None:
        e = test.end_screen
        end = (
            f'<div class="muted">ended on {escape(", ".join(e.markers) or "an unmarked screen")}'
            f" ({escape(e.screen_state_id)})</div>"
        )
    opened = " open" if test.status != "passed" else ""
    return (
        f'<section class="test" data-testid="test" data-status="{test.status}" '
        f'data-file="{escape(test.file)}"><details{opened}><summary>'
        f'<span class="badge {test.status}">{test.status}</span> {escape(test.name)} '
        f'<span class="muted">{escape(test.file)} on {escape(test.device or "-")}, '
        f'{test.duration_ms} ms</span></summary><div class="body">{failure}{end}'
        f"{'<h4>Reset and setup</h4>' + _steps(test.setup, report_dir) if test.setup else ''}"
        f"<h4>Steps</h4>{_steps(test.steps, report_dir)}"
        f"{'<h4>onFlowComplete</h4>' + _steps(test.teardown, report_dir) if test.teardown else ''}"
        f"{gallery}</div></details></section>"
    )


def _refusal_of(test: TestReport) -> str:
    def find(steps: list[StepReport]) -> Refusal | None:
        for step in steps:
            if step.refusal is not None and step.status == "failed":
                return step.refusal
            inner = find(step.steps)
            if inner is not None:
                return inner
        return None

    refusal = find(test.setup + test.steps + test.teardown)
    return _refusal(refusal) if refusal is not None else ""


def render_html(report: SuiteReport, report_dir: Path) -> str:
    s = report.summary
    devices = "".join(
        f"<tr><td>{escape(d.id)}</td><td>{d.tests}</td><td>{d.busy_ms} ms</td></tr>"
        for d in report.devices
    )
    tests = "".join(_test(t, report_dir) for t in report.tests)
    title = f"{s.tests} tests: {s.passed} passed, {s.failed} failed, {s.errors} errors"
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>mobridge flows — {escape(title)}</title><style>{_STYLE}</style></head><body>"
        f'<header><h1 data-testid="summary">{escape(title)}</h1><div>'
        f"{s.devices} device{'s' if s.devices != 1 else ''}, {s.duration_ms} ms wall time, "
        f"hub {escape(report.hub)}, started {escape(report.started_at)}, {escape(report.tool)}"
        "</div></header><main>"
        '<table data-testid="devices" style="max-width:480px"><tr><th>device</th><th>tests</th>'
        f"<th>busy</th></tr>{devices}</table>{tests}</main></body></html>\n"
    )


def write_html(report: SuiteReport, report_dir: Path) -> Path:
    report_dir.mkdir(parents=True, exist_ok=True)
    path = report_dir / "index.html"
    path.write_text(render_html(report, report_dir), encoding="utf-8")
    return path
