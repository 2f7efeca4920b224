"""Loading the control-flow constructs: good shapes compile (blocks, guards, hooks, tags,
timeouts, device-level steps), every mistake is refused at load time with file:line:column
and, where a near name exists, "did you mean"; counts and nesting are capped."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.flows.compile import (
    AppManage,
    Block,
    KeyPressed,
    PointGesture,
    Press,
    SwipeAt,
    TypeFocused,
    load_suite,
    select_by_tags,
)
from bridge.flows.errors import FlowErrors
from bridge.wire.enums import ErrorCode, GestureKind, GlobalAction, KeyName

HEADER = "appId: dev.mobridge.demo\n---\n"


def write(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def one_error(path: Path) -> str:
    with pytest.raises(FlowErrors) as caught:
        load_suite([str(path)], {}, {})
    errors = [str(e) for e in caught.value.errors]
    assert len(errors) == 1, errors
    return errors[0]


def test_blocks_guards_hooks_and_device_steps_compile(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "good.yaml",
        "appId: dev.mobridge.demo\ntags: [smoke, nightly]\ntimeout: 2m\n"
        "onFlowStart:\n  - pressKey: home\nonFlowComplete:\n  - pressKey: back\n---\n"
        "- expectRefusal:\n    code: AMBIGUOUS_MATCH\n    commands:\n      - tap: Continue\n"
        "- tap: {text: Maybe later, optional: true}\n"
        "- tap: OK\n  optional: true\n  when: {notVisible: Busy, platform: android}\n"
        "- runFlow:\n    when: {visible: Login, true: '${GO}'}\n    commands:\n      - tap: Login\n"
        "- repeat:\n    times: 3\n    while: {visible: More}\n    commands:\n"
        "      - scroll: {in: {role: LIST}}\n"
        "- retry:\n    maxRetries: 2\n    commands:\n      - assertVisible: {id: password}\n"
        "- tap: {point: '10,20'}\n- doubleTap: '30,40'\n"
        "- longPress: {point: '5,6', holdMs: 900}\n"
        "- swipe: {direction: left, from: '500,600', distance: 200}\n"
        "- pressKey: volume_up\n- pressKey: {key: recents}\n"
        "- inputText: {text: hello, submit: true}\n"
        "- setOrientation: landscape\n- terminateApp: {approve: true}\n"
        "- installApp: {package: demo.apk}\n- uninstallApp: dev.mobridge.other\n",
    )
    (flow,) = load_suite([str(path)], {"GO": "0"}, {})
    assert flow.timeout_s == 120.0 and flow.header.tags == ["smoke", "nightly"]
    assert [s.kind for s in flow.on_start] == ["pressKey"]
    assert [s.kind for s in flow.on_complete] == ["pressKey"]
    refusal, optional, guarded, inline, repeat, retry, *device = flow.steps
    assert isinstance(refusal.action, Block) and refusal.action.refusal is ErrorCode.AMBIGUOUS_MATCH
    assert optional.optional and optional.when is None
    assert guarded.optional and guarded.when is not None and guarded.when.platform == "android"
    assert inline.when is not None and inline.when.truth is False  # GO=0
    assert inline.when.said == "visible 'Login' and true is false"
    assert isinstance(repeat.action, Block) and repeat.action.times == 3
    assert repeat.action.while_ is not None and repeat.action.while_.visible is not None
    assert isinstance(retry.action, Block) and retry.action.max_retries == 2
    actions = [s.action for s in device]
    assert actions[:4] == [
        PointGesture(GestureKind.TAP, 10, 20),
        PointGesture(GestureKind.DOUBLE_TAP, 30, 40),
        PointGesture(GestureKind.LONG_PRESS, 5, 6, 900),
        SwipeAt("left", 500, 600, 200),
    ]
    assert actions[4:7] == [
        KeyPressed(KeyName.VOLUME_UP),
        Press(GlobalAction.RECENTS),
        TypeFocused("hello", None, True),
    ]
    assert actions[8:] == [
        AppManage("terminate", "dev.mobridge.demo", approve=True),
        AppManage("install", "demo.apk"),
        AppManage("uninstall", "dev.mobridge.other"),
    ]
    assert select_by_tags([flow], ["nightly"], []) == [flow]
    assert select_by_tags([flow], [], ["smoke"]) == []
    assert select_by_tags([flow], ["other"], []) == []


@pytest.mark.parametrize(
    ("steps", "where", "words"),
    [
        ("- tap: OK\n  optinal: true\n", "5:3", "did you mean 'optional'?"),
        ("- tap: {text: OK, optinal: true}\n", "4:19", "did you mean 'optional'?"),
        ("- tap: OK\n  when: {visibel: OK}\n", "5:10", "did you mean 'visible'?"),
        ("- repeat:\n    commands: [tap: OK]\n", "5:5", "repeat needs times, while, or both"),
        ("- repeat:\n    times: 1001\n    commands: [tap: OK]\n", "5:12", "<= 1000"),
        ("- retry:\n    maxRetries: 11\n    commands: [tap: OK]\n", "5:17", "<= 10"),
        ("- retry:\n    commands: []\n", "5:15", "retry: commands is empty"),
        ("- retpeat:\n    times: 2\n", "4:3", "did you mean 'repeat'?"),
        (
            "- expectRefusal:\n    code: AMBIGUOUS\n    commands: [tap: OK]\n",
            "5:11",
            "AMBIGUOUS_MATCH",
        ),
        (
            "- tap: {when: {}, text: OK}\n",
            "4:15",
            "when needs visible, notVisible, platform or true",
        ),
        ("- tap: {point: '1,2', text: OK}\n", "4:16", "point (X,Y) is the target"),
        ("- tap: {point: '1;2'}\n", "4:16", "tap.point"),
        ("- tap: {text: OK, holdMs: 5}\n", "4:27", "holdMs goes with point"),
        ("- pressKey: volume_upp\n", "4:13", "volume_up"),
        (
            "- runFlow: {file: x.yaml, commands: [tap: OK]}\n",
            "4:37",
            "a file (with env) or commands",
        ),
        ("- inputText: {text: x, submit: true, into: OK}\n", "4:32", "submit goes with no 'into'"),
        ("- optional: true\n", "4:3", "a step needs its name"),
        ("- tap: OK\n  when: {platform: windows}\n", "5:20", "android, ios"),
    ],
)
def test_mistakes_are_found_at_load_time(
    tmp_path: Path, steps: str, where: str, words: str
) -> None:
    path = write(tmp_path, "bad.yaml", "# a flow\n" + HEADER + steps)
    error = one_error(path)
    assert error.startswith(f"{path}:{where}:"), error
    assert words in error, error


def test_header_mistakes_and_caps(tmp_path: Path) -> None:
    cases = {
        "timeout: 0s": "timeout must be more than 0 and at most 3600 s",
        "timeout: 2h": "timeout",
        "timeout: 4000": "<= 3600",
        "tags: [two words]": "tags[0]",
        "onFlowStart:\n  - tapp: OK": "did you mean 'tap'?",
        "onFlowComplet: []": "did you mean 'onFlowComplete'?",
    }
    for n, (header, words) in enumerate(cases.items()):
        path = write(
            tmp_path, f"h{n}.yaml", f"appId: dev.mobridge.demo\n{header}\n---\n- tap: OK\n"
        )
        error = one_error(path)
        assert error.startswith(f"{path}:"), error
        assert words in error, (header, error)


def test_a_flow_running_itself_and_blocks_nested_too_deep_are_refused(tmp_path: Path) -> None:
    me = write(tmp_path, "me.yaml", HEADER + "- runFlow:\n    file: me.yaml\n")
    assert "runFlow me.yaml: a cycle of flows: me.yaml -> me.yaml" in one_error(me)
    inside = write(
        tmp_path,
        "inside.yaml",
        HEADER + "- repeat:\n    times: 2\n    commands:\n      - runFlow: {file: inside.yaml}\n",
    )
    assert "a cycle of flows: inside.yaml -> inside.yaml" in one_error(inside)
    deep = "- tap: OK\n"
    for _ in range(9):
        deep = "- retry:\n    commands:\n" + "".join(
            f"      {line}\n" for line in deep.splitlines()
        )
    nested = write(tmp_path, "deep.yaml", HEADER + deep)
    assert "blocks nested deeper than 8" in one_error(nested)
