"""JSON Schema validators: the reference schemas (via ../shared/tools/conform.py) and the
project's own generated schemas (protocol/schema/).

The reference validators are built by conform.py itself, imported from the shared path, so the
tests check exactly what ``conform.py KIND FILE`` checks. Callers skip when ../shared is absent.
"""

from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path
from types import ModuleType

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from bridge.wire.schema import SCHEMA_DIR
from tests.conftest import SHARED_DIR

CONFORM_PY = SHARED_DIR / "tools" / "conform.py"


@functools.cache
def conform_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("reference_conform", CONFORM_PY)
    assert spec is not None and spec.loader is not None, f"cannot load {CONFORM_PY}"
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def reference_validator(kind: str) -> Draft202012Validator:
    """The validator ``conform.py`` uses for ``kind`` (snapshot, node, diff, ...)."""
    validator = conform_module().validator(kind)
    assert isinstance(validator, Draft202012Validator)
    return validator


def schema_files() -> list[Path]:
    return sorted(SCHEMA_DIR.glob("*.schema.json"))


@functools.cache
def project_registry() -> Registry:
    resources = []
    for path in schema_files():
        doc = json.loads(path.read_text(encoding="utf-8"))
        resources.append((doc["$id"], Resource.from_contents(doc)))
    return Registry().with_resources(resources)


@functools.cache
def project_validator(name: str, definition: str | None = None) -> Draft202012Validator:
    """Validator for ``protocol/schema/<name>.schema.json`` (or one of its ``$defs``)."""
    ref = f"mobridge:{name}.schema.json" + (f"#/$defs/{definition}" if definition else "")
    return Draft202012Validator({"$ref": ref}, registry=project_registry())


def error_lines(validator: Draft202012Validator, doc: object) -> list[str]:
    """Every validation error as ``/json/pointer: message``; empty when ``doc`` is valid."""
    return [
        "/" + "/".join(str(p) for p in err.absolute_path) + ": " + err.message[:300]
        for err in sorted(validator.iter_errors(doc), key=lambda e: list(map(str, e.path)))
    ]
