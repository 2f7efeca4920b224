"""Shape checks for untyped JSON (what ``safe_json.decode_json`` returns).

Each helper raises ``DumpError`` naming the node and the key when a value has the wrong JSON
type, so a JSON document of the wrong shape fails with a precise reason instead of a
``KeyError`` or ``TypeError`` deep inside an importer.
"""

from __future__ import annotations

from typing import Any

from bridge.core.importers.failure import DumpError

JsonObject = dict[str, Any]


def json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__  # pragma: no cover - JSON has no other types


def as_object(value: object, where: str) -> JsonObject:
    if not isinstance(value, dict):
        raise DumpError(f"{where} is {json_type(value)}, expected an object")
    return value


def children_list(node: JsonObject, where: str, key: str = "children") -> list[JsonObject]:
    """``node[key]`` as a list of objects; absent or null means no children; null entries are
    an error (a hole in the tree would make the import partial)."""
    value = node.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise DumpError(f"{where} has '{key}' that is {json_type(value)}, expected an array")
    for position, child in enumerate(value):
        if not isinstance(child, dict):
            raise DumpError(
                f"{where} has child {position} that is {json_type(child)}, expected an object"
            )
    return value


def opt_str(node: JsonObject, key: str, where: str) -> str | None:
    value = node.get(key)
    if value is None or isinstance(value, str):
        return value
    raise DumpError(f"{where} has '{key}' that is {json_type(value)}, expected a string")


def str_map(value: object, where: str, key: str) -> dict[str, str]:
    """An object whose values are strings (numbers and booleans are written as JSON text)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise DumpError(f"{where} has '{key}' that is {json_type(value)}, expected an object")
    result: dict[str, str] = {}
    for name, item in value.items():
        if item is None:
            continue
        if isinstance(item, bool):
            result[name] = "true" if item else "false"
        elif isinstance(item, str | int | float):
            result[name] = str(item)
        else:
            raise DumpError(
                f"{where} has '{key}.{name}' that is {json_type(item)}, expected a string"
            )
    return result
