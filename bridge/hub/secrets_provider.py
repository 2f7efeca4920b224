"""Secrets for ``valueRef: secret://NAME``: resolved at execution time, never logged.

Sources, first hit wins: a JSON file of ``{"name": "value"}`` (``--secrets-file``), then the
environment variable ``MOBRIDGE_SECRET_<NAME>`` (NAME upper-cased, non-alphanumerics as ``_``).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path


def env_name(ref: str) -> str:
    """The environment variable that holds ``secret://NAME`` (``MOBRIDGE_SECRET_NAME``)."""
    name = ref.removeprefix("secret://")
    return "MOBRIDGE_SECRET_" + re.sub(r"[^A-Za-z0-9]", "_", name).upper()


class SecretsProvider:
    def __init__(self, file: Path | None = None) -> None:
        self._file = file

    def missing(self, ref: str) -> str:
        """What to do about ``ref`` resolving to nothing, in words (names, never values)."""
        where = f"set {env_name(ref)} in the hub's environment and restart the hub"
        if self._file is not None:
            name = ref.removeprefix("secret://")
            where += f", or add {name!r} to {self._file} (read at each use)"
        else:
            where += " (or start it with --secrets-file FILE)"
        return f"secret {ref} is not configured on the hub: {where}"

    def resolve(self, ref: str) -> str | None:
        name = ref.removeprefix("secret://")
        if not name:
            return None
        if self._file is not None and self._file.exists():
            try:
                table = json.loads(self._file.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                table = {}
            value = table.get(name) if isinstance(table, dict) else None
            if isinstance(value, str):
                return value
        return os.environ.get(env_name(ref))
