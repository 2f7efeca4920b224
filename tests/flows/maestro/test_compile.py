"""Maestro files load beside mobridge's (``bridge.flows.maestro.compile``): the format is told
by shape, selectors become full-match RE2 patterns, values take Maestro's shapes and
case-insensitive enums, ``label`` names a step, and every mistake is reported at
``file:line:column`` — once per file, after a header mistake too, with the closest real name
of an unknown command. ``mobridge test --check`` prints them and exits 0 or 2."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bridge.flows.check import check
from bridge.flows.compile import Block, Flow, FlowLoader, NodeAction, RunFlow, Step, load_suite
from bridge.flows.errors import FlowErrors
from bridge.flows.maestro import actions as a
from bridge.flows.maestro.compile import suggest, text_match
from bridge.wire.enums import MatchMode
from tests.cli.hubproc import ROOT, clean_env, mobridge_command


def load(tmp: Path, text: str, name: str = "flow.yaml") -> Flow:
    path = tmp / name
    path.write_text(text)
    return FlowLoader({}, {}).load(path, name)


def mistakes(tmp: Path, text: str, name: str = "flow.yaml") -> list[str]:
    with pytest.raises(FlowErrors) as caught:
        load(tmp, text, name)
    return [str(e) for e in caught.value.errors]


def test_the_format_is_told_by_shape(tmp_path: Path) -> None:
    maestro = load(tmp_path, "appId: a.b\n---\n- tapOn: Login\n", "m.yaml")
    ours = load(tmp_path, "appId: a.b\n---\n- tap: Login\n", "o.yaml")
    shared = load(tmp_path, "appId: a.b\n---\n- launchApp\n- assertVisible: Login\n", "s.yaml")
    typed = load(tmp_path, "appId: a.b\n---\n- inputText: hello\n", "t.yaml")
    assert maestro.maestro and not ours.maestro
    assert not shared.maestro  # read alike by both: mobridge's, as before
    assert typed.maestro  # inputText with a plain text is Maestro's shape
    assert maestro.header.reset == "none"  # a Maestro flow launches its app itself
    assert isinstance(maestro.steps[0].action, a.OnElement)
    assert isinstance(ours.steps[0].action, NodeAction)


def test_text_is_a_full_match_regular_expression() -> None:
    plain = text_match("Sign in", ())
    assert plain.match is MatchMode.NORMALIZED_EXACT  # no regex syntax: compared normalized
    pattern = text_match(".*Sign in.*", ())
    assert pattern.match is MatchMode.REGEX
    assert pattern.value.startswith("(?ims)\\A(?:") and pattern.value.endswith("\\z")
    import re2

    compiled = re2.compile(pattern.value)
    assert compiled.search("Please Sign in now")
    assert compiled.search("please\nSIGN IN")  # case ignored, . matches a newline
    exact = re2.compile(text_match("Sign (in|up)", ()).value)
    assert exact.search("Sign up") and not exact.search("Sign up today")  # the whole text
    assert re2.compile(text_match("$9.99", ()).value).search("$9.99")  # or the literal text
    assert text_match("Save (draft", ()).match is MatchMode.NORMALIZED_EXACT  # invalid: literal


def test_values_take_maestros_shapes(tmp_path: Path) -> None:
    flow = load(
        tmp_path,
        "appId: a.b\nenv:\n  N: 3\n  ON: true\n---\n"
        "- scrollUntilVisible:\n    element: {id: row, index: '2'}\n    direction: up\n"
        "    timeout: '5000'\n"
        "- swipe: {start: '10%, 20%', end: '90%,80%', duration: 200}\n"
        "- repeat: {times: '2', commands: [back]}\n"
        "- runFlow: {when: {platform: iOS}, commands: [back], label: Only on iPhones}\n"
        "- pressKey: Remote Dpad Up\n- tapOn: YES\n",
    )
    scroll, swipe, _repeat, run, key, tap = flow.steps
    assert isinstance(scroll.action, a.ScrollTo)
    assert scroll.action.direction == "UP" and scroll.action.pick.index == 2
    assert scroll.action.timeout_ms == 5000
    assert isinstance(swipe.action, a.SwipeSpec) and swipe.action.percent
    assert swipe.action.start == (10.0, 20.0) and swipe.action.duration_ms == 200
    assert run.label == "Only on iPhones" and run.when is not None
    assert run.when.platform == "ios"
    assert flow.env == {"N": "3", "ON": "true"}
    assert isinstance(tap.action, a.OnElement) and tap.action.pick.said == "'YES'"
    assert key.kind == "pressKey"


def test_every_documented_command_loads(tmp_path: Path) -> None:
    (tmp_path / "sub.yaml").write_text("appId: a.b\n---\n- back\n")
    (tmp_path / "s.js").write_text("output.x = 1\n")
    text = """appId: a.b
