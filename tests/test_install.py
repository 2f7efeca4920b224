"""The install a new user gets (issue 40): the README's first-start figures (time to a ready
hub and the size of ``.venv``) hold within 50 %, and ``pip install`` of the package without
extras is at most 80 MB in a new virtual environment.

Slow (two fresh installs from the package index, about a minute): CI runs it (``CI`` set);
locally it runs with ``MOBRIDGE_INSTALL_TEST=1``. pip's cache makes the downloads cheap; the
time measured is installing and starting, as on a machine that fetched the wheels before.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_BASE_INSTALL_MB = 80
TOLERANCE = 1.5
FIGURES = re.compile(r"about (?P<seconds>\d+) s and (?P<mb>\d+) MB")

pytestmark = [
    pytest.mark.skipif(
        not (os.environ.get("CI") or os.environ.get("MOBRIDGE_INSTALL_TEST")),
        reason="two fresh installs (about a minute): run with MOBRIDGE_INSTALL_TEST=1 "
        "(CI always runs it)",
    ),
    pytest.mark.timeout(1200),  # an install on a loaded machine takes minutes
]


def _base_python() -> str:
    return getattr(sys, "_base_executable", None) or shutil.which("python3") or sys.executable


def _size_mb(path: Path) -> float:
    out = subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[0]) / 1024


def _clean_env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MOBRIDGE_", "VIRTUAL_ENV"))}
    env["XDG_RUNTIME_DIR"] = str(tmp / "runtime")
    env["XDG_STATE_HOME"] = str(tmp / "state")
    env["PYTHON"] = _base_python()
    (tmp / "runtime").mkdir(mode=0o700)
    return env


def _checkout_copy(into: Path) -> Path:
    """The checkout's files (tracked and new, not ignored) without its ``.venv``."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for raw in listed:
        if not raw:
            continue
        source = ROOT / raw.decode()
        if source.is_file():
            target = into / raw.decode()
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return into


def _readme_figures() -> tuple[float, float]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = FIGURES.search(text)
    assert found is not None, "README.md's quick start states its first-start figures"
    return float(found.group("seconds")), float(found.group("mb"))


def test_the_readme_first_start_figures_hold(tmp_path: Path) -> None:
    claimed_s, claimed_mb = _readme_figures()
    checkout = _checkout_copy(tmp_path / "checkout")
    env = _clean_env(tmp_path)
    start = time.monotonic()
    made = subprocess.run(
        ["sh", "-c", "MOBRIDGE_NEEDS= . scripts/_venv"],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert made.returncode == 0, made.stderr[-2000:]
    hub = subprocess.Popen(
        [str(checkout / ".venv/bin/mobridge"), "serve", "--port", "0"],
        cwd=checkout,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert hub.stdout is not None
        for line in hub.stdout:  # ready: the hub lists its devices
            if line.startswith("devices:"):
                break
        else:
            raise AssertionError("the new hub never became ready")
        took = time.monotonic() - start
    finally:
        hub.terminate()
        hub.wait(timeout=30)
    size = _size_mb(checkout / ".venv")
    # The README's time is for a machine doing nothing else; a machine whose run queue holds
    # N times as many tasks as it has cores gives each about 1/N of a core (a ratio, not a
    # fixed bound: the suite runs on loaded machines too).
    share = max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))
    print(f"first start: {took:.1f} s to ready, .venv {size:.0f} MB (README: {claimed_s:g} s, "
          f"{claimed_mb:g} MB); load {os.getloadavg()[0]:.1f}")  # fmt: skip
    assert claimed_mb / TOLERANCE <= size <= claimed_mb * TOLERANCE, (size, claimed_mb)
    assert took <= claimed_s * TOLERANCE * share, (took, claimed_s, share)


def test_pip_install_without_extras_is_at_most_80_mb(tmp_path: Path) -> None:
    wheels = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--disable-pip-version-check", "-q",
         "--no-build-isolation", "--no-deps", "-w", str(wheels), str(ROOT)],
        check=True,
        timeout=300,
    )  # fmt: skip
    (wheel,) = wheels.glob("mobridge-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([_base_python(), "-m", "venv", str(venv)], check=True, timeout=120)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    subprocess.run(
        [str(venv / "bin/python"), "-m", "pip", "install", "--disable-pip-version-check", "-q",
         str(wheel)],
        check=True,
        timeout=600,
        env=env,
    )  # fmt: skip
    installed = subprocess.run(
        [str(venv / "bin/python"), "-c", "import bridge, importlib.util as u; "
         "print(u.find_spec('av') is None, u.find_spec('tesserocr') is None)"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )  # fmt: skip
    assert installed.stdout.split() == ["True", "True"]  # no extras came with it
    size = _size_mb(venv)
    print(f"pip install (no extras): {size:.1f} MB in a new venv")
    assert size <= MAX_BASE_INSTALL_MB, size
