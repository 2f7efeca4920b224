"""Issue 42.3: a sample of the suite run against deliberately broken code fails.

Each case breaks one line of ``bridge/core`` the way a mutation tool would (a comparison
turned, a constant changed, a condition dropped), in a copy of the package, and runs the test
module that covers it against that copy: the run must fail. The full mutation run over
``bridge/core`` (mutmut, ``scripts/mutation``) is too slow for every test run; this sample
keeps the suite honest about the lines that decide a refusal, a mask or a match.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CASES = [
    # (module, the exact line, what it becomes, the tests that must catch it)
    (
        "bridge/core/textmatch.py",
        "            if needle and needle in norm:",
        "            if needle:",
        "tests/core/test_textmatch.py",
    ),
    (
        "bridge/core/safe_regex.py",
        "    if len(pattern) > MAX_REGEX_LENGTH:",
        "    if len(pattern) > MAX_REGEX_LENGTH * 2:",
        "tests/core/test_safe_regex.py",
    ),
    (
        "bridge/core/secret_forms.py",
        "EDGE_MIN: Final = 4",
        "EDGE_MIN: Final = 40",
        "tests/core/test_secret_forms.py",
    ),
    (
        "bridge/hub/log_stream.py",
        "            masked = mask_line(line, masker, self.previous)",
        "            masked = line",
        "tests/hub/test_log_secret_sources.py",
    ),
]


@pytest.mark.parametrize(("module", "line", "broken", "tests"), CASES, ids=[c[0] for c in CASES])
def test_a_broken_line_fails_its_tests(
    module: str, line: str, broken: str, tests: str, tmp_path: Path
) -> None:
    copy = tmp_path / "src"
    shutil.copytree(ROOT / "bridge", copy / "bridge", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "tests", copy / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    target = copy / module
    source = target.read_text()
    assert source.count(line) == 1, f"{line!r} is not once in {module}: update this case"
    target.write_text(source.replace(line, broken))
    env = {**os.environ, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("CI", None)  # a skip here is not the point; the run's exit status is
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         "-p", "no:mobridge", tests],
        capture_output=True,
        text=True,
        cwd=copy,
        env=env,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]


def test_the_unbroken_copy_passes(tmp_path: Path) -> None:
    """The harness itself: the same copy, unbroken, passes (so a failure above is the break)."""
    copy = tmp_path / "src"
    shutil.copytree(ROOT / "bridge", copy / "bridge", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "tests", copy / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    env = {**os.environ, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         "-p", "no:mobridge", "tests/core/test_textmatch.py"],
        capture_output=True,
        text=True,
        cwd=copy,
        env=env,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    imported = subprocess.run(
        [sys.executable, "-c", "import bridge.core.textmatch as m; print(m.__file__)"],
        capture_output=True,
        text=True,
        cwd=copy,
        env=env,
        timeout=60,
    )
    assert imported.stdout.strip().startswith(str(copy)), imported  # the copy, not the checkout
