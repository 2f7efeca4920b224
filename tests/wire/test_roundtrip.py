"""Round-trip identity: for every wire type, decode(encode(x)) == x in JSON and MessagePack.

Union members go through the direction's real codec (``CLIENT_TO_HUB`` ...), so the tag and the
strict decoder are exercised; reference types, results and ``RawTree`` are decoded as their own
type. ``ResultMessage.result`` is ``Any`` on the wire: its body is a result Struct turned into
builtins, and must convert back to the same Struct.
"""

from __future__ import annotations

from typing import Any, get_args

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge.wire.action import ActionRequest, ActionResult
from bridge.wire.agent_link import AgentToHub, HubToAgent
from bridge.wire.client_protocol import (
    RESULT_TYPES,
    ClientToHub,
    HubToClient,
    RequestId,
    ResultMessage,
)
from bridge.wire.codec import (
    AGENT_TO_HUB,
    CLIENT_TO_HUB,
    HUB_TO_AGENT,
    HUB_TO_CLIENT,
    Codec,
    DecodeFailure,
    WireFormat,
    convert,
    encode,
)
from bridge.wire.conditions import Condition
from bridge.wire.diff import ScreenDiff
from bridge.wire.errors import ErrorEnvelope
from bridge.wire.node import SemanticNode
from bridge.wire.noderef import NodeRef
from bridge.wire.query import SemanticQuery
from bridge.wire.raw import RawTree
from bridge.wire.snapshot import ScreenSnapshot
from tests.strategies import as_builtins, result_message_for, strategy_for

ROUNDTRIP = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])

UNIONS: list[tuple[Any, Codec[Any]]] = [
    (ClientToHub, CLIENT_TO_HUB),
    (HubToClient, HUB_TO_CLIENT),
    (AgentToHub, AGENT_TO_HUB),
    (HubToAgent, HUB_TO_AGENT),
]
MEMBERS = [
    pytest.param(member, codec, id=f"{codec_name}-{member.__name__}")
    for (union, codec), codec_name in zip(
        UNIONS, ["client-to-hub", "hub-to-client", "agent-to-hub", "hub-to-agent"], strict=True
    )
    for member in get_args(union)
    if member is not ResultMessage  # its `result: Any` is covered per request type below
]
REFERENCE_TYPES = [
    SemanticNode,
    ScreenSnapshot,
    ScreenDiff,
    NodeRef,
    SemanticQuery,
    ActionRequest,
    ActionResult,
    ErrorEnvelope,
]
STANDALONE = [
    *REFERENCE_TYPES,
    RawTree,
    Condition,
    *dict.fromkeys(RESULT_TYPES.values()),
]


def _decode_as(kind: Any, data: bytes, fmt: WireFormat) -> Any:
    if fmt is WireFormat.JSON:
        return msgspec.json.decode(data, type=kind, strict=True)
    return msgspec.msgpack.decode(data, type=kind, strict=True)


@pytest.mark.parametrize(("member", "codec"), MEMBERS)
@ROUNDTRIP
@given(data=st.data())
def test_every_union_member_roundtrips_through_its_codec(
    member: type[Any], codec: Codec[Any], data: st.DataObject
) -> None:
    message = data.draw(strategy_for(member))
    for fmt in WireFormat:
        decoded = codec.decode(encode(message, fmt), fmt)
        assert not isinstance(decoded, DecodeFailure), decoded
        assert type(decoded) is member
        assert decoded == message


@pytest.mark.parametrize("kind", STANDALONE, ids=lambda t: getattr(t, "__name__", "Condition"))
@ROUNDTRIP
@given(data=st.data())
def test_every_reference_result_and_raw_type_roundtrips(kind: Any, data: st.DataObject) -> None:
    value = data.draw(strategy_for(kind))
    for fmt in WireFormat:
        assert _decode_as(kind, encode(value, fmt), fmt) == value


@pytest.mark.parametrize("request_type", sorted(RESULT_TYPES))
@ROUNDTRIP
@given(data=st.data())
def test_result_messages_roundtrip_and_convert_back(request_type: str, data: st.DataObject) -> None:
    body = data.draw(strategy_for(RESULT_TYPES[request_type]))
    message = ResultMessage(id=data.draw(strategy_for(RequestId)), result=as_builtins(body))
    for fmt in WireFormat:
        decoded = HUB_TO_CLIENT.decode(encode(message, fmt), fmt)
        assert isinstance(decoded, ResultMessage)
        assert decoded == message
        assert convert(decoded.result, RESULT_TYPES[request_type]) == body


@ROUNDTRIP
@given(message=result_message_for("find"))
def test_result_message_strategy_yields_convertible_bodies(message: ResultMessage) -> None:
    assert isinstance(convert(message.result, RESULT_TYPES["find"]), RESULT_TYPES["find"])


@ROUNDTRIP
@given(data=st.data())
def test_encoding_is_deterministic(data: st.DataObject) -> None:
    # Encode-once fan-out relies on equal values giving equal bytes.
    snapshot = data.draw(strategy_for(ScreenSnapshot))
    copy = msgspec.json.decode(encode(snapshot), type=ScreenSnapshot)
    for fmt in WireFormat:
        assert encode(snapshot, fmt) == encode(copy, fmt)


def test_every_union_member_is_covered() -> None:
    covered = {p.values[0] for p in MEMBERS} | {ResultMessage}
    assert covered == {m for union, _ in UNIONS for m in get_args(union)}
