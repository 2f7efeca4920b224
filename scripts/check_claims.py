"""Every figure the docs state is backed: by a registered claim checked against the code, or
marked as a measurement with its date and load.

Run by ``scripts/check`` (``python scripts/check_claims.py``; exit 1 naming each problem).

What is scanned: README.md, every docs/*.md, and the CHANGELOG's current section (from
``## [Unreleased]`` to the next ``## [``). A **figure** is a number with a unit of time, size,
rate or share (``512 KiB``, ``30 s``, ``1.6 ms``, ``30 fps``, ``95 %``) or a bound in words
(``at most 8``, ``up to 64``, ``capped at 600``), outside code blocks, inline code, headings
and double-quoted text (what a screen shows: "Charging 65%").

A figure is backed when either
- it lies inside the ``text`` of a claim in ``docs/claims/`` for that file. A claim names
  ``checks``: Python expressions over the project's modules (``bridge.hub.log_stream:
  MAX_BACKLOG_LINES == 2000`` imports the module and evaluates the expression in it), and/or
  ``tests``: ``path::name`` of the tests that show the behaviour. A check ``file PATH: TEXT``
  requires TEXT in that file (the agents' Java and Swift sources). Every check must hold and
  every test must exist, so changing a limit in code without its doc (or the reverse) fails;
- or it is a measurement, registered as ``[[measured]]`` in ``docs/claims/`` with its
  ``doc``, ``when`` and ``load`` and either ``text`` (a phrase of the doc) or ``section`` (a
  heading's text: the whole section to the next heading of the same or a higher level); or
  marked in the doc itself: ``<!-- measured: DATE, load L[, what] -->`` covers the paragraph,
  list or table that follows it (to the next blank line), ``<!-- measured-section: DATE,
  load L -->`` the rest of its section.

Invariant: the registry itself is checked too — a claim whose text no longer appears in its
doc is a failure, so a stale registry cannot hide a changed doc.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REGISTRY = ROOT / "docs" / "claims"
"""One TOML file per doc (any name; README.toml, cli.toml, ...): entries from all are merged."""

UNITS = (
    r"(?:ms|µs|us|ns|s|sec|seconds?|minutes?|min|hours?|h|days?|"
    r"B|KB|kB|KiB|MB|MiB|GB|GiB|TB|bytes?|fps|Hz|%|lines/s|B/s|kB/s|MB/s|msgs/s)"
)
FIGURE = re.compile(
    r"(?<![\w.#/^-])\d(?:[\d,._]*\d)?(?:\s?[x\u00d7]\s?\d(?:[\d,._]*\d)?)?\s?"
    + UNITS
    + r"(?![\w/])"
    r"|\b(?:at most|up to|capped at|no more than|at least|limit of|max(?:imum)?(?: of)?)\s+"
    r"\d(?:[\d,._]*\d)?",
    re.IGNORECASE,
)
MEASURED = re.compile(r"<!--\s*measured:\s*[^,>]+,\s*load\s*[^>]*-->")
MEASURED_SECTION = re.compile(r"<!--\s*measured-section:\s*[^,>]+,\s*load\s*[^>]*-->")
HEADING = re.compile(r"^(#{1,6})\s")


@dataclass(frozen=True)
class Figure:
    doc: str
    line: int
    start: int
    end: int
    text: str


def docs() -> dict[str, str]:
    found = {"README.md": (ROOT / "README.md").read_text(encoding="utf-8")}
    for path in sorted((ROOT / "docs").glob("*.md")):
        found[f"docs/{path.name}"] = path.read_text(encoding="utf-8")
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    start = changelog.find("## [Unreleased]")
    if start >= 0:
        end = changelog.find("\n## [", start + 1)
        found["CHANGELOG.md"] = changelog[: end if end >= 0 else len(changelog)]
    return found


def _blank_code(text: str) -> str:
    """``text`` with fenced code blocks and inline code replaced by spaces (offsets kept)."""
    out = re.sub(r"```.*?```", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    return re.sub(r"`[^`\n]*`", lambda m: " " * len(m.group(0)), out)


def _measured_spans(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for m in MEASURED.finditer(text):
        end = text.find("\n\n", m.end())
        spans.append((m.start(), len(text) if end < 0 else end))
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    for m in MEASURED_SECTION.finditer(text):
        line_no = text.count("\n", 0, m.start())
        level = 7
        for back in range(line_no, -1, -1):
            heading = HEADING.match(lines[back]) if back < len(lines) else None
            if heading:
                level = len(heading.group(1))
                break
        end = len(text)
        for ahead in range(line_no + 1, len(lines)):
            heading = HEADING.match(lines[ahead])
            if heading and len(heading.group(1)) <= level:
                end = offsets[ahead]
                break
        spans.append((m.start(), end))
    return spans


def _normalized(text: str) -> tuple[str, list[int]]:
    """``text`` with each whitespace run made one space, and where each kept character was."""
    out: list[str] = []
    where: list[int] = []
    space = False
    for i, ch in enumerate(text):
        if ch.isspace():
            if not space:
                out.append(" ")
                where.append(i)
            space = True
        else:
            out.append(ch)
            where.append(i)
            space = False
    return "".join(out), where


def figures(doc: str, text: str) -> list[Figure]:
    scanned = _blank_code(text)
    scanned = re.sub(r"<!--.*?-->", lambda m: " " * len(m.group(0)), scanned, flags=re.S)
    # headings name things ("issue 10, second pass"); quoted text is what a screen shows
    # ("Charging 65%"), not a figure of mobridge's
    scanned = re.sub(r"(?m)^#{1,6} .*$", lambda m: " " * len(m.group(0)), scanned)
    scanned = re.sub(r'"[^"\n]{1,80}"|“[^”\n]{1,80}”', lambda m: " " * len(m.group(0)), scanned)
    return [
        Figure(doc, text.count("\n", 0, m.start()) + 1, m.start(), m.end(), m.group(0))
        for m in FIGURE.finditer(scanned)
    ]


def _section_span(text: str, heading: str) -> tuple[int, int] | None:
    lines = text.splitlines(keepends=True)
    offset = 0
    for n, line in enumerate(lines):
        found = HEADING.match(line)
        if found and line[found.end() :].strip() == heading.strip():
            level = len(found.group(1))
            end = offset + sum(len(x) for x in lines[n:])
            after = offset + len(line)
            for later in lines[n + 1 :]:
                deeper = HEADING.match(later)
                if deeper and len(deeper.group(1)) <= level:
                    end = after
                    break
                after += len(later)
            return offset, end
        offset += len(line)
    return None


def check_measured(
    entry: dict[str, object], texts: dict[str, str]
) -> tuple[list[str], list[tuple[int, int]]]:
    doc = str(entry.get("doc", ""))
    label = f"measurement {str(entry.get('text') or entry.get('section'))[:60]!r} ({doc})"
    if not entry.get("when") or not entry.get("load"):
        return [f"{label}: says neither when nor at what load it was measured"], []
    if doc not in texts:
        return [f"{label}: no such doc"], []
    if entry.get("section"):
        span = _section_span(texts[doc], str(entry["section"]))
        if span is None:
            return [f"{label}: no such section (update docs/claims/)"], []
        return [], [span]
    phrase = " ".join(str(entry.get("text", "")).split())
    flat, where = _normalized(texts[doc])
    at = flat.find(phrase) if phrase else -1
    if at < 0:
        return [f"{label}: the doc no longer says this (update docs/claims/)"], []
    spans = []
    while at >= 0:
        spans.append((where[at], where[at + len(phrase) - 1] + 1))
        at = flat.find(phrase, at + 1)
    return [], spans


def check_claim(
    claim: dict[str, object], texts: dict[str, str]
) -> tuple[list[str], list[tuple[int, int]]]:
    problems: list[str] = []
    doc = str(claim.get("doc", ""))
    phrase = " ".join(str(claim.get("text", "")).split())
    label = f"claim {phrase[:60]!r} ({doc})"
    if doc not in texts:
        return [f"{label}: no such doc"], []
    flat, where = _normalized(texts[doc])
    spans: list[tuple[int, int]] = []
    at = flat.find(phrase) if phrase else -1
    if at < 0:
        problems.append(f"{label}: the doc no longer says this (update docs/claims/)")
    while at >= 0:
        spans.append((where[at], where[at + len(phrase) - 1] + 1))
        at = flat.find(phrase, at + 1)
    checks = claim.get("checks", [])
    tests = claim.get("tests", [])
    assert isinstance(checks, list) and isinstance(tests, list)
    if not checks and not tests:
        problems.append(f"{label}: names neither a check nor a test")
    for check in checks:
        if str(check).startswith("file "):  # "file PATH: TEXT": TEXT is in that file
            path, _, needle = str(check)[5:].partition(": ")
            source = ROOT / path
            if not source.is_file() or needle not in source.read_text(encoding="utf-8"):
                problems.append(f"{label}: {path} no longer says {needle!r} (the code changed?)")
            continue
        module_name, _, expression = str(check).partition(":")
        try:
            module = importlib.import_module(module_name.strip())
            held = eval(expression, vars(module))
        except Exception as exc:
            problems.append(f"{label}: check {check!r} raised {exc!r}")
            continue
        if held is not True:
            problems.append(f"{label}: check {check!r} does not hold (the code changed?)")
    for test in tests:
        path, _, name = str(test).partition("::")
        file = ROOT / path
        if not file.is_file() or not re.search(rf"def {re.escape(name)}\b", file.read_text()):
            problems.append(f"{label}: test {test!r} does not exist")
    return problems, spans


def main() -> int:
    sys.path.insert(0, str(ROOT))
    os.chdir(ROOT)
    texts = docs()
    registry: dict[str, list[dict[str, object]]] = {"claim": [], "measured": []}
    for path in sorted(REGISTRY.glob("*.toml")):
        part = tomllib.loads(path.read_text(encoding="utf-8"))
        for kind in registry:
            registry[kind] += part.get(kind, [])
    problems: list[str] = []
    covered: dict[str, list[tuple[int, int]]] = {
        doc: _measured_spans(t) for doc, t in texts.items()
    }
    for claim in registry.get("claim", []):
        found, spans = check_claim(claim, texts)
        problems += found
        covered.setdefault(str(claim.get("doc")), []).extend(spans)
    for entry in registry.get("measured", []):
        found, spans = check_measured(entry, texts)
        problems += found
        covered.setdefault(str(entry.get("doc")), []).extend(spans)
    unbacked = 0
    for doc, text in texts.items():
        for fig in figures(doc, text):
            if not any(a <= fig.start and fig.end <= b for a, b in covered.get(doc, [])):
                problems.append(
                    f"{doc}:{fig.line}: {fig.text!r} is backed by no claim or measurement"
                )
                unbacked += 1
    for problem in problems:
        print(f"check_claims: {problem}", file=sys.stderr)
    if problems:
        print(
            f"check_claims: {len(problems)} problem(s); register the figure in docs/claims/ "
            "with a check or a test, or mark it <!-- measured: DATE, load L -->",
            file=sys.stderr,
        )
        return 1
    claims = len(registry.get("claim", []))
    print(f"check_claims: {claims} claims hold; every figure in {len(texts)} docs is backed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
