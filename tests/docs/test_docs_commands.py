"""Every command and code block of README.md and docs/*.md runs as written, in order, against
a freshly started hub (``mobridge serve``, the simulated device), the way a reader would run
them in a second terminal: ``mobridge`` on PATH, no token given (the hub's own is found), the
hub's URL in ``MOBRIDGE_URL``. Conventions: ``tests/docs/docblocks.py``."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.hubproc import served_hub
from tests.docs.docblocks import ROOT, SHELL_TAGS, Block, blocks_of, doc_files, hub_args_of
from tests.skips import NO_VISION, vision_installed

RUNNABLE = SHELL_TAGS | {"python"}
FILES = doc_files()


def _workdir(tmp_path: Path) -> Path:
    """A scratch directory that looks like the checkout to relative paths in the docs."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "examples").symlink_to(ROOT / "examples")
    (work / "tests").symlink_to(ROOT / "tests")  # docs/vision.md reads its screenshots
    return work


def _run_block(block: Block, env: dict[str, str], work: Path) -> list[str]:
    """Run one block; returns a line per mismatch (empty when it ran as written)."""
    problems: list[str] = []
    if block.tag == "python":
        script = work / f"block_{block.line}.py"
        script.write_text(block.code)
        proc = subprocess.run(
            [sys.executable, str(script)],
            capture_output=True,
            text=True,
            cwd=work,
            env=env,
            timeout=120,
            check=False,
        )
        if proc.returncode != 0:
            problems.append(f"{block.where}: python block exited {proc.returncode}: {proc.stderr}")
        return problems
    for command, expected in block.commands():
        proc = subprocess.run(
            ["sh", "-c", command],
            capture_output=True,
            text=True,
            cwd=work,
            env=env,
            timeout=120,
            check=False,
        )
        if proc.returncode != expected or "Traceback" in proc.stderr:
            problems.append(
                f"{block.where}: `{command}` exited {proc.returncode} (expected {expected}):"
                f" {proc.stderr.strip()[:500]}"
            )
    return problems


@pytest.mark.timeout(900)  # a whole file's commands; a loaded machine runs them slowly
@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_every_block_runs_as_written(path: Path, tmp_path: Path) -> None:
    blocks = blocks_of(path)
    unexplained = [b.where for b in blocks if b.not_run is not None and not b.not_run.strip()]
    assert not unexplained, f"blocks marked not run without a reason: {unexplained}"
    runnable = [b for b in blocks if b.tag in RUNNABLE and b.not_run is None]
    if not runnable:
        return
    if "--vision" in hub_args_of(path) and not vision_installed():
        pytest.skip(NO_VISION)
    work = _workdir(tmp_path)
    with served_hub(tmp_path, *hub_args_of(path)) as hub:
        env = hub.env()
        env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
        problems: list[str] = []
        for block in runnable:
            problems += _run_block(block, env, work)
    assert not problems, "\n".join(problems)


def test_the_conventions_are_followed_and_something_runs() -> None:
    """Each file's blocks are runnable or explained; the README has commands that run."""
    readme = blocks_of(ROOT / "README.md")
    assert sum(len(b.commands()) for b in readme if b.tag in SHELL_TAGS and not b.not_run) >= 15
    assert any(b.tag == "python" and not b.not_run for b in readme)
    for path in FILES:
        for block in blocks_of(path):
            if block.tag in RUNNABLE and block.not_run is not None:
                assert len(block.not_run) > 10, f"{block.where}: say why it is not run"


def test_the_readme_python_snippet_says_in_one_line_that_no_hub_runs(tmp_path: Path) -> None:
    """Run as the README shows it, with nothing listening: one line, what to do, exit 1."""
    snippet = next(b for b in blocks_of(ROOT / "README.md") if b.tag == "python" and not b.not_run)
    script = tmp_path / "snippet.py"
    script.write_text(snippet.code)
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("MOBRIDGE_")}
    env["MOBRIDGE_URL"] = f"ws://127.0.0.1:{port}/v1"
    env["XDG_RUNTIME_DIR"] = str(tmp_path)
    proc = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 1
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"my-script: no hub at ws://127.0.0.1:{port}/v1")
    assert "mobridge serve" in lines[0]
