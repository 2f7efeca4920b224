"""Flow YAML as people write it: one step per item, block style, unicode kept.

Shared by the mobridge recorder (``bridge.flows.record``) and the Maestro writer
(``bridge.flows.maestro.export``), which each build the items.
"""

from __future__ import annotations

from typing import Any

import yaml


def dump_mapping(data: dict[str, Any]) -> str:
    return str(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100))


def dump_steps(body: list[Any]) -> str:
    out: list[str] = []
    for item in body:
        if isinstance(item, tuple):
            out.append(f"# {item[1]}".replace("\n", " ") + "\n")
            continue
        if list(item.values()) == [None]:
            out.append(f"- {next(iter(item))}\n")
            continue
        block = str(
            yaml.safe_dump(
                item, sort_keys=False, allow_unicode=True, default_flow_style=False, width=100
            )
        )
        lines = block.splitlines()
        out.append(
            "".join(("- " if i == 0 else "  ") + line + "\n" for i, line in enumerate(lines))
        )
    return "".join(out)
