"""Codecs, built once per direction and format.

Decoding is strict and never raises to the caller: ``decode`` returns either the typed
message or a ``DecodeFailure`` naming the protocol error code, a one-line reason and, when it
could be read, the request id — so the hub can answer with a ``protocol_error`` and keep the
connection. Encoders are shared; encode once and send the same bytes to every subscriber.

Nesting: msgspec guards every nested array/object/map with the interpreter's recursion check,
so a frame nested deeper than about ``sys.getrecursionlimit()`` levels raises ``RecursionError``
inside msgspec; every decode here turns that into ``MALFORMED`` ("nested too deeply"), including
the cheap id/type probes used to classify a failure. Typed messages are much shallower than
that limit; raw trees are flat (parent indexes), and the hub caps their depth and size
(``bridge.core.raw_limits``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import msgspec

from bridge.wire.agent_link import AgentToHub, HubToAgent
from bridge.wire.client_protocol import ClientToHub, HubToClient, RequestId
from bridge.wire.enums import ProtocolErrorCode, WireEnum

T = TypeVar("T")

MAX_CLIENT_FRAME = 1 << 20
"""Largest client -> hub frame accepted (1 MiB)."""
MAX_AGENT_FRAME = 32 << 20
"""Largest agent -> hub frame accepted (32 MiB: a screenshot or a huge tree)."""


class WireFormat(WireEnum):
    JSON = "json"
    MSGPACK = "msgpack"


@dataclass(frozen=True, slots=True)
class DecodeFailure:
    code: ProtocolErrorCode
    message: str
    request_id: RequestId | None = None


class _IdOnly(msgspec.Struct):
    id: RequestId | None = None


class _TypeOnly(msgspec.Struct):
    type: str | None = None


_id_json = msgspec.json.Decoder(_IdOnly)
_id_msgpack = msgspec.msgpack.Decoder(_IdOnly)
_type_json = msgspec.json.Decoder(_TypeOnly)
_type_msgpack = msgspec.msgpack.Decoder(_TypeOnly)


def _enc_hook(obj: Any) -> Any:
    raise NotImplementedError(f"cannot encode {type(obj).__name__}")


JSON_ENCODER = msgspec.json.Encoder(enc_hook=_enc_hook)
MSGPACK_ENCODER = msgspec.msgpack.Encoder(enc_hook=_enc_hook)


def encode(message: Any, fmt: WireFormat = WireFormat.JSON) -> bytes:
    """Encode any wire value; the same input always gives the same bytes."""
    if fmt is WireFormat.JSON:
        return JSON_ENCODER.encode(message)
    return MSGPACK_ENCODER.encode(message)


class Codec(Generic[T]):
    """Strict decoder of one union type in both formats, with a frame size cap."""

    def __init__(self, kind: Any, max_frame: int) -> None:
        self._kind = kind
        self._decoders: tuple[msgspec.json.Decoder[T], msgspec.msgpack.Decoder[T]] | None = None
        self.max_frame = max_frame

    @property
    def _json(self) -> msgspec.json.Decoder[T]:
        return self._built()[0]

    @property
    def _msgpack(self) -> msgspec.msgpack.Decoder[T]:
        return self._built()[1]

    def _built(self) -> tuple[msgspec.json.Decoder[T], msgspec.msgpack.Decoder[T]]:
        """The decoders, built on first use: a process uses one or two of the four codecs
        (a client never decodes agent frames), and building one walks its whole union."""
        if self._decoders is None:
            self._decoders = (msgspec.json.Decoder(self._kind), msgspec.msgpack.Decoder(self._kind))
        return self._decoders

    def decode(self, data: bytes | str, fmt: WireFormat = WireFormat.JSON) -> T | DecodeFailure:
        if isinstance(data, str):  # websocket text frame
            data = data.encode("utf-8", "surrogatepass")
        if len(data) > self.max_frame:
            return DecodeFailure(
                ProtocolErrorCode.TOO_LARGE,
                f"frame of {len(data)} bytes exceeds the {self.max_frame}-byte cap",
            )
        try:
            if fmt is WireFormat.JSON:
                return self._json.decode(data)
            return self._msgpack.decode(data)
        except RecursionError:
            return DecodeFailure(ProtocolErrorCode.MALFORMED, f"{fmt.value} nested too deeply")
        except msgspec.ValidationError as exc:
            return _classify(str(exc), data, fmt)
        except msgspec.DecodeError as exc:
            return DecodeFailure(ProtocolErrorCode.MALFORMED, f"malformed {fmt.value}: {exc}")
        except (ValueError, TypeError, MemoryError) as exc:  # defensive: hostile input
            return DecodeFailure(ProtocolErrorCode.MALFORMED, f"malformed {fmt.value}: {exc}")


def read_request_id(data: bytes | str, fmt: WireFormat) -> RequestId | None:
    """The ``id`` of a frame when it can be read cheaply, without validating the rest."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    if len(data) > MAX_CLIENT_FRAME:
        return None
    try:
        if fmt is WireFormat.JSON:
            return _id_json.decode(data).id
        return _id_msgpack.decode(data).id
    except (msgspec.DecodeError, ValueError, TypeError, RecursionError):
        return None


def _classify(reason: str, data: bytes, fmt: WireFormat) -> DecodeFailure:
    request_id: RequestId | None = None
    tag: str | None = None
    try:
        if fmt is WireFormat.JSON:
            request_id = _id_json.decode(data).id
            tag = _type_json.decode(data).type
        else:
            request_id = _id_msgpack.decode(data).id
            tag = _type_msgpack.decode(data).type
    except RecursionError:
        return DecodeFailure(ProtocolErrorCode.MALFORMED, f"{fmt.value} nested too deeply")
    except (msgspec.DecodeError, ValueError, TypeError, MemoryError):
        pass
    if "Invalid value" in reason and "$.type" in reason:
        what = f"unknown message type {tag!r}" if tag is not None else "unknown message type"
        return DecodeFailure(ProtocolErrorCode.UNKNOWN_TYPE, what, request_id)
    if "missing required field `type`" in reason:
        return DecodeFailure(ProtocolErrorCode.MALFORMED, "message has no `type`", request_id)
    if reason.startswith("Expected `object`") and " - at `$" not in reason:
        return DecodeFailure(ProtocolErrorCode.MALFORMED, "a message must be an object", None)
    return DecodeFailure(ProtocolErrorCode.INVALID_PARAMS, reason, request_id)


CLIENT_TO_HUB: Codec[ClientToHub] = Codec(ClientToHub, MAX_CLIENT_FRAME)
HUB_TO_CLIENT: Codec[HubToClient] = Codec(HubToClient, MAX_AGENT_FRAME)
AGENT_TO_HUB: Codec[AgentToHub] = Codec(AgentToHub, MAX_AGENT_FRAME)
HUB_TO_AGENT: Codec[HubToAgent] = Codec(HubToAgent, MAX_CLIENT_FRAME)


def convert(value: Any, kind: type[T]) -> T:
    """Typed view of a builtin value (e.g. a ``result`` body decoded as ``Any``).

    Raises ``msgspec.ValidationError`` when it does not fit ``kind``.
    """
    return msgspec.convert(value, kind, strict=False)