name: all
tags: [t]
env: {A: '1'}
jsEngine: graaljs
onFlowStart: [back]
onFlowComplete: [back]
---
- tapOn: {text: a, repeat: 2, delay: 50, retryTapIfNoChange: false, waitToSettleTimeoutMs: 5}
- doubleTapOn: {id: x}
- longPressOn: {point: '10,20'}
- assertVisible: {text: a, enabled: true, checked: false, focused: false, selected: false}
- assertNotVisible: {width: 10, height: 20, tolerance: 2}
- assertTrue: ${1 == 1}
- assertWithAI: {assertion: looks fine}
- assertNoDefectsWithAI
- extractTextWithAI: {query: the price, outputVariable: price}
- back
- clearKeychain
- hideKeyboard
- pasteText
- scroll
- inputText: {text: hi, label: say hi}
- inputRandomText: {length: 3}
- inputRandomNumber
- inputRandomEmail
- inputRandomPersonName
- launchApp: {appId: a.b, clearState: true, stopApp: false, permissions: {all: deny},
    arguments: {k: v}}
- swipe: {direction: LEFT, duration: 300}
- swipe: {from: {id: card}, direction: UP}
- openLink: {link: 'https://example.com', browser: true, autoVerify: true}
- openBrowser: https://example.com
- pressKey: Enter
- eraseText: 5
- action: back
- takeScreenshot: {path: shots/one}
- extendedWaitUntil: {visible: a, timeout: 100}
- stopApp: a.b
- killApp
- clearState: {appId: a.b}
- runFlow: sub.yaml
- runFlow: {file: sub.yaml, env: {B: '2'}}
- setLocation: {latitude: 1, longitude: 2}
- repeat: {while: {notVisible: a}, commands: [back]}
- runScript: {file: s.js, env: {C: '3'}, when: {true: '${A}'}}
- waitForAnimationToEnd: {timeout: 10}
- evalScript: ${output.y = 2}
- scrollUntilVisible: {element: a, speed: 40, visibilityPercentage: 50, centerElement: true}
- travel: {points: ['1,2', '3,4'], speed: 10}
- startRecording: rec
- stopRecording
- addMedia: [photo.png]
- setAirplaneMode: enabled
- toggleAirplaneMode
- retry: {maxRetries: 1, file: sub.yaml}
- setOrientation: LANDSCAPE_RIGHT
- setClipboard: text
- setPermissions: {permissions: {camera: allow}}
- copyTextFrom: {id: price, below: {text: Total}, childOf: {id: cart}}
- assertVisible: {text: a, leftOf: b, rightOf: c, above: d, containsChild: e,
    containsDescendants: [f, {id: g}]}
