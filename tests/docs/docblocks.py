"""The code blocks of README.md and docs/*.md, as a reader sees them.

Conventions (so the docs cannot drift from what works):

- a fenced block tagged ``sh`` / ``shell`` / ``bash`` / ``console`` is run line by line (a
  line ending in ``\\`` continues on the next; ``#`` lines are comments); a command expected
  to fail says so in its trailing comment: ``# exit 1: ...``;
- a block tagged ``python`` is run as a script;
- a block that cannot run here (it needs a phone, starts a long-running server, installs into
  a new environment) is preceded by ``<!-- docs: not run: REASON -->``; the reason is required;
- ``<!-- docs: hub ARGS -->`` anywhere in a file gives the arguments of the hub that file's
  blocks run against (default: none, the simulated device on its menu);
- other tags (``json``, ``text``) are examples of data, not commands.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHELL_TAGS = frozenset({"sh", "shell", "bash", "console"})
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
NOT_RUN = re.compile(r"<!--\s*docs:\s*not run:\s*(.*?)\s*-->")
HUB_ARGS = re.compile(r"<!--\s*docs:\s*hub\s+(.*?)\s*-->")
EXPECTED_EXIT = re.compile(r"#\s*exit\s+(\d+)")


@dataclass(frozen=True)
class Block:
    path: Path
    line: int
    tag: str
    code: str
    not_run: str | None

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    def commands(self) -> list[tuple[str, int]]:
        """Each shell command with the exit status its comment expects (default 0)."""
        out: list[tuple[str, int]] = []
        pending = ""
        for raw in self.code.splitlines():
            line = raw.strip()
            if not pending and (not line or line.startswith("#")):
                continue
            if line.endswith("\\"):
                pending += line[:-1] + " "
                continue
            command = pending + line
            pending = ""
            found = EXPECTED_EXIT.search(command)
            out.append((command, int(found.group(1)) if found else 0))
        return out


def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def blocks_of(path: Path) -> list[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    out: list[Block] = []
    i = 0
    while i < len(lines):
        opened = FENCE.match(lines[i])
        if opened is None:
            i += 1
            continue
        indent, tag = opened.group(1), opened.group(2).lower()
        start = i
        body: list[str] = []
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i])
            i += 1
        before = next((lines[j] for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        marker = NOT_RUN.search(before)
        out.append(
            Block(
                path=path,
                line=start + 1,
                tag=tag,
                code="\n".join(body) + "\n",
                not_run=marker.group(1) if marker else None,
            )
        )
        i += 1
    return out


def hub_args_of(path: Path) -> list[str]:
    found = HUB_ARGS.search(path.read_text(encoding="utf-8"))
    return found.group(1).split() if found else []
