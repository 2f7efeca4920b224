"""The device-media commands against a real ``mobridge serve`` (simulated device): a screen
recording PyAV plays, the log streamed while another command acts, a local package streamed
and installed with --approve, and bad input answered with one line and exit 2."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import av

from tests.cli.hubproc import ROOT, mobridge_command, served_hub
from tests.cli.test_cli_hub import DEV, ok


def test_screenrecord_writes_an_mp4_pyav_plays(tmp_path: Path) -> None:
    out = tmp_path / "a.mp4"
    with served_hub(tmp_path) as hub:
        made = json.loads(ok(hub.run("screenrecord", DEV, "-o", str(out), "--seconds", "3")))
        for seconds in ("0", "100000"):
            bad = hub.run("screenrecord", DEV, "-o", str(out), "--seconds", seconds)
            assert bad.returncode == 2 and "1 to 600" in bad.stderr
            assert len(bad.stderr.strip().splitlines()) == 1
    with av.open(str(out)) as container:
        assert container.streams.video[0].codec_context.name == "h264"
        frames = sum(1 for _ in container.decode(video=0))
    # every frame the hub counted is in the file; a loaded machine may render fewer than the
    # asked rate, but a 3 s recording holds its first frame and at least one more
    assert frames == made["frames"] >= 2
    assert made["bytes"] == out.stat().st_size


def test_logs_stream_lines_as_actions_happen(tmp_path: Path) -> None:
    with served_hub(tmp_path) as hub:
        reader = subprocess.Popen(
            mobridge_command("logs", DEV, "--count", "2", "--seconds", "30"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=hub.env(),
        )
        try:
            lines: list[str] = []
            assert reader.stdout is not None
            for _ in range(20):  # act until the reader has subscribed and seen two lines
                ok(hub.run("tap", DEV, "--at", "540,1200"))
                ok(hub.run("press", DEV, "back"))
                if reader.poll() is not None:
                    break
            out, err = reader.communicate(timeout=30)
            lines = [json.loads(line) for line in out.splitlines()]
        finally:
            if reader.poll() is None:
                reader.kill()
        assert reader.returncode == 0, err
        assert len(lines) == 2
        assert any("tap at 540,1200" in line["text"] for line in lines) or any(
            "BACK" in line["text"] for line in lines
        )
        bad = hub.run("logs", DEV, "--grep", "(?=x)", "--seconds", "1")
        assert bad.returncode == 2 and "lookahead" in bad.stderr
        assert hub.run("logs", DEV, "--level", "loud").returncode == 2


def test_app_install_streams_a_local_file_with_approve(tmp_path: Path) -> None:
    package = tmp_path / "notes.json"
    package.write_text(json.dumps({"appId": "com.example.notes", "name": "Notes"}))
    digest = hashlib.sha256(package.read_bytes()).hexdigest()
    with served_hub(tmp_path) as hub:
        asked = hub.run("app", DEV, "install", str(package))
        assert asked.returncode == 1 and "USER_CONFIRMATION_REQUIRED" in asked.stdout
        wrong = hub.run("app", DEV, "install", str(package), "--sha256", "0" * 64, "--approve")
        assert wrong.returncode == 2 and "sha256" in wrong.stderr
        missing = hub.run("app", DEV, "install", str(tmp_path / "absent.apk"), "--approve")
        assert missing.returncode == 2 and "no such file" in missing.stderr
        installed = json.loads(
            ok(hub.run("app", DEV, "install", str(package), "--sha256", digest, "--approve"))
        )
        assert installed["verification"]["result"] == "CONDITION_MET"
        assert "com.example.notes" in ok(hub.run("apps", DEV))
        ok(hub.run("app", DEV, "launch", "dev.mobridge.demo"))
        assert json.loads(ok(hub.run("apps", DEV)))["foreground"] == "dev.mobridge.demo"
        assert json.loads(ok(hub.run("crashes", DEV))).get("crashes", []) == []