"""
    flow = load(tmp_path, text)
    assert len(flow.steps) == 52 and flow.maestro
    assert len(flow.on_start) == 1 and len(flow.on_complete) == 1
    refusals = [s.kind for s in flow.steps if isinstance(s.action, a.Refuse)]
    assert refusals == [
        "assertWithAI",
        "assertNoDefectsWithAI",
        "extractTextWithAI",
        "clearKeychain",
        "addMedia",
        "setPermissions",
    ]


def test_mistakes_are_placed_once_per_file_with_real_suggestions(tmp_path: Path) -> None:
    (tmp_path / "shared.yaml").write_text("appId: a.b\n---\n- tapOnn: x\n")
    for name in ("one.yaml", "two.yaml"):
        (tmp_path / name).write_text("appId: a.b\n---\n- runFlow: shared.yaml\n- tapOn: ok\n")
    bad = (
        "appId: [not, a, word]\nenv: 3\n---\n"
        "- tapOn: {txt: Login}\n"
        "- killApp\n"
        "- inputTxt: hi\n"
        "- scrollUntilVisible: {element: a, direction: sideways}\n"
        "- assertVisible: {label: only a step name}\n"
        "- evalScript: ${output.x = }\n"
    )
    (tmp_path / "bad.yaml").write_text(bad)
    result = check([str(tmp_path)], {}, {})
    lines = [str(e) for e in result.mistakes()]
    shared = [line for line in lines if "shared.yaml" in line]
    assert shared == [
        f"{tmp_path}/shared.yaml:3:3: unknown command 'tapOnn'; did you mean 'tapOn'?"
    ]
    mine = [line.removeprefix(f"{tmp_path}/") for line in lines if "bad.yaml" in line]
    assert mine[0].startswith("bad.yaml:1:8: appId is the app's package")  # the header...
    assert mine[1].startswith("bad.yaml:2:6: env is a mapping")
    assert mine[2].startswith("bad.yaml:4:11: unknown key 'txt' in tapOn; did you mean 'text'?")
    assert not any("killApp" in m for m in mine)  # a real Maestro command: no "installApp"
    assert mine[3] == "bad.yaml:6:3: unknown command 'inputTxt'; did you mean 'inputText'?"
    assert mine[4].startswith("bad.yaml:7:47: scrollUntilVisible: expected one of UP, DOWN")
    assert not any(
        "names no element" in m for m in mine
    )  # loads as in Maestro; refused at its step
    assert mine[5].startswith("bad.yaml:9:15: evalScript: ${output.x =}: SyntaxError")
    assert result.loaded == 0 and len(result.files) == 4  # shared.yaml's callers fail too


def test_runscript_syntax_errors_name_the_script_line(tmp_path: Path) -> None:
    (tmp_path / "lib.js").write_text("var a = 1\n\nvar = 2\n")
    lines = mistakes(tmp_path, "appId: a.b\n---\n- runScript: lib.js\n")
    assert lines == ["lib.js:3:1: SyntaxError: variable name expected"]


def test_a_workspace_config_selects_and_orders_flows(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(
        "flows:\n  - 'suite/*'\nexcludeTags: [slow]\nexecutionOrder:\n  flowsOrder: [b]\n"
    )
    (tmp_path / "suite").mkdir()
    for name, tags in (("a", "[fast]"), ("b", "[fast]"), ("c", "[slow]")):
        (tmp_path / "suite" / f"{name}.yaml").write_text(
            f"appId: a.b\ntags: {tags}\n---\n- tapOn: x\n"
        )
    flows = load_suite([str(tmp_path)], {}, {})
    assert [f.path.stem for f in flows] == ["b", "a"]


def test_check_command_exit_statuses(tmp_path: Path) -> None:
    good, bad = tmp_path / "good", tmp_path / "bad"
    good.mkdir()
    bad.mkdir()
    (good / "f.yaml").write_text("appId: a.b\n---\n- tapOn: Login\n- back\n")
    (bad / "f.yaml").write_text("appId: a.b\n---\n- tapOm: Login\n")
    env = clean_env(tmp_path / "rt")

    def run(*paths: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            mobridge_command("test", "--check", *map(str, paths)),
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=env,
            timeout=60,
            check=False,
        )

    ok = run(good)
    assert ok.returncode == 0 and "1 of 1 files load (100.0%)" in ok.stderr
    failed = run(good, bad)
    assert failed.returncode == 2
    assert (
        failed.stdout.strip() == f"{bad}/f.yaml:3:3: unknown command 'tapOm'; did you mean 'tapOn'?"
    )
    assert "1 of 2 files load (50.0%)" in failed.stderr
    warn = tmp_path / "warn"
    warn.mkdir()
    (warn / "f.yaml").write_text("appId: a.b\n---\n- back\n- runFlow: helpers/login.yaml\n")
    warned = run(warn)
    assert warned.returncode == 0, warned.stderr
    assert warned.stdout.strip().startswith(f"{warn}/f.yaml:4:")
    assert "warning: runFlow helpers/login.yaml: no such file" in warned.stdout
    assert "1 of 1 files load (100.0%); 1 warning" in warned.stderr


def test_suggestions_are_by_similarity() -> None:
    assert suggest("tapon") == "tapOn"
    assert suggest("kilApp") == "killApp"  # not installApp
    assert suggest("tap") == "tapOn"  # a mobridge step in a Maestro file
    assert suggest("assertVisable") == "assertVisible"
    assert suggest("frobnicate") == ""


def test_label_names_the_step(tmp_path: Path) -> None:
    flow = load(tmp_path, "appId: a.b\n---\n- tapOn: {text: Go, label: Start the game}\n")
    step: Step = flow.steps[0]
    assert step.label == "Start the game" and step.kind == "tapOn"
    assert isinstance(step.action, a.OnElement) and step.action.pick.said == "'Go'"


def test_runflow_files_load_as_flows(tmp_path: Path) -> None:
    (tmp_path / "sub.yaml").write_text("appId: a.b\n---\n- tapOn: A\n")
    flow = load(tmp_path, "appId: a.b\n---\n- runFlow: sub.yaml\n")
    assert isinstance(flow.steps[0].action, RunFlow)
    assert flow.steps[0].action.flow.maestro


def test_recorded_targets_become_escaped_maestro_selectors() -> None:
    from bridge.flows.maestro.export import commands, selector

    assert selector("Total: $9.99 (incl.)") == r"Total: \$9\.99 \(incl\.\)"
    assert selector({"text": "OK", "role": "BUTTON", "within": "Pro plan", "nth": 1}) == {
        "text": "OK",
        "childOf": "Pro plan",
        "index": 1,
    }
    assert commands({"inputText": {"into": {"id": "pw"}, "secret": "secret://db/pw"}}) == [
        {"tapOn": {"id": "pw"}},
        {"inputText": "${DB_PW}"},
    ]
    assert commands({"pressKey": "recents"})[0][0] == "comment"
    text = text_match(selector("Total: $9.99 (incl.)"), ())
    import re2

    assert re2.compile(text.value).search("Total: $9.99 (incl.)")


def test_maestro_leniencies_load_as_maestro_reads_them(tmp_path: Path) -> None:
    """What Maestro's reader accepts loads here too: keys ``inputText`` ignores (named on
    the step), a selector naming no element (refused at its step, not at load), a point
    inside an element, and the newer random-input and appearance commands."""
    flow = load(
        tmp_path,
        "appId: a.b\n---\n- inputText: {id: field, text: hi, redact: true}\n"
        "- assertVisible: {label: 'Read only'}\n- tapOn: {id: body, point: '50%,25%'}\n"
        "- inputRandomCityName\n- setDarkMode: ENABLED\n",
    )
    typing, empty, inside, city, dark = (s.action for s in flow.steps)
    assert isinstance(typing, a.Typing) and typing.ignored == ("id",) and typing.text == "hi"
    assert typing.redact, "said in the report"
    assert isinstance(empty, a.Visible) and empty.pick.unsupported is not None
    assert "names no element" in empty.pick.unsupported
    assert flow.steps[1].label == "Read only"
    assert isinstance(inside, a.OnElement) and inside.relative == (50.0, 25.0, True)
    assert inside.pick.query.resource_id == "body"
    assert isinstance(city, a.Typing) and city.kind == "randomCityName"
    assert isinstance(dark, a.Refuse) and "dark mode" in dark.reason


def test_what_maestro_rejects_says_why_in_one_line(tmp_path: Path) -> None:
    waited = mistakes(
        tmp_path, "appId: a.b\n---\n- tapOn: Go\n- assertVisible: {text: Hi, timeout: 900}\n"
    )
    assert len(waited) == 1 and "use extendedWaitUntil" in waited[0]
    assert waited[0].startswith("flow.yaml:4:")
    shell = mistakes(
        tmp_path, "appId: a.b\n---\n- runScript: |\n    UUID=$(uuidgen)\n    echo $UUID\n", "s.yaml"
    )
    assert len(shell) == 1 and "\n" not in shell[0] and "several lines of code" in shell[0]


def test_a_missing_subflow_loads_and_is_refused_at_its_step_with_a_warning(
    tmp_path: Path,
) -> None:
    """Maestro resolves ``runFlow`` and ``runScript`` files while it parses a flow (relative
    to the including file) and rejects the flow when one is missing. Here the flow loads (a
    repository that leaves out a generated or git-ignored helper is still checked), the loader
    keeps a warning at the step's place, and the step is refused when it runs."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "common.yaml").write_text("appId: a.b\n---\n- back\n")
    ok = load(tmp_path, "appId: a.b\n---\n- runFlow: sub/common.yaml\n")
    assert isinstance(ok.steps[0].action, RunFlow)
    loader = FlowLoader({}, {})
    for name, text in (
        ("f.yaml", "appId: a.b\n---\n- runFlow: ../common.yaml\n"),
        ("g.yaml", "appId: a.b\n---\n- back\n- runScript: setup.js\n"),
        ("h.yaml", "appId: a.b\n---\n- retry:\n    maxRetries: 1\n    file: gone.yaml\n"),
    ):
        (tmp_path / name).write_text(text)
        flow = loader.load(tmp_path / name, name)
        refusals = [s.action for s in flow.steps if isinstance(s.action, a.Refuse)]
        refusals += [
            s.action
            for step in flow.steps
            if isinstance(step.action, Block)
            for s in step.action.steps
            if isinstance(s.action, a.Refuse)
        ]
        assert len(refusals) == 1 and "no such file" in refusals[0].reason, name
    said = [str(w) for w in loader.warnings]
    assert [w.split(":")[0] for w in said] == ["f.yaml", "g.yaml", "h.yaml"]
    assert said[1].startswith("g.yaml:4:") and "runScript setup.js: no such file" in said[1]
    assert all("fails when it runs" in w for w in said)


