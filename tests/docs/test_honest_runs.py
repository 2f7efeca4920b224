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
# stands in for .venv/bin/python: records pip installs, answers version checks, and fetches a
# fake uv (below) into pip's --target folder when the checkout has a file uv-available
if [ "$1" = "-c" ]; then exit 0; fi
venv="$(dirname "$0")/.."
echo "$*" >> "$venv/pip-calls.log"
target=""
previous=""
for arg in "$@"; do
    [ "$previous" = "--target" ] && target=$arg
    previous=$arg
done
if [ -n "$target" ]; then
    [ -e "$venv/uv-available" ] || { echo "ERROR: No matching distribution found for uv"; exit 1; }
    mkdir -p "$target/bin"
    sed "s|VENV|$venv|" "$venv/fake-uv" > "$target/bin/uv"
    chmod +x "$target/bin/uv"
    exit 0
fi
echo "Collecting websockets>=13 (from mobridge==0.1.0)"
echo "  Downloading websockets-15.0-cp311-cp311-manylinux.whl (180 kB)"
echo "Successfully installed mobridge-0.1.0 websockets-15.0"
exit 0
"""

FAKE_UV = """#!/bin/sh
# stands in for uv: records its installs; fails when the checkout has a file uv-fails
echo "uv $*" >> "VENV/pip-calls.log"
if [ -e "VENV/uv-fails" ]; then
    echo "error: Failed to fetch: https://pypi.org/simple/websockets/"
    exit 2
fi
echo "Resolved 2 packages in 12ms"
echo "Prepared 1 package in 30ms"
echo "Installed 2 packages in 3ms"
echo " + mobridge==0.1.0 (from file:///checkout)"
echo " + websockets==15.0"
exit 0
"""


def _fake_checkout(tmp_path: Path, uv: bool = True) -> Path:
    checkout = tmp_path / "checkout"
    (checkout / "scripts").mkdir(parents=True)
    (checkout / "scripts" / "_venv").write_text((ROOT / "scripts" / "_venv").read_text())
    (checkout / "pyproject.toml").write_text("[project]\nname = 'mobridge'\n")
    python = checkout / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(FAKE_PYTHON)
    python.chmod(python.stat().st_mode | stat.S_IEXEC)
    (checkout / ".venv" / "fake-uv").write_text(FAKE_UV)
    if uv:
        (checkout / ".venv" / "uv-available").touch()
    return checkout


def _source_venv(
    checkout: Path, needs: str, extras: str = "", **more: str
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MOBRIDGE_")}
    env.update(more)
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


def _installs(checkout: Path) -> list[str]:
    """The install commands run (not the fetching of uv itself)."""
    lines = (checkout / ".venv" / "pip-calls.log").read_text().splitlines()
    return [line for line in lines if "--target" not in line]


def test_run_installs_serving_only_test_adds_dev_and_ios_only_when_asked(tmp_path: Path) -> None:
    checkout = _fake_checkout(tmp_path)
    served = _source_venv(checkout, "", TMPDIR=str(tmp_path))
    assert served.returncode == 0, served.stderr
    assert _installs(checkout)[-1].startswith("uv pip install --python .venv/bin/python")
    assert _installs(checkout)[-1].split()[-1] == "."  # uv pip install ... -e .
    # progress people can see: one line per package installed, and the counts
    assert "  Resolved 2 packages" in served.stderr
    assert "   + websockets==15.0" in served.stderr
    assert "Prepared" not in served.stderr and "pip" not in served.stderr
    assert not list(tmp_path.glob("mobridge-uv.*"))  # the installer is not kept
    again = _source_venv(checkout, "")
    assert again.returncode == 0 and again.stderr == ""  # installed once, not per start
    tested = _source_venv(checkout, "dev")
    assert _installs(checkout)[-1].split()[-1] == ".[dev]"
    assert "installing .[dev]" in tested.stderr
    asked = _source_venv(checkout, "dev", extras="ios")
    assert asked.returncode == 0
    assert _installs(checkout)[-1].split()[-1] == ".[ios]"
    assert len(_installs(checkout)) == 3
    assert 'MOBRIDGE_NEEDS=""' in (ROOT / "scripts" / "run").read_text()
    # the bench needs uvloop (the fast extra) to run its hub on both event loops
    assert 'MOBRIDGE_NEEDS="fast"' in (ROOT / "scripts" / "bench").read_text()
    for script in ("test", "check", "smoke-wheel"):
        assert "MOBRIDGE_NEEDS=dev" in (ROOT / "scripts" / script).read_text()


def test_pip_installs_when_uv_cannot_be_fetched_fails_or_is_declined(tmp_path: Path) -> None:
    """Each way to pip says which way it went; pip's own progress lines follow."""
    tmp = {"TMPDIR": str(tmp_path)}
    unfetched = _fake_checkout(tmp_path / "a", uv=False)
    done = _source_venv(unfetched, "", **tmp)
    assert done.returncode == 0, done.stderr
    assert "could not fetch the uv installer (pip's log: .venv/uv-fetch.log)" in done.stderr
    assert "No matching distribution found for uv" in (unfetched / ".venv/uv-fetch.log").read_text()
    assert "  Collecting websockets>=13" in done.stderr
    assert _installs(unfetched)[-1].endswith("pip install --disable-pip-version-check"
                                             " --progress-bar off -e .")  # fmt: skip

    failing = _fake_checkout(tmp_path / "b")
    (failing / ".venv" / "uv-fails").touch()
    done = _source_venv(failing, "", **tmp)
    assert done.returncode == 0, done.stderr
    assert "Failed to fetch" in done.stderr  # uv's own reason, then the way out
    assert "uv could not install . (above); installing with pip" in done.stderr
    assert [line.split()[0] for line in _installs(failing)] == ["uv", "-m"]
    assert "  Successfully installed mobridge-0.1.0" in done.stderr

    declined = _fake_checkout(tmp_path / "c")
    done = _source_venv(declined, "", MOBRIDGE_INSTALLER="pip", **tmp)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[1:] == [
        "  Collecting websockets>=13 (from mobridge==0.1.0)",
        "  Successfully installed mobridge-0.1.0 websockets-15.0",
    ]
    calls = (declined / ".venv" / "pip-calls.log").read_text().splitlines()
    assert len(calls) == 1 and "--target" not in calls[0]  # uv not even fetched
    assert not list(tmp_path.glob("mobridge-uv.*"))


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
