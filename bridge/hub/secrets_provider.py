"""Secrets for ``valueRef: secret://NAME``: resolved at execution time, never logged.

Sources, first hit wins: a JSON file of ``{"name": "value"}`` (``--secrets-file``), then the
environment variable ``MOBRIDGE_SECRET_<NAME>`` (NAME upper-cased, non-alphanumerics as ``_``).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path


class SecretsProvider:
    def __init__(self, file: Path | None = None) -> None:
        self._file = file

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
        env = "MOBRIDGE_SECRET_" + re.sub(r"[^A-Za-z0-9]", "_", name).upper()
        return os.environ.get(env)
