"""The doctor's report: one ``Check`` per thing looked at, and what they add up to (sans-I/O).

Invariants: a report never holds a token or any other secret (the runner never puts one in;
``redact_url`` strips credentials from the hub URL) and holds screen texts only in ``texts``,
which the runner fills only when asked (``--include-texts``). A report *holds* when no check
failed: ``warn`` and ``n/a`` (not applicable, with the reason) and ``skip`` (not run because
an earlier check failed) do not fail it.

Issue 34: the overall verdict counts what was measured apart from what was not (``counts``:
ok, warn, fail, not measured (``n/a``), skipped); a report with nothing measured is
``not measured``, never ``ok``. Checks come in sections (``chain``, ``environment``,
``private-api``), and every failed check names one next step, a command to run (``next``).
"""

from __future__ import annotations

import re
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

import msgspec

Verdict = Literal["ok", "warn", "fail", "n/a", "skip"]
Overall = Literal["ok", "fail", "not measured"]
Section = Literal["chain", "environment", "private-api"]
Scalar = int | float | str | bool | None
REPORT_SCHEMA = 2
SECTIONS: tuple[Section, ...] = ("environment", "private-api", "chain")
DEFAULT_NEXT = "mobridge doctor --debug"
"""The next step of a failed check that names none (rules name one for each of theirs)."""
EXIT_HOLDS, EXIT_FAILED = 0, 1
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


class Check(msgspec.Struct, frozen=True, kw_only=True):
    """One check. ``value`` is the measured value in a few words; ``measured`` the same as
    numbers (milliseconds ``*_ms``, bytes, counts); ``fix`` what to do, on warn and fail (the
    reason, on n/a and skip)."""

    name: str
    verdict: Verdict
    value: str
    measured: dict[str, Scalar] = msgspec.field(default_factory=dict)
    fix: str | None = None
    section: Section = "chain"
    next: str | None = None
    """On a failed check: the one command to run next (``adb devices``, ``mobridge serve``)."""


class Counts(msgspec.Struct, frozen=True, kw_only=True):
    """How many checks ended how; ``not_measured`` are the ``n/a`` ones."""

    ok: int
    warn: int
    fail: int
    not_measured: int
    skipped: int


class Report(msgspec.Struct, frozen=True, kw_only=True):
    schema: int = REPORT_SCHEMA
    tool: str = "mobridge doctor"
    version: str
    created: str
    """UTC, ISO 8601 (``2026-12-02T03:04:05Z``)."""
    hub: str
    """The hub's URL without credentials, or ``embedded ...``."""
    device: str | None
    kind: str | None
    """simulated, host-agent, android-phone, iphone (None: the device was not found)."""
    acting: bool
    """Whether the doctor tapped and typed (false: read-only)."""
    holds: bool
    checks: tuple[Check, ...]
    verdict: Overall = "ok"
    """``fail`` when a check failed, ``not measured`` when none was ok or warn, else ``ok``."""
    counts: Counts = msgspec.field(
        default_factory=lambda: Counts(ok=0, warn=0, fail=0, not_measured=0, skipped=0)
    )
    texts: tuple[str, ...] | None = None
    """The screen's texts, only with ``--include-texts`` (password values stay masked)."""

    @property
    def failed(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if c.verdict == "fail")


def holds(checks: tuple[Check, ...] | list[Check]) -> bool:
    return all(c.verdict != "fail" for c in checks)


def count(checks: tuple[Check, ...] | list[Check]) -> Counts:
    verdicts = [c.verdict for c in checks]
    return Counts(
        ok=verdicts.count("ok"),
        warn=verdicts.count("warn"),
        fail=verdicts.count("fail"),
        not_measured=verdicts.count("n/a"),
        skipped=verdicts.count("skip"),
    )


def overall(counts: Counts) -> Overall:
    if counts.fail:
        return "fail"
    return "ok" if counts.ok + counts.warn else "not measured"


def finished(checks: tuple[Check, ...] | list[Check]) -> tuple[Check, ...]:
    """The checks in section order (environment, private API, the chain), each failed one
    with a next step (``DEFAULT_NEXT`` where its rule named none)."""
    out = [
        c if c.verdict != "fail" or c.next else msgspec.structs.replace(c, next=DEFAULT_NEXT)
        for c in checks
    ]
    return tuple(sorted(out, key=lambda c: SECTIONS.index(c.section)))


def exit_status(report: Report) -> int:
    """0 when every check holds, 1 when one failed."""
    return EXIT_HOLDS if report.holds else EXIT_FAILED


def redact_url(url: str) -> str:
    """``url`` without user, password, query or fragment (a token never rides in a report)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return "(unparsable URL)"
    netloc = f"[{host}]" if ":" in host else host
    if port is not None:
        netloc += f":{port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def file_name(device: str | None, created: str) -> str:
    """``doctor-DEVICE-DATE.json``: the device id made file-safe, the date compact
    (``20261202T030405Z``)."""
    name = _SAFE_NAME.sub("_", device or "no-device").strip("._") or "device"
    stamp = created.replace("-", "").replace(":", "")
    return f"doctor-{name[:64]}-{stamp}.json"


def to_json(report: Report) -> bytes:
    return msgspec.json.format(msgspec.json.encode(report), indent=2) + b"\n"


_MARK = {"ok": "ok", "warn": "WARN", "fail": "FAIL", "n/a": "n/a", "skip": "skip"}


def table(report: Report) -> list[str]:
    """The human form: one line per check (verdict, name, value), the fix indented below a
    warn or fail, then the overall verdict."""
    width = max((len(c.name) for c in report.checks), default=8)
    lines = [
        f"mobridge doctor {report.version}: device {report.device or '?'} "
        f"({report.kind or 'unknown'}), hub {report.hub}, "
        f"{'acting (tap, type)' if report.acting else 'read-only'}",
    ]
    section = None
    for check in report.checks:
        if check.section != section:
            section = check.section
            lines.append(f"{section}:")
        lines.append(f"  {_MARK[check.verdict]:<4}  {check.name:<{width}}  {check.value}")
        if check.fix and check.verdict in ("warn", "fail", "n/a", "skip"):
            lines.append(f"  {'':<4}  {'':<{width}}  -> {check.fix}")
        if check.next and check.verdict == "fail":
            lines.append(f"  {'':<4}  {'':<{width}}  next: {check.next}")
    c = count(report.checks)
    tally = f"{c.ok} ok, {c.warn} warnings, {c.not_measured} not measured, {c.skipped} skipped"
    failed = report.failed
    if failed:
        names = ", ".join(x.name for x in failed)
        lines.append(f"verdict: FAIL ({len(failed)} failed: {names}; {tally})")
    elif c.ok + c.warn == 0:
        lines.append(f"verdict: not measured ({tally})")
    else:
        lines.append(f"verdict: ok ({tally})")
    return lines
