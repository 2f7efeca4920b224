"""Generates ``protocol/flows/`` (JSON Schema 2020-12) from the flow and report types.

- ``flow.schema.json``: one flow file's documents, for editors (``# yaml-language-server:
  $schema=...`` in a flow gets completion and checks): the header (``FlowHeader``) or the
  list of steps, each step one of ``bridge.flows.model.STEPS`` (or a bare step name);
- ``report.schema.json``: ``index.json`` as ``mobridge test --report`` writes it;
- ``lockstep.schema.json``: ``lockstep.json``, the divergence report of ``--lockstep``.

``main(["--check"])`` exits 1 when the checked-in files differ from what the types give
(``scripts/gen-schema --check`` runs it in ``scripts/check``). Edit the Structs, then run
``scripts/gen-schema``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import msgspec

from bridge.flows.model import BARE_STEPS, STEPS, FlowHeader, Guarded
from bridge.flows.report import LockstepReport, SuiteReport

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "protocol" / "flows"
DIALECT = "https://json-schema.org/draft/2020-12/schema"


def flow_schema() -> dict[str, Any]:
    kinds = [FlowHeader, Guarded, *STEPS.values()]
    refs, defs = msgspec.json.schema_components(kinds, ref_template="#/$defs/{name}")
    header_ref, guard, step_refs = refs[0], defs["Guarded"], refs[2:]
    for step in STEPS.values():  # optional / when may stand beside a step's name
        defs[step.__name__]["properties"].update(guard["properties"])
    defs["Step"] = {
        "title": "Step",
        "description": "One step: a mapping with exactly one key, the step's name.",
        "anyOf": [
            *step_refs,
            {"enum": sorted(BARE_STEPS), "description": "a step written as a bare word"},
        ],
    }
    defs["Steps"] = {
        "title": "Steps",
        "description": "The second document of a flow file: the steps, in order.",
        "type": "array",
        "items": {"$ref": "#/$defs/Step"},
    }
    for key in ("setup", "onFlowStart", "onFlowComplete"):
        defs["FlowHeader"]["properties"][key]["items"] = {"$ref": "#/$defs/Step"}
    for name in ("RunFlowSpec", "RepeatSpec", "RetrySpec", "ExpectRefusalSpec"):
        commands = defs[name]["properties"]["commands"]
        if "anyOf" in commands:  # optional: list or null
            commands["anyOf"][0]["items"] = {"$ref": "#/$defs/Step"}
        else:
            commands["items"] = {"$ref": "#/$defs/Step"}
    return {
        "$schema": DIALECT,
        "$id": "mobridge:flows/flow.schema.json",
        "title": "mobridge flow file (each YAML document: the header, then the steps)",
        "anyOf": [header_ref, {"$ref": "#/$defs/Steps"}],
        "$defs": dict(sorted(defs.items())),
    }


def report_schema() -> dict[str, Any]:
    doc: dict[str, Any] = {
        "$schema": DIALECT,
        "$id": "mobridge:flows/report.schema.json",
        "title": "mobridge test report (index.json)",
    }
    doc.update(msgspec.json.schema(SuiteReport))
    return doc


def lockstep_schema() -> dict[str, Any]:
    doc: dict[str, Any] = {
        "$schema": DIALECT,
        "$id": "mobridge:flows/lockstep.schema.json",
        "title": "mobridge test --lockstep divergence report (lockstep.json)",
    }
    doc.update(msgspec.json.schema(LockstepReport))
    return doc


def generate() -> dict[str, str]:
    docs = {
        "flow.schema.json": flow_schema(),
        "report.schema.json": report_schema(),
        "lockstep.schema.json": lockstep_schema(),
    }
    return {
        name: json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        for name, doc in docs.items()
    }


def main(argv: list[str]) -> int:
    wanted = generate()
    if "--check" in argv:
        drift = sorted(
            name
            for name, text in wanted.items()
            if not (SCHEMA_DIR / name).exists()
            or (SCHEMA_DIR / name).read_text(encoding="utf-8") != text
        )
        if drift:
            print(
                f"protocol/flows/ is out of date ({', '.join(drift)}); run scripts/gen-schema",
                file=sys.stderr,
            )
            return 1
        return 0
    SCHEMA_DIR.mkdir(parents=True, exist_ok=True)
    for name, text in wanted.items():
        (SCHEMA_DIR / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(wanted)} schemas to {SCHEMA_DIR}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
