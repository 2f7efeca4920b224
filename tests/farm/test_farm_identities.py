"""Per-hub NATS identities (``mobridge farm init``) against a real nats-server: each hub's
user may use only its own subjects; NATS itself refuses the rest."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
import msgspec
import nats
import pytest
from nats.aio.msg import Msg

from bridge.client import ProtocolFailure, build_query, connect
from bridge.farm.identities import load_credentials
from bridge.wire.client_protocol import Ping
from bridge.wire.enums import ActionVerb, ProtocolErrorCode
from bridge.wire.farm import FarmOrigin, FarmReply, Forward, Refused
from tests.farm.farmfixture import (
    HUB_TOKEN,
    ROOT,
    TOKEN,
    FarmHub,
    NatsServer,
    free_port,
    need_nats,
)
from tests.farm.test_farm_e2e import farm_listed

pytestmark = [pytest.mark.anyio, need_nats]


def farm_init(tmp_path: Path, port: int, hubs: str = "A,B") -> Path:
    out = tmp_path / "farm"
    done = subprocess.run(
        [sys.executable, "-m", "bridge.cli", "farm", "init", "--hubs", hubs, "--out", str(out),
         "--url", f"nats://127.0.0.1:{port}"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (out / "nats-server.conf").stat().st_mode & 0o777 == 0o600
    return out


def test_farm_init_refuses_bad_hub_names(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bridge.cli", "farm", "init", "--hubs", "a,b.c",
         "--out", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "b.c" in done.stderr


async def test_a_hub_cannot_use_another_hubs_subjects(tmp_path: Path) -> None:
    port = free_port()
    out = farm_init(tmp_path, port)
    server = NatsServer(tmp_path, port=port, config=out / "nats-server.conf")
    server.start()
    errors: list[str] = []

    async def on_error(exc: Exception) -> None:
        errors.append(str(exc))

    try:
        a = load_credentials(out / "A.creds.json")
        b = load_credentials(out / "B.creds.json")
        nc_a = await nats.connect(
            server.url, user=a.user, password=a.password, error_cb=on_error,
            inbox_prefix="_INBOX.A", allow_reconnect=False,
        )  # fmt: skip
        b_errors: list[str] = []

        async def on_b_error(exc: Exception) -> None:
            b_errors.append(str(exc))

        nc_b = await nats.connect(
            server.url, user=b.user, password=b.password, inbox_prefix="_INBOX.B",
            error_cb=on_b_error,
        )  # fmt: skip
        try:
            seen_by_b: list[str] = []

            async def b_sees(msg: Msg) -> None:
                seen_by_b.append(msg.subject)

            await nc_b.subscribe("mobridge.farm.announce.*", cb=b_sees)
            await nc_b.subscribe("_INBOX.B.>", cb=b_sees)
            await nc_b.flush()
            # A may not receive B's requests nor read B's replies
            await nc_a.subscribe("mobridge.farm.req.B.*")
            await nc_a.subscribe("_INBOX.B.>")
            # A may not forge B's announcement nor a reply into B's inbox
            await nc_a.publish("mobridge.farm.announce.B", b"forged")
            await nc_a.publish("_INBOX.B.x.y", b"forged")
            # but A's own announcement passes
            await nc_a.publish("mobridge.farm.announce.A", b"mine")
            await nc_a.flush()
            with anyio.move_on_after(10):
                while len(errors) < 4 or not seen_by_b:
                    await anyio.sleep(0.2)
                    if not seen_by_b:  # allowed: repeated until B has it (a loaded machine)
                        await nc_a.publish("mobridge.farm.announce.A", b"mine")
            await anyio.sleep(0.3)
            assert len(errors) >= 4 and seen_by_b, (errors, seen_by_b, b_errors, nc_b.is_connected)
            text = "\n".join(errors).lower()  # nats-py lowercases the server's -ERR
            assert 'permissions violation for subscription to "mobridge.farm.req.b.*"' in text
            assert 'permissions violation for subscription to "_inbox.b.>"' in text
            assert 'permissions violation for publish to "mobridge.farm.announce.b"' in text
            assert 'permissions violation for publish to "_inbox.b.x.y"' in text
            assert set(seen_by_b) == {"mobridge.farm.announce.A"}
        finally:
            await nc_a.close()
            await nc_b.close()
    finally:
        server.stop()


async def test_hubs_with_their_own_credentials_form_the_farm(tmp_path: Path) -> None:
    port = free_port()
    out = farm_init(tmp_path, port)
    server = NatsServer(tmp_path, port=port, config=out / "nats-server.conf")
    server.start()
    hubs = [
        FarmHub(n, f"sim-{n.lower()}", server.url, tmp_path,
                extra=("--farm-credentials", str(out / f"{n}.creds.json")))
        for n in ("A", "B")
    ]  # fmt: skip
    try:
        for hub in hubs:
            hub.start()
        await farm_listed(hubs[0], {"sim-b"})
        await farm_listed(hubs[1], {"sim-a"})
        username = build_query(resource_id="username")
        # a hub-only token: its own hub's devices, nothing of B's
        async with connect(hubs[0].url, token=HUB_TOKEN, name="hub-only") as client:
            assert {d.id for d in await client.devices()} == {"sim-a"}
            with pytest.raises(ProtocolFailure) as refused:
                await client.device("sim-b").act_on(username, ActionVerb.SET_TEXT, value="x")
            assert refused.value.code is ProtocolErrorCode.FORBIDDEN
            assert "only hub A's devices" in refused.value.message
            await client.device("sim-a").act_on(username, ActionVerb.SET_TEXT, value="mine")
        # the farm token acts on B's device through A (replies pass NATS's permissions)
        async with connect(hubs[0].url, token=TOKEN, name="farm-wide") as client:
            await client.device("sim-b").act_on(username, ActionVerb.SET_TEXT, value="farm")
        # B re-checks the scope: a forward from A's identity without it is refused there
        a = load_credentials(out / "A.creds.json")
        nc = await nats.connect(
            server.url, user=a.user, password=a.password, inbox_prefix="_INBOX.A"
        )
        try:
            origin = FarmOrigin(
                hub="A", run="r1", session="s1", client="forger", role="controller",
                principal="p", scope="hub",
            )  # fmt: skip
            data = msgspec.msgpack.encode(Forward(origin=origin, request=Ping(id=1)))
            answer = await nc.request("mobridge.farm.req.B.A", data, timeout=10)
            reply = msgspec.msgpack.decode(answer.data, type=FarmReply)
            assert isinstance(reply, Refused)
            assert reply.message.code is ProtocolErrorCode.FORBIDDEN  # type: ignore[union-attr]
        finally:
            await nc.close()
        password = json.loads((out / "A.creds.json").read_text())["password"]
        assert password not in hubs[0].log_text()
        assert "Permissions Violation" not in hubs[0].log_text() + hubs[1].log_text()
    finally:
        for hub in hubs:
            hub.stop()
        server.stop()
