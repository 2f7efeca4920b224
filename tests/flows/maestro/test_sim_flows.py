"""Maestro flows run on the simulated device through the hub: the 26 example flows of
``examples/maestro`` pass on the Android and the iOS flavour; a selector matching several
elements is refused with every candidate and the ``index:`` to add, and ``--first-match``
takes the first and notes it; a regular-expression target matches whole texts only; commands
the simulated device cannot do are refused at their step with a reason; JavaScript reaches
the header, env and steps (and a looping script fails its step, not the run)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import msgspec
import pytest

from bridge.client import connect
from bridge.flows.compile import load_suite
from bridge.flows.report import SuiteReport
from bridge.flows.suite import SuiteOptions, run_suite
from bridge.wire.enums import Platform
from tests.cli.hubproc import ROOT, clean_env, mobridge_command
from tests.hub.hubfixture import CONTROLLER, running_hub

EXAMPLES = ROOT / "examples" / "maestro"
HEADER = "appId: dev.mobridge.demo\n---\n- launchApp\n"


async def run_flows(
    tmp: Path, platform: Platform = Platform.ANDROID, first_match: bool = False, **files: str
) -> SuiteReport:
    for name, text in files.items():
        (tmp / f"{name}.yaml").write_text(text)
    flows = load_suite([str(tmp)], {}, {})
    async with (
        running_hub(sim_platform=platform) as rh,
        connect(rh.url, token=CONTROLLER, name="maestro") as hub,
    ):
        options = SuiteOptions(first_match=first_match)
        return await run_suite(hub, flows, [rh.device_id], options)


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_the_example_flows_pass_on_both_flavours(tmp_path: Path, platform: str) -> None:
    flows = sorted(EXAMPLES.glob("*.yaml"))
    assert len(flows) >= 25
    report = tmp_path / "report"
    done = subprocess.run(
        mobridge_command(
            "test", str(EXAMPLES), "--sim-platform", platform, "--report", str(report), "--quiet"
        ),
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=clean_env(tmp_path / "rt"),
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    tests = json.loads((report / "index.json").read_text())["tests"]
    assert len(tests) == len(flows)
    assert {t["status"] for t in tests} == {"passed"}
    labelled = [s for t in tests for s in t["steps"] if s.get("label")]
    assert any(s["label"] == "Open the settings" for s in labelled)


@pytest.mark.anyio
async def test_ambiguity_is_refused_unless_index_or_first_match(tmp_path: Path) -> None:
    flows = tmp_path / "flows"
    flows.mkdir()
    text = HEADER + "- tapOn: Ambiguous\n- tapOn: Continue\n- assertVisible: 'Chose .*'\n"
    report = await run_flows(flows, a_ambiguous=text)
    failed = report.tests[0]
    assert failed.status == "failed" and failed.failure is not None
    step = failed.steps[2]
    assert step.refusal is not None and step.refusal.code == "AMBIGUOUS_MATCH"
    assert len(step.refusal.candidates) == 2
    assert "add 'index: 0'" in (step.message or "")
    second = tmp_path / "second"
    second.mkdir()
    chosen = await run_flows(second, first_match=True, b_first=text)
    passed = chosen.tests[0]
    assert passed.status == "passed", passed.failure
    assert passed.steps[2].notes and "--first-match: 2 elements match" in passed.steps[2].notes[0]


@pytest.mark.anyio
async def test_a_regex_target_matches_whole_texts(tmp_path: Path) -> None:
    report = await run_flows(
        tmp_path,
        a_whole=HEADER + "- assertVisible: 'Sett.*'\n- tapOn: '.*ettings'\n",
        b_part=HEADER + "- extendedWaitUntil: {visible: 'ettin', timeout: 300}\n",
    )
    whole, part = report.tests
    assert whole.status == "passed", whole.failure
    assert part.status == "failed" and part.failure is not None
    assert "expected 'ettin' visible" in part.failure.message


@pytest.mark.anyio
@pytest.mark.parametrize("platform", [Platform.ANDROID, Platform.IOS])
async def test_what_the_sim_cannot_do_is_refused_at_the_step(
    tmp_path: Path, platform: Platform
) -> None:
    cases = {
        "a_media": "- addMedia: [photo.png]\n",
        "b_keychain": "- clearKeychain\n",
        "c_ai": "- assertWithAI: {assertion: a login form}\n",
        "d_key": "- pressKey: Power\n",
        "e_upside": "- setOrientation: UPSIDE_DOWN\n",
        "f_subflow": "- runFlow: not-here.yaml\n",  # loads with a warning, fails when it runs
        "g_script": "- runScript: not-here.js\n",
    }
    report = await run_flows(tmp_path, platform, **{k: HEADER + v for k, v in cases.items()})
    for test in report.tests:
        assert test.status == "failed"
        step = test.steps[1]
        assert step.refusal is not None and step.refusal.code == "ACTION_UNSUPPORTED", step
        assert "\n" not in (step.message or "") and step.message
    media = report.tests[0].steps[1].message or ""
    assert "addMedia" in media and "simulated device has no gallery" in media
    assert "runFlow not-here.yaml: no such file" in (report.tests[5].steps[1].message or "")
    assert "runScript not-here.js: no such file" in (report.tests[6].steps[1].message or "")


@pytest.mark.anyio
async def test_javascript_in_header_env_and_steps(tmp_path: Path) -> None:
    (tmp_path / "lib.js").write_text("output.user = 'de' + 'mo'\n")
    (tmp_path / "loop.js").write_text("while (true) {}\n")
    report = await run_flows(
        tmp_path,
        a_js="appId: dev.mobridge.demo\nname: ${'js'}\nenv:\n  SCREEN: ${'Log' + 'in'}\n---\n"
        "- launchApp\n- runScript: lib.js\n- tapOn: ${SCREEN}\n- tapOn: {id: username}\n"
        "- inputText: ${output.user}\n- assertVisible: {id: username, text: '${output.user}'}\n",
        b_loop=HEADER + "- runScript: loop.js\n- tapOn: Login\n",
        c_app="appId: ${APP}\nenv:\n  APP: dev.mobridge.demo\n---\n- launchApp\n"
        "- tapOn: Login\n- stopApp\n- launchApp\n- assertVisible: Login\n",
    )
    ok, loop, app = report.tests
    assert app.status == "passed", app.failure
    assert ok.name == "js"  # the header's ${...} too
    assert ok.status == "passed", ok.failure
    assert loop.status == "failed" and loop.failure is not None
    assert "loop.js:1: stopped: ran longer than its limit" in loop.failure.message
    assert [s.status for s in loop.steps] == ["passed", "failed", "skipped"]


@pytest.mark.anyio
async def test_a_value_given_with_e_is_never_in_a_steps_report(tmp_path: Path) -> None:
    """``${PASSWORD}`` typed into the password field (plain, and with ``redact: true``) and
    passed as a launch argument: each step's report says what it did as written, and the
    report holds the value nowhere (the field is a password field: its value is never read)."""
    secret = "hunter2-given-with-e"
    (tmp_path / "s.yaml").write_text(
        HEADER + "- tapOn: Login\n- tapOn: {id: password}\n- inputText: ${PASSWORD}\n"
        "- inputText: {text: '${PASSWORD}', redact: true}\n"
        "- launchApp: {appId: dev.mobridge.demo, arguments: ['${PASSWORD}']}\n"
    )
    flows = load_suite([str(tmp_path)], {"PASSWORD": secret}, {})
    async with (
        running_hub() as rh,
        connect(rh.url, token=CONTROLLER, name="maestro") as hub,
    ):
        options = SuiteOptions(variables={"PASSWORD": secret})
        report = await run_suite(hub, flows, [rh.device_id], options)
    (test,) = report.tests
    assert test.status == "passed", test.failure.message if test.failure else None
    typed, redacted, launched = test.steps[3], test.steps[4], test.steps[5]
    assert typed.expected == "typed into the focused input" and "${PASSWORD}" in typed.source
    assert "redact" in " ".join(redacted.notes)
    assert launched.expected == "dev.mobridge.demo open with 1 launch argument(s)"
    for step in test.steps[:5]:  # before the demo app draws its arguments on screen
        assert secret not in msgspec.json.encode(step).decode(), step.index
    assert all(secret not in (s.expected or "") for s in test.steps)
