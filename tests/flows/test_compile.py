"""Loading flow files: every bad input is refused before anything runs, with the file, the
line and what was expected; good files compile to the hub's wire types."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bridge.flows.compile import (
    Launch,
    NodeAction,
    RunFlow,
    ScrollUntil,
    WaitUntil,
    load_suite,
)
from bridge.flows.errors import FlowErrors
from bridge.wire.conditions import ScreenShown
from bridge.wire.enums import ActionVerb, MatchMode, Role

ROOT = Path(__file__).resolve().parents[2]
HEADER = "appId: dev.mobridge.demo\n---\n"


def write(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def errors_of(paths: list[str], cli: dict[str, str] | None = None) -> list[str]:
    with pytest.raises(FlowErrors) as caught:
        load_suite(paths, cli or {}, {})
    return [str(e) for e in caught.value.errors]


def test_the_examples_compile_to_wire_types() -> None:
    flows = load_suite([str(ROOT / "examples/flows")], {}, {})
    assert [f.path.name for f in flows] == [
        "01_login.yaml",
        "02_list_scroll.yaml",
        "03_ambiguous_tap.yaml",
        "04_ambiguous_within.yaml",
        "05_dialog.yaml",
        "06_calls_login.yaml",
        "07_control_flow.yaml",
    ]
    login = flows[0]
    typed = [s.action for s in login.steps if isinstance(s.action, NodeAction)]
    username, password = typed[1], typed[2]
    assert username.verb is ActionVerb.SET_TEXT and username.value == "demo"  # header env
    assert password.value is None and password.value_ref == "secret://demo_password"
    assert "${DEMO_USER}" in login.steps[2].source  # reports quote the step as written
    scroll = flows[1].steps[2].action
    assert isinstance(scroll, ScrollUntil) and scroll.max_scrolls == 10
    assert scroll.element.text is not None and scroll.element.text.value == "Item 57"
    assert scroll.container is not None and scroll.container.resource_id == "list"
    within = flows[3].steps[1].action
    assert isinstance(within, NodeAction)
    assert within.query.within is not None and within.query.within.text is not None
    assert within.query.within.text.value == "Pro plan"
    called = flows[5].steps[0].action
    assert isinstance(called, RunFlow) and called.flow.path.name == "sign_in.yaml"
    typed_user = called.flow.steps[1].action
    assert isinstance(typed_user, NodeAction) and typed_user.value == "demo"  # runFlow env


def test_steps_take_the_same_query_as_find(tmp_path: Path) -> None:
    write(
        tmp_path,
        "q.yaml",
        HEADER
        + "- tap: {text: 'Sign.*', match: REGEX, role: BUTTON, within: {role: DIALOG}, nth: 1}\n"
        + "- longPress: {label: Menu, firstVisible: true, state: {enabled: true}}\n"
        + "- assertScreen: {name: home, timeoutMs: 2000}\n"
        + "- clearState\n",
    )
    flow = load_suite([str(tmp_path)], {}, {})[0]
    tap = flow.steps[0].action
    assert isinstance(tap, NodeAction)
    q = tap.query
    assert q.role is Role.BUTTON and q.nth == 1
    assert q.text is not None and q.text.match is MatchMode.REGEX
    assert q.within is not None and q.within.role is Role.DIALOG
    press = flow.steps[1].action
    assert isinstance(press, NodeAction) and press.verb is ActionVerb.LONG_CLICK
    assert press.query.first_visible is True and press.query.state is not None
    screen = flow.steps[2].action
    assert isinstance(screen, WaitUntil) and screen.condition == ScreenShown(name="home")
    assert screen.timeout_ms == 2000
    assert flow.steps[3].action == Launch("dev.mobridge.demo", clear_state=True)


def test_an_unknown_step_names_file_line_and_the_closest_step(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.yaml", HEADER + "- tap: Login\n- tapp: Sign in\n")
    (error,) = errors_of([str(path)])
    assert error.startswith(f"{path}:4:3: unknown step 'tapp'; did you mean 'tap'?")


def test_bad_queries_are_refused_at_their_line(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "queries.yaml",
        HEADER
        + "- tap: {role: button}\n"  # line 3: not a role
        + "- tap: {txt: Login}\n"  # line 4: unknown key
        + "- tap: {nth: 2}\n"  # line 5: nothing to find
        + "- tap: {text: '(?=a)', match: REGEX}\n"  # line 6: RE2 refuses lookahead
        + "- tap: {text: Login, nth: -1}\n"  # line 7: out of range
        + "- tap: [Login]\n",  # line 8: wrong type
    )
    found = errors_of([str(path)])
    assert len(found) == 6, found
    role, key, empty, regex, nth, wrong = found
    assert role.startswith(f"{path}:3:")
    assert "invalid enum value 'button'" in role and "BUTTON" in role
    assert key.startswith(f"{path}:4:9: unknown key 'txt' in tap; did you mean 'text'?")
    assert empty.startswith(f"{path}:5:") and "needs text, label, id, role or state" in empty
    assert regex.startswith(f"{path}:6:") and "bad REGEX" in regex
    assert nth.startswith(f"{path}:7:") and "tap.nth" in nth and ">= 0" in nth
    assert wrong.startswith(f"{path}:8:") and "expected `str | object`" in wrong


def test_a_missing_flow_file_is_named_where_it_is_called(tmp_path: Path) -> None:
    path = write(tmp_path, "calls.yaml", HEADER + "- tap: Login\n- runFlow: sub/missing.yaml\n")
    (error,) = errors_of([str(path)])
    assert error.startswith(f"{path}:4:12: ")
    assert "missing.yaml: no such file" in error
    (cli,) = errors_of([str(tmp_path / "nope.yaml")])
    assert cli.startswith(f"{tmp_path / 'nope.yaml'}:1:1: ") and "no such file" in cli


def test_a_cycle_of_flows_is_refused_with_the_chain(tmp_path: Path) -> None:
    a = write(tmp_path, "a.yaml", HEADER + "- runFlow: flows/b.yaml\n")
    write(tmp_path, "flows/b.yaml", HEADER + "- tap: Login\n- runFlow: {file: ../a.yaml}\n")
    (error,) = errors_of([str(a)])
    assert error.startswith(f"{tmp_path / 'flows/b.yaml'}:4:19: ")
    assert "a cycle of flows: a.yaml -> b.yaml -> a.yaml" in error
    self_call = write(tmp_path / "s", "self.yaml", HEADER + "- runFlow: self.yaml\n")
    (own,) = errors_of([str(self_call)])
    assert own.startswith(f"{self_call}:3:12: ") and "self.yaml -> self.yaml" in own


def test_variables_come_from_the_command_line_environment_and_the_flow(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "vars.yaml",
        "appId: dev.mobridge.demo\nenv: {WHO: header, ONLY_HEADER: h}\n---\n"
        + "- tap: ${WHO}\n- tap: ${ONLY_HEADER}\n- tap: 'costs $${PRICE}'\n- tap: ${NOPE}\n",
    )
    (error,) = errors_of([str(path)], {"WHO": "cli"})
    assert error.startswith(f"{path}:7:8: unknown variable ${{NOPE}}: give it with --env NOPE=")
    path.write_text(path.read_text().replace("- tap: ${NOPE}\n", ""))
    flow = load_suite([str(path)], {"WHO": "cli"}, {"WHO": "environment"})[0]
    texts = [s.action.query.text.value for s in flow.steps]  # type: ignore[union-attr]
    assert texts == ["cli", "h", "costs ${PRICE}"]
    flow = load_suite([str(path)], {}, {"WHO": "environment"})[0]
    assert flow.steps[0].action.query.text.value == "environment"  # type: ignore[union-attr]


def test_layout_and_yaml_mistakes_have_lines(tmp_path: Path) -> None:
    cases = {
        "no_header.yaml": ("- tap: Login\n", 1, "the header is missing"),
        "no_app.yaml": ("name: x\n---\n- tap: Login\n", 1, "missing 'appId'"),
        "header_key.yaml": ("appId: a\nretries: 3\n---\n- tap: a\n", 2, "unknown key 'retries'"),
        "two_keys.yaml": (HEADER + "- tap: Login\n  nth: 1\n", 4, "exactly one key"),
        "dup.yaml": (HEADER + "- tap: {text: a, text: b}\n", 3, "duplicate key 'text'"),
        "syntax.yaml": (HEADER + "- tap: [unclosed\n", 4, "not valid YAML"),
        "bare.yaml": (HEADER + "- tap\n", 3, "step 'tap' needs a value"),
        "input.yaml": (HEADER + "- inputText: {into: a, text: b, secret: 'secret://c'}\n", 3, ""),
        "tag.yaml": (HEADER + "- tap: !!python/name:os.system x\n", 3, "unsupported YAML tag"),
    }
    for name, (text, line, words) in cases.items():
        path = write(tmp_path / name.removesuffix(".yaml"), name, text)
        (error,) = errors_of([str(path)])
        assert error.startswith(f"{path}:{line}:"), (name, error)
        assert words in error, (name, error)


def test_every_mistake_of_a_suite_is_reported_at_once(tmp_path: Path) -> None:
    write(tmp_path, "a.yaml", HEADER + "- tapp: x\n- tap: ok\n- swipe: sideways\n")
    write(tmp_path, "b.yaml", HEADER + "- assertState: {element: x}\n")
    write(tmp_path, "README.md", "not a flow, skipped\n")
    write(tmp_path, "notes.txt", "not a flow either\n")
    found = errors_of([str(tmp_path)])
    assert len(found) == 1 and "notes.txt:1:1: not a flow file" in found[0]
    os.remove(tmp_path / "notes.txt")
    found = errors_of([str(tmp_path)])
    assert [e.split(": ", 1)[0] for e in found] == [
        f"{tmp_path / 'a.yaml'}:3:3",
        f"{tmp_path / 'a.yaml'}:5:10",
        f"{tmp_path / 'b.yaml'}:3:16",
    ]
    assert "one of: down, left, right, up" in found[1]
    assert "needs a state" in found[2]


def test_hostile_files_stop_at_the_caps(tmp_path: Path) -> None:
    laughs = "appId: a\n---\n- tap: &a [x, x, x, x, x, x, x, x, x, x]\n"
    for n in range(1, 8):
        previous, anchor = chr(96 + n), chr(97 + n)
        laughs += f"- tap: &{anchor} [{', '.join(['*' + previous] * 10)}]\n"
    path = write(tmp_path, "laughs.yaml", laughs)
    found = errors_of([str(path)])
    assert any("more than 100000 values" in e for e in found), found
    deep = write(tmp_path / "d", "deep.yaml", HEADER + "- tap: " + "[" * 200 + "]" * 200 + "\n")
    (error,) = errors_of([str(deep)])
    assert "nested deeper than 64" in error or "not valid YAML" in error
    big = write(tmp_path / "big", "big.yaml", HEADER + "#" * (1 << 20) + "\n")
    (error,) = errors_of([str(big)])
    assert "a flow file may have 1048576" in error
