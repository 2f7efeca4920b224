"""Strict decoding: every bad frame becomes a ``DecodeFailure`` with the right protocol error
code, in JSON and in MessagePack, and decoding never raises. The request id is echoed when the
frame is a readable object carrying one."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge.wire.client_protocol import Ping, RequestId
from bridge.wire.codec import (
    AGENT_TO_HUB,
    CLIENT_TO_HUB,
    HUB_TO_AGENT,
    HUB_TO_CLIENT,
    MAX_AGENT_FRAME,
    MAX_CLIENT_FRAME,
    Codec,
    DecodeFailure,
    WireFormat,
    encode,
)
from bridge.wire.enums import ProtocolErrorCode as Code
from tests.strategies import json_values

CODECS: dict[str, Codec[Any]] = {
    "client-to-hub": CLIENT_TO_HUB,
    "hub-to-client": HUB_TO_CLIENT,
    "agent-to-hub": AGENT_TO_HUB,
    "hub-to-agent": HUB_TO_AGENT,
}
FUZZ = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def frame(doc: Any, fmt: WireFormat) -> bytes:
    """``doc`` (builtins) as a frame in ``fmt``."""
    return msgspec.json.encode(doc) if fmt is WireFormat.JSON else msgspec.msgpack.encode(doc)


def failure(codec: Codec[Any], data: bytes | str, fmt: WireFormat) -> DecodeFailure:
    result = codec.decode(data, fmt)
    assert isinstance(result, DecodeFailure), f"decoded {result!r}"
    return result


FIND = {"type": "find", "id": "q1", "device": "emulator-5554", "query": {"role": "BUTTON"}}

# (case id, client -> hub document, expected code, expected echoed id)
CLIENT_CASES: list[tuple[str, Any, Code, RequestId | None]] = [
    ("unknown-type", {"type": "teleport", "id": 5}, Code.UNKNOWN_TYPE, 5),
    ("unknown-type-string-id", {"type": "Find", "id": "a-1"}, Code.UNKNOWN_TYPE, "a-1"),
    ("agent-type-on-client-link", {"type": "tree", "id": 6}, Code.UNKNOWN_TYPE, 6),
    ("missing-type", {"id": 5, "device": "emulator-5554"}, Code.MALFORMED, 5),
    ("missing-type-and-id", {"device": "emulator-5554"}, Code.MALFORMED, None),
    ("wrong-type-of-field", {**FIND, "device": 7}, Code.INVALID_PARAMS, "q1"),
    ("wrong-enum-value", {**FIND, "query": {"role": "BUTTONS"}}, Code.INVALID_PARAMS, "q1"),
    ("pattern-violation", {**FIND, "query": {"nth": -1}}, Code.INVALID_PARAMS, "q1"),
    ("missing-required-field", {"type": "find", "id": 8, "device": "d"}, Code.INVALID_PARAMS, 8),
    ("unknown-field", {"type": "ping", "id": 5, "extra": 1}, Code.INVALID_PARAMS, 5),
    (
        "unknown-nested-field",
        {**FIND, "query": {"role": "BUTTON", "colour": "red"}},
        Code.INVALID_PARAMS,
        "q1",
    ),
    ("empty-query", {**FIND, "query": {}}, Code.INVALID_PARAMS, "q1"),
    (
        "value-and-value-ref",
        {
            "type": "act",
            "id": 9,
            "device": "d",
            "request": {"action": "SET_TEXT", "value": "a", "valueRef": "secret://pw"},
        },
        Code.INVALID_PARAMS,
        9,
    ),
    (
        "bad-secret-ref",
        {
            "type": "act",
            "id": 10,
            "device": "d",
            "request": {"action": "SET_TEXT", "valueRef": "pw"},
        },
        Code.INVALID_PARAMS,
        10,
    ),
    (
        "wait-timeout-over-cap",
        {
            "type": "wait",
            "id": 11,
            "device": "d",
            "condition": {"kind": "stable", "forMs": 1},
            "timeoutMs": 600_001,
        },
        Code.INVALID_PARAMS,
        11,
    ),
    (
        "unknown-condition-kind",
        {"type": "wait", "id": 12, "device": "d", "condition": {"kind": "eventually"}},
        Code.INVALID_PARAMS,
        12,
    ),
    ("id-of-wrong-type", {"type": "ping", "id": 1.5}, Code.INVALID_PARAMS, None),
    ("empty-string-id", {"type": "ping", "id": ""}, Code.INVALID_PARAMS, None),
    ("non-object-string", "hello", Code.MALFORMED, None),
    ("non-object-array", [{"type": "ping", "id": 1}], Code.MALFORMED, None),
    ("non-object-number", 42, Code.MALFORMED, None),
    ("non-object-null", None, Code.MALFORMED, None),
]


@pytest.mark.parametrize("fmt", list(WireFormat), ids=lambda f: f.value)
@pytest.mark.parametrize(
    ("doc", "code", "request_id"),
    [pytest.param(doc, code, rid, id=name) for name, doc, code, rid in CLIENT_CASES],
)
def test_bad_client_frames_fail_with_the_right_code(
    doc: Any, code: Code, request_id: RequestId | None, fmt: WireFormat
) -> None:
    result = failure(CLIENT_TO_HUB, frame(doc, fmt), fmt)
    assert result.code is code, result
    assert result.request_id == request_id
    assert result.message and "\n" not in result.message


@pytest.mark.parametrize("fmt", list(WireFormat), ids=lambda f: f.value)
def test_nested_non_object_field_is_invalid_params_with_id(fmt: WireFormat) -> None:
    doc = {"type": "wait", "id": 7, "device": "d", "condition": {"kind": "not", "condition": 7}}
    result = failure(CLIENT_TO_HUB, frame(doc, fmt), fmt)
    assert (result.code, result.request_id) == (Code.INVALID_PARAMS, 7)


VALID: dict[str, dict[str, Any]] = {
    # a valid message of each direction, so a frame is refused for its syntax alone
    "client-to-hub": {"type": "ping", "id": 1},
    "hub-to-client": {"type": "result", "id": 1, "result": None},
    "agent-to-hub": {"type": "reply", "id": 1, "ok": True},
    "hub-to-agent": {"type": "ping", "id": 1},
}


def _json_breakages(valid: bytes) -> list[bytes]:
    inner = valid[1:-1]
    return [
        b"",
        b"   ",
        valid[:-1],  # truncated
        valid + b"}",  # trailing data
        b"{" + inner + b",}",  # trailing comma
        valid.replace(b'"', b"'"),  # single quotes
        valid.replace(b'"id":1', b'"id":01'),  # leading zero
        valid.replace(b'"id":1', b'"id":NaN'),  # not a JSON number
        b'{"type":"\xff\xfe","id":1}',  # invalid UTF-8
        b"\xef\xbb\xbf" + valid,  # a byte-order mark is not JSON
    ]


def _msgpack_breakages(valid: bytes) -> list[bytes]:
    return [
        b"",
        b"\xc1",  # a byte msgpack never uses
        valid[:-1],  # truncated
        valid + b"\x00",  # trailing data
        b"\xdf\xff\xff\xff\xff",  # map32 announcing 4 billion entries
        b"\x81\xa4type\xd9\x05pi",  # str8 shorter than announced
        b"\x81\xa4type\xa2\xff\xfe",  # invalid UTF-8
    ]


MALFORMED = [
    pytest.param(codec_name, data, fmt, id=f"{codec_name}-{fmt.value}{i}")
    for codec_name, doc in VALID.items()
    for fmt, breakages in [
        (WireFormat.JSON, _json_breakages(msgspec.json.encode(doc))),
        (WireFormat.MSGPACK, _msgpack_breakages(msgspec.msgpack.encode(doc))),
    ]
    for i, data in enumerate(breakages)
]


@pytest.mark.parametrize(("codec_name", "doc"), VALID.items())
def test_the_unbroken_frames_decode(codec_name: str, doc: dict[str, Any]) -> None:
    for fmt in WireFormat:
        assert not isinstance(CODECS[codec_name].decode(frame(doc, fmt), fmt), DecodeFailure)


@pytest.mark.parametrize(("codec_name", "data", "fmt"), MALFORMED)
def test_malformed_frames_are_malformed(codec_name: str, data: bytes, fmt: WireFormat) -> None:
    result = failure(CODECS[codec_name], data, fmt)
    assert result.code is Code.MALFORMED, result
    assert result.request_id is None


@pytest.mark.parametrize("codec_name", list(CODECS))
@pytest.mark.parametrize("fmt", list(WireFormat), ids=lambda f: f.value)
def test_direction_generic_failures(codec_name: str, fmt: WireFormat) -> None:
    codec = CODECS[codec_name]
    unknown = failure(codec, frame({"type": "teleport", "id": 3}, fmt), fmt)
    assert (unknown.code, unknown.request_id) == (Code.UNKNOWN_TYPE, 3)
    untyped = failure(codec, frame({"id": 4}, fmt), fmt)
    assert (untyped.code, untyped.request_id) == (Code.MALFORMED, 4)
    not_object = failure(codec, frame([1, 2, 3], fmt), fmt)
    assert not_object.code is Code.MALFORMED


# ---- size caps ----------------------------------------------------------------------------


def _padded_find(total: int, fmt: WireFormat) -> bytes:
    """A valid find request of exactly ``total`` bytes (padding in ``resourceId``)."""
    base = frame({**FIND, "query": {"resourceId": ""}}, fmt)
    pad = total - len(base)
    data = frame({**FIND, "query": {"resourceId": "x" * pad}}, fmt)
    if len(data) > total:  # a longer msgpack str header: shrink by the difference
        data = frame({**FIND, "query": {"resourceId": "x" * (pad - (len(data) - total))}}, fmt)
    assert len(data) == total
    return data


@pytest.mark.parametrize("fmt", list(WireFormat), ids=lambda f: f.value)
def test_client_frame_at_the_cap_decodes_and_one_byte_more_is_too_large(fmt: WireFormat) -> None:
    at_cap = CLIENT_TO_HUB.decode(_padded_find(MAX_CLIENT_FRAME, fmt), fmt)
    assert not isinstance(at_cap, DecodeFailure), at_cap
    over = failure(CLIENT_TO_HUB, _padded_find(MAX_CLIENT_FRAME + 1, fmt), fmt)
    assert over.code is Code.TOO_LARGE
    assert str(MAX_CLIENT_FRAME) in over.message


@pytest.mark.parametrize(
    ("codec_name", "cap"),
    [
        ("client-to-hub", MAX_CLIENT_FRAME),
        ("hub-to-agent", MAX_CLIENT_FRAME),
        ("hub-to-client", MAX_AGENT_FRAME),
        ("agent-to-hub", MAX_AGENT_FRAME),
    ],
)
def test_each_direction_enforces_its_cap(codec_name: str, cap: int) -> None:
    codec = CODECS[codec_name]
    assert codec.max_frame == cap
    for fmt in WireFormat:
        assert failure(codec, b" " * (cap + 1), fmt).code is Code.TOO_LARGE


def test_cap_counts_bytes_of_text_frames() -> None:
    pad = "é" * (MAX_CLIENT_FRAME - 100)
    text = msgspec.json.encode({**FIND, "query": {"resourceId": pad}}).decode()
    assert len(text.encode()) > MAX_CLIENT_FRAME
    assert failure(CLIENT_TO_HUB, text, WireFormat.JSON).code is Code.TOO_LARGE


def test_text_frames_decode_like_bytes() -> None:
    assert CLIENT_TO_HUB.decode('{"type": "ping", "id": 3}') == Ping(id=3)


# ---- hostile nesting -----------------------------------------------------------------------


def _nested_not(depth: int, fmt: WireFormat) -> bytes:
    if fmt is WireFormat.JSON:
        head = b'{"type":"wait","id":7,"device":"d","condition":'
        body = b'{"kind":"not","condition":' * depth + b'{"kind":"stable","forMs":1}'
        return head + body + b"}" * (depth + 1)
    # msgpack: fixmap(2) {"kind": "not", "condition": ...} repeated
    link = b"\x82" + encode("kind", fmt) + encode("not", fmt) + encode("condition", fmt)
    leaf = encode({"kind": "stable", "forMs": 1}, fmt)
    head = b"\x84" + b"".join(encode(x, fmt) for x in ("type", "wait", "id", 7, "device", "d"))
    return head + encode("condition", fmt) + link * depth + leaf


def _nested_arrays(depth: int, fmt: WireFormat) -> bytes:
    if fmt is WireFormat.JSON:
        return b'{"type":"result","id":7,"result":' + b"[" * depth + b"]" * depth + b"}"
    head = b"\x83" + b"".join(encode(x, fmt) for x in ("type", "result", "id", 7, "result"))
    return head + b"\x91" * (depth - 1) + b"\x90"


@pytest.mark.parametrize("fmt", list(WireFormat), ids=lambda f: f.value)
def test_deeply_nested_conditions_are_refused_without_recursing_to_death(fmt: WireFormat) -> None:
    data = _nested_not(30_000, fmt)
    assert len(data) <= MAX_CLIENT_FRAME
    assert failure(CLIENT_TO_HUB, data, fmt).code is Code.MALFORMED


@pytest.mark.parametrize("fmt", list(WireFormat), ids=lambda f: f.value)
def test_100k_nested_arrays_are_refused(fmt: WireFormat) -> None:
    # In `result: Any` the decoder has no schema to stop it early.
    assert failure(HUB_TO_CLIENT, _nested_arrays(100_000, fmt), fmt).code is Code.MALFORMED
    top = b"[" * 100_000 + b"]" * 100_000 if fmt is WireFormat.JSON else b"\x91" * 99_999 + b"\x90"
    for codec in CODECS.values():
        assert failure(codec, top, fmt).code is Code.MALFORMED


@pytest.mark.parametrize("fmt", list(WireFormat), ids=lambda f: f.value)
def test_moderate_nesting_still_decodes(fmt: WireFormat) -> None:
    decoded = HUB_TO_CLIENT.decode(_nested_arrays(200, fmt), fmt)
    assert not isinstance(decoded, DecodeFailure), decoded


# ---- never raises ----------------------------------------------------------------------------


@pytest.mark.parametrize("codec_name", list(CODECS))
@FUZZ
@given(data=st.binary(max_size=256), fmt=st.sampled_from(WireFormat))
def test_arbitrary_bytes_never_raise(codec_name: str, data: bytes, fmt: WireFormat) -> None:
    result = CODECS[codec_name].decode(data, fmt)
    assert isinstance(result, DecodeFailure | msgspec.Struct)


@pytest.mark.parametrize("codec_name", list(CODECS))
@FUZZ
@given(
    doc=st.dictionaries(
        st.sampled_from(["type", "id", "device", "query", "request", "condition", "tree", "x"]),
        json_values | st.sampled_from(["ping", "find", "act", "wait", "hello", "tree", "reply"]),
        max_size=5,
    ),
    fmt=st.sampled_from(WireFormat),
)
def test_arbitrary_objects_never_raise(
    codec_name: str, doc: dict[str, Any], fmt: WireFormat
) -> None:
    result = CODECS[codec_name].decode(frame(doc, fmt), fmt)
    assert isinstance(result, DecodeFailure | msgspec.Struct)
    if isinstance(result, DecodeFailure) and result.request_id is not None:
        assert result.request_id == doc.get("id")
