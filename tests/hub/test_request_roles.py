"""The role table (issue 33): docs/design.md's "Roles: who may send what" is the code's table
(``bridge.hub.request_roles``) row for row and covers every client request; an observer
token sending each request type (the protocol's own fixtures) is refused FORBIDDEN exactly
for the controller rows, whatever kind it declares; a veto needs a controller token and its
refusal names who vetoed."""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path
from typing import Any

import anyio
import pytest

from bridge.hub.request_roles import required_role
from bridge.wire.client_protocol import ClientToHub
from tests.adversarial.harness import call, client
from tests.hub.hubfixture import OBSERVER, running_hub

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "protocol" / "fixtures" / "client-to-hub"
ROW = re.compile(r"^\| `([a-z_.]+)` \| (observer|controller) \|")


def request_types() -> list[str]:
    def members(union: Any) -> list[Any]:
        found: list[Any] = []
        for arg in typing.get_args(union):
            found.extend(members(arg) if typing.get_args(arg) else [arg])
        return found

    return [m.__struct_config__.tag for m in members(ClientToHub)]


def documented() -> dict[str, str]:
    text = (ROOT / "docs" / "design.md").read_text()
    section = text.split("## Roles: who may send what", 1)[1].split("\n## ", 1)[0]
    return {m[1]: m[2] for line in section.splitlines() if (m := ROW.match(line))}


def test_the_documented_table_is_the_codes_and_covers_every_request() -> None:
    table = documented()
    types = request_types()
    assert sorted(table) == sorted(types), "docs/design.md's role table is not the protocol's"
    assert {t: required_role(t) for t in types} == table
    assert table["veto"] == table["lease.release"] == table["act"] == "controller"


def fixtures() -> dict[str, dict[str, Any]]:
    """One example of each request type (the first fixture of its name)."""
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(FIXTURES.glob("*.json")):
        message = json.loads(path.read_text())
        found.setdefault(message["type"], message)
    return found


async def test_an_observer_token_is_refused_every_controller_request() -> None:
    examples = fixtures()
    assert set(request_types()) <= set(examples), "a request type has no protocol fixture"
    async with (
        running_hub(sim_scene="login") as rh,
        client(rh.url, OBSERVER, name="alice", kind="person") as ws,
    ):
        for n, (kind, example) in enumerate(sorted(examples.items()), start=100):
            if kind == "hello":
                continue
            message = dict(example, id=n)
            if "device" in message:
                message["device"] = rh.device_id
            if kind == "wait":
                message["timeoutMs"] = 200
            with anyio.fail_after(30):
                reply = await call(ws, message, timeout_s=30)
            forbidden = reply.get("type") == "protocol_error" and reply["code"] == "FORBIDDEN"
            if required_role(kind) == "controller":
                assert forbidden, f"{kind}: {reply}"
                assert "needs a controller token" in reply["message"], reply
            else:
                assert not forbidden, f"{kind} refused to an observer: {reply}"
