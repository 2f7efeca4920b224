"""Issue 33.7: farm messages are authenticated end to end. Against a real nats-server with
``farm init`` identities for hubs A, B and C: a client of C holds the lease on B's device;
an attacker holding A's stolen credentials file reads the holder's session id and tries to
act and to release the lease as C. NATS lets A publish requests only as A (the subject's
last token), and B believes the subject, not the payload: every forged origin is refused.
As A itself, a forward needs a proof of a farm token (``bridge.farm.proof``) that the file
does not hold: refused too, made-up proofs included. The lease stays with its holder and the
device never went HOME; the holder's own forwards (signed by C) still work."""

from __future__ import annotations

from pathlib import Path

import anyio
import msgspec
import nats
import pytest

from bridge.client import connect
from bridge.farm.identities import load_credentials
from bridge.wire.client_protocol import Global, LeaseRelease
from bridge.wire.enums import GlobalAction, ProtocolErrorCode
from bridge.wire.farm import (
    FarmOrigin,
    FarmReply,
    Forward,
    Refused,
    SessionsClosed,
)
from tests.farm.farmfixture import TOKEN, FarmHub, NatsServer, free_port, need_nats
from tests.farm.test_farm_e2e import farm_listed
from tests.farm.test_farm_identities import farm_init

pytestmark = [pytest.mark.anyio, need_nats]


async def ask(nc: nats.NATS, subject: str, message: object) -> FarmReply:
    answer = await nc.request(subject, msgspec.msgpack.encode(message), timeout=10)
    return msgspec.msgpack.decode(answer.data, type=FarmReply)


async def test_a_stolen_credentials_file_cannot_speak_for_another_hub(tmp_path: Path) -> None:
    port = free_port()
    out = farm_init(tmp_path, port, "A,B,C")
    server = NatsServer(tmp_path, port=port, config=out / "nats-server.conf")
    server.start()
    b, c = (
        FarmHub(n, f"sim-{n.lower()}", server.url, tmp_path,
                extra=("--farm-credentials", str(out / f"{n}.creds.json")))
        for n in ("B", "C")
    )  # fmt: skip
    violations: list[str] = []

    async def on_error(exc: Exception) -> None:
        violations.append(str(exc).lower())

    try:
        b.start()
        c.start()
        await farm_listed(c, {"sim-b"})
        async with connect(c.url, token=TOKEN, name="holder") as holder:
            await holder.device("sim-b").acquire_lease()
            listed = await farm_listed(b, {"sim-b"})
            lease = listed["sim-b"].lease  # type: ignore[attr-defined]
            assert lease is not None and len(lease.holders) == 1
            stolen_id = lease.holders[0]  # "C/<session>", as B's events show it
            hub, session = stolen_id.split("/", 1)
            assert hub == "C"
            a = load_credentials(out / "A.creds.json")
            nc = await nats.connect(
                server.url, user=a.user, password=a.password, inbox_prefix="_INBOX.A",
                error_cb=on_error, allow_reconnect=False,
            )  # fmt: skip
            try:

                def origin(as_hub: str) -> FarmOrigin:
                    return FarmOrigin(
                        hub=as_hub, run="forged-run", session=session, client="holder",
                        role="controller", principal="farm", scope="farm",
                    )  # fmt: skip

                home = Global(id=7, device="sim-b", action=GlobalAction.HOME)
                # 1. claiming C in the payload, sent (as NATS allows) as A: refused
                forged = await ask(
                    nc, "mobridge.farm.req.B.A", Forward(origin=origin("C"), request=home)
                )
                assert isinstance(forged, Refused), forged
                assert forged.message.code is ProtocolErrorCode.FORBIDDEN  # type: ignore[union-attr]
                closed = await ask(
                    nc, "mobridge.farm.req.B.A",
                    SessionsClosed(hub="C", run="forged-run", sessions=(session,)),
                )  # fmt: skip
                assert isinstance(closed, Refused), closed
                # 2. publishing as C: NATS refuses it, B never hears it
                await nc.publish(
                    "mobridge.farm.req.B.C",
                    msgspec.msgpack.encode(Forward(origin=origin("C"), request=home)),
                )
                await nc.flush()
                with anyio.fail_after(10):
                    while not any("req.b.c" in v for v in violations):
                        await anyio.sleep(0.05)
                # 3. A's own name: the file holds no farm token, so no proof of one; a made-up
                #    proof fails too. A's name with C's session id would be A's session anyway.
                for proof in (None, "ab" * 32):
                    as_a = await ask(
                        nc,
                        "mobridge.farm.req.B.A",
                        Forward(
                            origin=msgspec.structs.replace(origin("A"), proof=proof),
                            request=home,
                        ),
                    )
                    assert isinstance(as_a, Refused), as_a
                    assert as_a.message.code is ProtocolErrorCode.FORBIDDEN  # type: ignore[union-attr]
                    assert "farm token" in as_a.message.message  # type: ignore[union-attr]
                release = LeaseRelease(id=8, device="sim-b")
                refused = await ask(
                    nc, "mobridge.farm.req.B.A", Forward(origin=origin("A"), request=release)
                )
                assert isinstance(refused, Refused), refused
            finally:
                await nc.close()
            after = await farm_listed(b, {"sim-b"})
            lease = after["sim-b"].lease  # type: ignore[attr-defined]
            assert lease is not None and lease.holders == (stolen_id,)  # still the holder's
            screen = await holder.device("sim-b").snapshot()
            assert screen.snapshot.screen_state_id is not None
            assert "login" in screen.snapshot.screen_state_id  # never went HOME
        assert "farm_bad_message" in b.log_text()
    finally:
        b.stop()
        c.stop()
        server.stop()
