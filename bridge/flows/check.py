"""``mobridge test --check PATH...``: load every flow file without running anything.

Every file named, and every ``*.yaml`` / ``*.yml`` under a directory named (subdirectories
included; a Maestro workspace's ``config.yaml`` is not a flow), is loaded as the runner would
load it — Maestro's format or mobridge's, told apart by shape — with the variables given.
Each mistake is one line ``file:line:column: message``, printed once even when a subflow is
shared by many files. A step that loads but will fail when it runs (a Maestro ``runFlow`` /
``runScript`` file that is not there) is a warning line ``file:line:column: warning: ...``.
The summary says how many files load and how many warnings. Exit 0 when all load, 2 when
any does not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from bridge.flows.compile import FLOW_SUFFIXES, FlowLoader, unique
from bridge.flows.errors import FlowError, FlowErrors, Place
from bridge.flows.maestro.workspace import CONFIG_NAMES, config_file

MAX_FILES = 20_000


@dataclass
class CheckResult:
    files: list[tuple[str, list[FlowError]]] = field(default_factory=list)
    """Each file checked and its mistakes (empty: it loads)."""
    warnings: list[FlowError] = field(default_factory=list)
    """Steps of loaded files that will fail when they run (a named file is not there), each
    once."""

    @property
    def loaded(self) -> int:
        return sum(1 for _, errors in self.files if not errors)

    def mistakes(self) -> list[FlowError]:
        """Every mistake once (a shared subflow's mistake is listed at its own line once)."""
        return unique([e for _, errors in self.files for e in errors])


def check_files(paths: Sequence[str]) -> list[tuple[Path, str]]:
    """The files ``--check`` loads for ``paths`` (directories walked, sorted)."""
    out: list[tuple[Path, str]] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                if child.suffix not in FLOW_SUFFIXES or not child.is_file():
                    continue
                if child.name in CONFIG_NAMES and (
                    config_file(child.parent) == child or _header_only(child)
                ):
                    continue
                out.append((child, str(child)))
                if len(out) > MAX_FILES:
                    break
        else:
            out.append((path, given))
    return out


def _header_only(path: Path) -> bool:
    """A ``config.yaml`` with no commands after its header: Maestro never takes a file named
    ``config`` for a flow, so one that holds no commands is a configuration file."""
    try:
        if path.stat().st_size > 64 * 1024:
            return False
        docs = list(yaml.safe_load_all(path.read_text("utf-8")))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return False
    return len(docs) < 2 or all(d in (None, [], "") for d in docs[1:])


def check(paths: Sequence[str], cli: Mapping[str, str], environ: Mapping[str, str]) -> CheckResult:
    result = CheckResult()
    loader = FlowLoader(cli, environ)
    for path, shown in check_files(paths):
        if not path.exists():
            result.files.append((shown, [FlowError(Place(shown, 1), "no such file")]))
            continue
        try:
            loader.load(path, shown)
        except FlowErrors as exc:
            result.files.append((shown, list(exc.errors)))
        else:
            result.files.append((shown, []))
    result.warnings = unique(loader.warnings)
    return result
