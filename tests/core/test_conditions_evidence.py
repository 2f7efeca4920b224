"""What a condition's evidence tells the caller (bridge/core/conditions.py): the count a
``value`` or ``state`` query found (it needs exactly one), the field a value was read from,
a password field's value never being observed, and each state field compared."""

from __future__ import annotations

import msgspec

from bridge.core.conditions import (
    MET,
    NOT_MET,
    UNKNOWN,
    ConditionOutcome,
    ConditionRejected,
    evaluate,
)
from bridge.wire.action import Evidence
from bridge.wire.conditions import Condition, StateIs, ValueEquals
from bridge.wire.enums import Role
from bridge.wire.node import NodeState
from bridge.wire.query import QueryState, SemanticQuery, TextMatch
from tests.core.test_verification import SCREEN, change, node, obs


def _eval(cond: Condition, nodes: tuple = SCREEN, target: str | None = None) -> ConditionOutcome:  # type: ignore[type-arg]
    out = evaluate(cond, obs(nodes, "s_9").view(target))
    assert isinstance(out, ConditionOutcome), out
    return out


def _q(text: str) -> SemanticQuery:
    return SemanticQuery(label=TextMatch(value=text))


def _described(query: SemanticQuery) -> str:
    return msgspec.json.encode(query).decode()


def test_a_value_read_names_its_field_node_and_both_values() -> None:
    out = _eval(ValueEquals(query=_q("Name"), equals="Ann"))
    assert out.result is MET
    assert out.evidence == (
        Evidence(what="value", snapshot_id="s_9", node_id="n3", observed="Ann", expected="Ann"),
    )
    texted = (*SCREEN, node("n8", "n1", label="Status", text="Ready"))
    out = _eval(ValueEquals(query=_q("Status"), equals="Busy"), texted)
    assert out.result is NOT_MET
    assert out.evidence == (
        Evidence(what="text", snapshot_id="s_9", node_id="n8", observed="Ready", expected="Busy"),
    )


def test_a_value_query_that_finds_none_or_several_says_how_many_it_found() -> None:
    query = _q("Nowhere")
    none = _eval(ValueEquals(query=query, equals="x"))
    assert none.result is NOT_MET
    assert none.evidence == (
        Evidence(
            what=f"value matches {_described(query)}", snapshot_id="s_9",
            observed=0, expected="exactly 1",
        ),
    )  # fmt: skip
    twice = (*SCREEN, node("n8", "n1", role=Role.INPUT, label="Name", value="Bob"))
    several = _eval(ValueEquals(query=_q("Name"), equals="Ann"), twice)
    assert several.result is UNKNOWN
    assert several.evidence[0].observed == 2 and several.evidence[0].node_id is None
    assert several.evidence[0].expected == "exactly 1"


def test_a_value_on_the_target_and_a_target_that_went() -> None:
    out = _eval(ValueEquals(equals="Ann"), target="n3")
    assert out.result is MET and out.evidence[0].node_id == "n3"
    gone = _eval(ValueEquals(equals="Ann"), target="n77")
    assert gone.result is UNKNOWN
    assert gone.evidence == (
        Evidence(what="value of the target: gone", snapshot_id="s_9", node_id="n77"),
    )
    refused = evaluate(ValueEquals(equals="Ann"), obs(SCREEN).view(None))
    assert refused == ConditionRejected("a value condition without a query needs an acted target")


def test_a_password_fields_value_is_never_observed() -> None:
    secret = change(SCREEN, "n3", state=NodeState(password=True), value="hunter2")
    out = _eval(ValueEquals(query=_q("Name"), equals="hunter2"), secret)
    assert out.result is UNKNOWN
    assert out.evidence == (
        Evidence(
            what="value of a password field (never observed)", snapshot_id="s_9", node_id="n3"
        ),
    )


def test_a_state_condition_compares_each_given_field_on_its_one_node() -> None:
    out = _eval(StateIs(query=_q("Wi-Fi"), state=QueryState(checked=False, enabled=True)))
    assert out.result is MET
    assert out.evidence == (
        Evidence("state.enabled", snapshot_id="s_9", node_id="n2", observed=True, expected=True),
        Evidence("state.checked", snapshot_id="s_9", node_id="n2", observed=False, expected=False),
    )
    off = _eval(StateIs(query=_q("Wi-Fi"), state=QueryState(checked=True, enabled=True)))
    assert off.result is NOT_MET


def test_a_state_query_that_finds_none_or_several_says_how_many() -> None:
    query = _q("Bluetooth")
    none = _eval(StateIs(query=query, state=QueryState(checked=True)))
    assert none.result is NOT_MET
    assert none.evidence == (
        Evidence(
            what=f"state matches {_described(query)}", snapshot_id="s_9",
            observed=0, expected="exactly 1",
        ),
    )  # fmt: skip
    twice = (*SCREEN, node("n8", "n1", role=Role.SWITCH, label="Wi-Fi"))
    several = _eval(StateIs(query=_q("Wi-Fi"), state=QueryState(checked=True)), twice)
    assert several.result is UNKNOWN and several.evidence[0].observed == 2