def test_check_skips_a_config_file_without_commands(tmp_path: Path) -> None:
    """Maestro never takes a file named ``config`` for a flow; one holding only a header
    (appId, env, tags) is configuration, not a failing flow."""
    (tmp_path / "config.yml").write_text("appId: a.b\nenv:\n  X: '1'\ntags: [smoke]\n---\n")
    (tmp_path / "one.yaml").write_text("appId: a.b\n---\n- back\n")
    result = check([str(tmp_path)], {}, {})
    assert [Path(f).name for f, _ in result.files] == ["one.yaml"]
    assert result.loaded == 1


def test_a_file_mixing_both_formats_is_read_as_the_one_with_fewer_mistakes(
    tmp_path: Path,
) -> None:
    """More mobridge-only names than Maestro-only ones no longer decide alone: both readings
    are tried and the one with fewer mistakes is reported."""
    text = (
        "appId: a.b\n---\n- launchApp\n"
        + "- tapOn: Home\n- scroll: {direction: DOWN, duration: 1000}\n- wait: 2000\n" * 2
        + "- wait: 10\n"
    )
    lines = mistakes(tmp_path, text)
    assert any("unknown command 'wait'" in line for line in lines), lines
    assert not any("unknown step 'tapOn'" in line for line in lines)


def test_orientation_names_in_both_spellings(tmp_path: Path) -> None:
    from bridge.flows.compile import SetOrientation

    flow = load(tmp_path, "appId: a.b\n---\n- setOrientation: landscapeLeft\n- tapOn: x\n")
    assert isinstance(flow.steps[0].action, SetOrientation)
    assert flow.steps[0].action.orientation.value == "landscape"
