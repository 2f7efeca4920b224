"""Issue 42.2: the claims registry holds — every figure in README, docs/*.md and the CHANGELOG's
current section is backed by a check against the code, a test, or a dated measurement — and
it can fail: a limit changed in code without its doc, a doc changed without the registry, and
a new figure nobody registered are each caught."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _checker() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "check_claims", ROOT / "scripts" / "check_claims.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_claims"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_every_figure_in_the_docs_is_backed() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "check_claims.py")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "claims hold" in done.stdout


def test_a_limit_changed_in_code_without_its_doc_fails() -> None:
    check = _checker()
    texts = {"docs/x.md": "Frames are capped (1 MiB) and that is that."}
    claim = {
        "doc": "docs/x.md",
        "text": "capped (1 MiB)",
        "checks": ["bridge.wire.codec: MAX_CLIENT_FRAME == 1 << 19"],  # the code says 1 MiB
    }
    problems, spans = check.check_claim(claim, texts)
    assert spans and any("does not hold" in p for p in problems), problems
    claim["checks"] = ["bridge.wire.codec: MAX_CLIENT_FRAME == 1 << 20"]
    problems, _ = check.check_claim(claim, texts)
    assert problems == []


def test_a_doc_that_no_longer_says_the_claim_fails() -> None:
    check = _checker()
    claim = {"doc": "docs/x.md", "text": "capped (1 MiB)", "checks": ["bridge.wire.codec: True"]}
    problems, _ = check.check_claim(claim, {"docs/x.md": "Frames are capped (2 MiB)."})
    assert any("no longer says" in p for p in problems), problems


def test_an_unregistered_figure_is_found_and_code_quotes_and_headings_are_not() -> None:
    check = _checker()
    text = (
        "## Issue 10, second pass\n\n"
        'The hub waits 30 s, at most 8 times; the screen shows "Charging 65%".\n\n'
        "```sh\nmobridge logs --seconds 3\n```\n\nRun `--timeout 10s` to wait less.\n"
    )
    found = [f.text for f in check.figures("docs/x.md", text)]
    assert found == ["30 s", "at most 8"], found


def test_a_measurement_needs_its_date_and_load() -> None:
    check = _checker()
    texts = {"docs/x.md": "A tap took 134 ms."}
    problems, _ = check.check_measured({"doc": "docs/x.md", "text": "134 ms"}, texts)
    assert any("neither when nor" in p for p in problems)
    problems, spans = check.check_measured(
        {"doc": "docs/x.md", "text": "134 ms", "when": "2026-12-03", "load": "1.2"}, texts
    )
    assert problems == [] and spans
