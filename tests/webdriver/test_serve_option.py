"""``mobridge serve --webdriver``: the line it prints, and one line saying what to do when the
port is taken or the host is not loopback."""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

from tests.cli.hubproc import ROOT, clean_env, mobridge_command
from tests.webdriver.wdfixture import wd_hub


def test_serve_prints_the_endpoint_and_it_answers_status(tmp_path: Path) -> None:
    import json
    import urllib.request

    with wd_hub(tmp_path, "android") as wd:
        assert wd.url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(f"{wd.url}/wd/hub/status", timeout=10) as answer:
            assert json.load(answer)["value"]["ready"] is True


def test_a_taken_port_and_a_public_host_are_refused_in_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            mobridge_command("serve", "--port", "0", "--no-journal", "--webdriver", str(port)),
            capture_output=True, text=True, cwd=ROOT, env=clean_env(tmp_path), timeout=60,
            check=False,
        )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        f"mobridge serve: --webdriver port {port} is already in use (an Appium server?); "
        "stop it, or pass --webdriver N (0 picks a free one)"
    )
    public = subprocess.run(
        mobridge_command("serve", "--host", "0.0.0.0", "--webdriver"),
        capture_output=True, text=True, cwd=ROOT, env=clean_env(tmp_path), timeout=60,
        check=False,
    )  # fmt: skip
    assert public.returncode == 2
    assert "--webdriver serves 127.0.0.1 only" in public.stderr
