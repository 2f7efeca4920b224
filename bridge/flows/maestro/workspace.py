"""A Maestro workspace: a directory whose ``config.yaml`` says which flows it runs.

``flows`` (globs relative to the directory; default ``*``: its own top-level flow files),
``includeTags`` / ``excludeTags`` (applied to the flows' header tags, as ``--include-tags`` /
``--exclude-tags``), and ``executionOrder.flowsOrder`` (these flow names first, in this order;
the rest after them in lexical order). Other keys Maestro documents are accepted and do not
change what runs. A ``config.yaml`` with an ``appId`` and none of those keys is a flow, not
a workspace file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from bridge.flows.errors import FlowError, Place
from bridge.flows.maestro.commands import WORKSPACE_KEYS

CONFIG_NAMES = ("config.yaml", "config.yml")
MAX_CONFIG_BYTES = 64 * 1024
MAX_FLOWS = 10_000


@dataclass
class Workspace:
    """What a workspace's config selects."""

    files: list[Path]
    include_tags: list[str] = field(default_factory=list)
    exclude_tags: list[str] = field(default_factory=list)
    config: Path | None = None


def config_file(directory: Path) -> Path | None:
    """The directory's workspace config, or None (none, or it is a flow: it has an appId)."""
    for name in CONFIG_NAMES:
        path = directory / name
        if path.is_file():
            data = _read(path)
            if isinstance(data, dict) and (
                "appId" not in data or set(data) & (WORKSPACE_KEYS - {"platform"})
            ):
                return path
    return None


def _read(path: Path) -> Any:
    try:
        if path.stat().st_size > MAX_CONFIG_BYTES:
            return None
        return yaml.safe_load(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None


def _words(value: Any) -> list[str]:
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, list):
        return [str(v) for v in value]
    return []


def workspace(directory: Path, shown: str) -> Workspace:
    """The flows the workspace at ``directory`` runs (raises FlowError for a config that
    says something wrong)."""
    config = config_file(directory)
    assert config is not None
    data = _read(config) or {}
    where = Place(f"{shown.rstrip('/')}/{config.name}", 1)
    for key in data:
        if key not in WORKSPACE_KEYS and key != "appId":
            raise FlowError(
                where, f"unknown workspace key {key!r}; keys: {', '.join(sorted(WORKSPACE_KEYS))}"
            )
    globs = _words(data.get("flows")) or ["*"]
    found: list[Path] = []
    for pattern in globs:
        for path in sorted(directory.glob(pattern)):
            if path.is_dir():
                path_list = sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml"))
            else:
                path_list = [path]
            for p in path_list:
                if p.suffix in (".yaml", ".yml") and p.name not in CONFIG_NAMES and p not in found:
                    found.append(p)
                if len(found) > MAX_FLOWS:
                    raise FlowError(where, f"the workspace selects more than {MAX_FLOWS} flows")
    order = data.get("executionOrder") or {}
    first = _words(order.get("flowsOrder")) if isinstance(order, dict) else []
    if first:
        named = {p.stem: p for p in found}
        ordered = [named[n] for n in first if n in named]
        found = ordered + [p for p in found if p not in ordered]
    return Workspace(
        found, _words(data.get("includeTags")), _words(data.get("excludeTags")), config
    )
