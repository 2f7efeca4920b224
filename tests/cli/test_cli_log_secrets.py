"""Issue 42.1 end to end: ``mobridge logs`` run with an observer token never shows a decodable
form of a secret another client typed with ``--value-ref secret://``, although the simulated
device writes the typed text to its log escaped (``SET_TEXT on view #4: 'Pa\\\\ss\\'w0rd"X'``)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from urllib.parse import quote

from tests.cli.hubproc import ROOT, mobridge_command, served_hub
from tests.cli.test_cli_hub import DEV, ok

SECRET = "Pa\\ss'w0rd\"X"
OBSERVER = "observer-token-for-logs"


def test_an_observer_reading_the_log_never_sees_the_typed_secret(tmp_path: Path) -> None:
    with served_hub(
        tmp_path,
        "--sim-scene",
        "login",
        "--observer-token",
        OBSERVER,
        hub_env={"MOBRIDGE_SECRET_LOGPW": SECRET},
    ) as hub:
        reader = subprocess.Popen(
            mobridge_command("logs", DEV, "--grep", "SET_TEXT", "--count", "1", "--seconds", "60"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=hub.env(MOBRIDGE_TOKEN=OBSERVER),
        )
        try:
            # type until the reader (which subscribes on its own time) has seen a line
            for _ in range(20):
                ok(hub.run("type", DEV, "Username", "--value-ref", "secret://logpw"))
                if reader.poll() is not None:
                    break
            out, err = reader.communicate(timeout=60)
        finally:
            if reader.poll() is None:
                reader.kill()
        assert reader.returncode == 0, err
        lines = [json.loads(line) for line in out.splitlines()]
        assert len(lines) == 1 and "SET_TEXT" in lines[0]["text"], lines
        for shown in (out, err):
            for form in (SECRET, repr(SECRET)[1:-1], json.dumps(SECRET)[1:-1], quote(SECRET)):
                assert form not in shown, (form, shown)
        assert "••••••••" in lines[0]["text"]
