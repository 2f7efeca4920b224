"""The corpus of public Maestro flows kept in ``corpus/`` (sources and licences in
``corpus/SOURCES.tsv``) loads with ``mobridge test --check`` as written.

Maestro resolves ``runFlow`` and ``runScript`` files when it parses a flow (relative to the
including file; a missing one is ``InvalidFlowFile`` before any step runs, in 1.39 and in its
newer reader alike). mobridge loads such a flow, warns at the step and fails that step when it
runs. Each such file was checked against its repository at the recorded revision:
Rocket.Chat's flows need ``e2e_account.js``, which is git-ignored (made from
``e2e_account.example.js``); an Edge flow moved to ``maestro-disabled/`` still names
``../common/``, which stayed in ``maestro/``; Mallory's and Thunderbird's name a helper one
directory off; documentation snippets name files of an imagined project. Every file that
does not load says why in one line.

Measured (``check`` over the whole corpus, Maestro's format installed as the CLI installs
it, 2026-12-03): 674 of 697 flow files load (96.7 %), 47 distinct warnings. Before missing
files were warnings, 601 of 697 (86.2 %). The 89 files added last (Thunderbird, Mallory,
start-ui-native, Visio, DisCard, Coves) loaded 64 of 89 (71.9 %) before the loader was changed
for them, 67 of 89 after; the files that do not load have mistakes Maestro rejects too
(``assertVisible`` with ``timeout``, shell code given to ``runScript``, ``clearInput``,
``when: {env: ...}``, a flow without a header, YAML that does not parse).
"""

from __future__ import annotations

import csv
from pathlib import Path

from bridge.flows.check import check

CORPUS = Path(__file__).parent / "corpus"
REDISTRIBUTABLE = {"Apache-2.0", "MIT", "AGPL-3.0", "BSD-3-Clause"}


def test_the_corpus_loads_as_written() -> None:
    result = check([str(CORPUS)], {}, {})
    total = len(result.files)
    assert total >= 690
    failing = [(f, errors) for f, errors in result.files if errors]
    for file, errors in failing:
        assert errors[0].message and "\n" not in str(errors[0]), file
    warned = {w.file for w in result.warnings}
    for warning in result.warnings:
        assert "no such file" in warning.message and "fails when it runs" in warning.message
    share = result.loaded / total
    print(
        f"corpus: {result.loaded} of {total} load ({share:.1%}); "
        f"{len(result.warnings)} warnings in {len(warned)} files"
    )
    assert share >= 0.95
    assert len(result.warnings) >= 40  # Rocket.Chat's missing helper, among others, is warned


def test_every_corpus_file_has_a_source_and_a_licence() -> None:
    with (CORPUS / "SOURCES.tsv").open(newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    listed = {r["stored as"] for r in rows}
    for row in rows:
        assert row["licence"] in REDISTRIBUTABLE, row
        assert len(row["revision"]) == 40 and row["repository"].count("/") == 1
    stored = {
        str(p.relative_to(CORPUS))
        for p in CORPUS.rglob("*")
        if p.is_file() and p.name != "SOURCES.tsv"
    }
    assert stored == listed
