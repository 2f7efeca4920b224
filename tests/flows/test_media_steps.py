"""The device-media flow steps against a real hub with the simulated device: installApp of a
local file (streamed, approved), assertLog on lines the steps made the device write, and
startRecording / stopRecording writing an MP4 PyAV plays under the report directory."""

from __future__ import annotations

import json
from pathlib import Path

import av
import pytest

from tests.flows.test_runner import HEADER, run_flows

pytestmark = pytest.mark.anyio


async def test_install_file_assert_log_and_recording(tmp_path: Path) -> None:
    flows = tmp_path / "flows"
    flows.mkdir()
    (tmp_path / "notes.json").write_text(json.dumps({"appId": "com.example.notes", "name": "N"}))
    out = tmp_path / "report"
    report = await run_flows(
        flows,
        out,
        a_media=HEADER
        + "- startRecording: clip\n"
        + "- installApp: {file: ../notes.json, approve: true}\n"
        + "- assertLog: 'install package'\n"
        + "- tap: Login\n"
        + "- assertLog: {grep: 'CLICK on view', level: info, timeoutMs: 3000}\n"
        + "- stopRecording\n",
        b_missing=HEADER + "- assertLog: {grep: 'never written', timeoutMs: 300}\n",
        c_unapproved=HEADER + "- installApp: {file: ../notes.json}\n",
    )
    ok, missing, unapproved = report.tests
    assert ok.status == "passed", ok.failure
    assert "recordings/" in (ok.steps[-1].message or "")
    clip = next(out.glob("recordings/*/clip.mp4"))
    with av.open(str(clip)) as container:
        assert sum(1 for _ in container.decode(video=0)) >= 1
    assert missing.status == "failed" and missing.failure is not None
    assert "no log line matched 'never written'" in missing.failure.message
    assert unapproved.status == "failed" and unapproved.failure is not None
    assert "approve: true" in unapproved.failure.message
