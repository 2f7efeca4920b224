"""Honest installs and test runs: what scripts/_venv installs for whom (with progress), the
built wheel's contents, the one list of system packages, and skips that are reported (locally)
or fail (under CI)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.docs.docblocks import ROOT

FAKE_PYTHON = """#!/bin/sh
# stands in for .venv/bin/python: records pip installs, answers version checks
if [ "$1" = "-c" ]; then exit 0; fi
echo "$*" >> "$(dirname "$0")/../pip-calls.log"
echo "Collecting websockets>=13 (from mobridge==0.1.0)"
echo "  Downloading websockets-15.0-cp311-cp311-manylinux.whl (180 kB)"
echo "Successfully installed mobridge-0.1.0 websockets-15.0"
exit 0
"""


def _fake_checkout(tmp_path: Path) -> Path:
    checkout = tmp_path / "checkout"
    (checkout / "scripts").mkdir(parents=True)
    (checkout / "scripts" / "_venv").write_text((ROOT / "scripts" / "_venv").read_text())
    (checkout / "pyproject.toml").write_text("[project]\nname = 'mobridge'\n")
    python = checkout / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(FAKE_PYTHON)
    python.chmod(python.stat().st_mode | stat.S_IEXEC)
    return checkout


def _source_venv(checkout: Path, needs: str, extras: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MOBRIDGE_")}
    if extras:
        env["MOBRIDGE_EXTRAS"] = extras
    return subprocess.run(
        ["sh", "-c", f'MOBRIDGE_NEEDS="{needs}"; . scripts/_venv'],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_run_installs_serving_only_test_adds_dev_and_ios_only_when_asked(tmp_path: Path) -> None:
    checkout = _fake_checkout(tmp_path)
    calls = checkout / ".venv" / "pip-calls.log"
    served = _source_venv(checkout, "")
    assert served.returncode == 0, served.stderr
    assert calls.read_text().split()[-1] == "."  # pip install ... -e .
    # progress people can see: one line per package pip fetches, and the result
    assert "  Collecting websockets>=13" in served.stderr
    assert "  Successfully installed mobridge-0.1.0" in served.stderr
    assert "Downloading" not in served.stderr
    again = _source_venv(checkout, "")
    assert again.returncode == 0 and again.stderr == ""  # installed once, not per start
    tested = _source_venv(checkout, "dev")
    assert calls.read_text().splitlines()[-1].split()[-1] == ".[dev]"
    assert "installing .[dev]" in tested.stderr
    asked = _source_venv(checkout, "dev", extras="ios")
    assert asked.returncode == 0
    assert calls.read_text().splitlines()[-1].split()[-1] == ".[ios]"
    assert len(calls.read_text().splitlines()) == 3
    assert 'MOBRIDGE_NEEDS=""' in (ROOT / "scripts" / "run").read_text()
    # the bench needs uvloop (the fast extra) to run its hub on both event loops
    assert 'MOBRIDGE_NEEDS="fast"' in (ROOT / "scripts" / "bench").read_text()
    for script in ("test", "check", "smoke-wheel"):
        assert "MOBRIDGE_NEEDS=dev" in (ROOT / "scripts" / script).read_text()


def test_the_wheel_holds_the_package_and_the_dashboard_and_needs_only_serving_deps(
    tmp_path: Path,
) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--disable-pip-version-check",
            "--no-build-isolation",
            "--no-deps",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("mobridge-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = archive.read(meta).decode()
        entry = archive.read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert "bridge/dashboard/static/index.html" in names
    assert "bridge/cli/main.py" in names and "bridge/hub/app.py" in names
    assert not any(n.startswith("tests/") for n in names)
    assert "mobridge = bridge.cli.main:main" in entry
    required = [
        line.split(":", 1)[1].strip()
        for line in metadata.splitlines()
        if line.startswith("Requires-Dist:") and "extra ==" not in line
    ]
    names_only = {r.split(">")[0].split("=")[0].split("<")[0].strip() for r in required}
    assert {"websockets", "msgspec", "anyio", "structlog"} <= names_only
    assert not names_only & {"pytest", "mypy", "ruff", "playwright", "pymobiledevice3"}


def test_one_script_lists_the_system_packages_ci_installs_and_the_readme_names_it() -> None:
    listed = subprocess.run(
        [str(ROOT / "scripts" / "system-packages")],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout
    packages = {line.split()[0] for line in listed.splitlines()}
    assert {"chromium", "default-jdk-headless", "junit4", "aapt", "python3-venv"} <= packages
    ci = (ROOT / ".ci" / "run").read_text()
    assert "scripts/system-packages --install" in ci and "apt-get" not in ci
    assert "scripts/smoke-wheel" in ci
    assert "scripts/system-packages" in (ROOT / "README.md").read_text()
    install = (ROOT / "scripts" / "system-packages").read_text()
    said = install.index("running apt-get as root")
    assert said < install.index("apt-get update"), "it says so before it installs as root"
    java = (ROOT / "agents" / "android" / "tools" / "java-env.sh").read_text()
    assert java.index("running apt-get as root") < java.index("apt-get update")


def _pytest_one(env_extra: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """A real test that needs Chromium, run where Chromium cannot be found."""
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "MOBRIDGE_SKIP_REPORT")}
    empty = tmp_path / "no-tools"
    empty.mkdir(exist_ok=True)
    env["PATH"] = str(empty)
    env.update(env_extra)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            "tests/dashboard/test_dashboard_browser.py::test_root_redirects_and_the_page_is_not_framable",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_a_local_skip_is_reported_with_how_to_enable_it_and_fails_under_ci(tmp_path: Path) -> None:
    report = tmp_path / "skips.txt"
    local = _pytest_one({"MOBRIDGE_SKIP_REPORT": str(report)}, tmp_path)
    assert local.returncode == 0, local.stdout
    assert report.read_text() == (
        "skipped 1 test: no Chromium for the dashboard browser tests"
        " — enable: sudo scripts/system-packages --install\n"
    )
    under_ci = _pytest_one({"CI": "true"}, tmp_path)
    assert under_ci.returncode == 1, under_ci.stdout
    assert "skipped under CI, where nothing may skip: no Chromium" in under_ci.stdout
    test_script = (ROOT / "scripts" / "test").read_text()
    assert "MOBRIDGE_SKIP_REPORT" in test_script and "not everything ran here" in test_script
