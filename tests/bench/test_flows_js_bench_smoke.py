"""Smoke test of the Maestro JavaScript benchmark: one quick run prints QuickJS's row, the
engines' load cost and the corpus check, with numbers where numbers belong (never a timing
assertion)."""

from __future__ import annotations

import re

from bridge.bench import flows_js


def test_one_quick_run_prints_its_rows() -> None:
    lines = flows_js.run(quick=True)
    quick = next(line for line in lines if "QuickJS (quickjs-ng, ScriptHost)" in line)
    assert re.search(r"start \d+\.\d+ ms, \$\{\.\.\.\} \d+\.\d+ ms, runScript \d+\.\d+ ms", quick)
    load = next(line for line in lines if line.strip().startswith("loading the engine"))
    assert re.search(r"QuickJS \(quickjs-ng\) \d+ ms \+\d+\.\d MiB", load), load
    corpus = next(line for line in lines if "--check of the Maestro corpus" in line)
    assert re.search(r"\d+ files in \d+\.\d s \(\d+\.\d ms/file\), \d+ load", corpus), corpus
