"""Farm credentials: NATS user/password, token and TLS; a hub whose credentials are refused
stays out of the farm and keeps serving its own devices."""

from __future__ import annotations

import json
import shutil
import subprocess
import urllib.request
from pathlib import Path
from typing import Any

import anyio
import pytest

from bridge.client import build_query, connect
from bridge.wire.client_protocol import DevicesList, DevicesListResult
from bridge.wire.enums import ActionVerb
from tests.farm.farmfixture import TOKEN, FarmHub, nats_server, need_nats
from tests.farm.test_farm_e2e import farm_listed
from tests.skips import SYSTEM_PACKAGES, reason

pytestmark = [pytest.mark.anyio, need_nats]
need_openssl = pytest.mark.skipif(
    shutil.which("openssl") is None,
    reason=reason("no openssl to make test certificates", SYSTEM_PACKAGES),
)


def healthz(hub: FarmHub) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{hub.port}/healthz", timeout=10) as resp:
        return dict(json.loads(resp.read()))


def log_events(hub: FarmHub) -> list[dict[str, object]]:
    return [json.loads(x) for x in hub.log_text().splitlines() if x.startswith("{")]


async def test_user_password_admits_and_a_wrong_password_keeps_a_hub_out(tmp_path: Path) -> None:
    auth = 'authorization { user: "hubs", password: "farm-s3cret" }'
    with nats_server(tmp_path, auth) as nats:
        good = ("--farm-user", "hubs", "--farm-password", "farm-s3cret")
        a = FarmHub("A", "sim-a", nats.url, tmp_path, extra=good)
        c = FarmHub("C", "sim-c", nats.url, tmp_path, extra=good)
        bad = FarmHub(
            "B",
            "sim-b",
            nats.url,
            tmp_path,
            extra=("--farm-user", "hubs", "--farm-password", "wrong"),
        )
        try:
            for hub in (a, c, bad):
                hub.start()
            await farm_listed(a, {"sim-c"})
            await anyio.sleep(1.5)  # several heartbeats: B is never heard
            async with connect(a.url, token=TOKEN, name="lister") as client:
                assert "sim-b" not in {d.id for d in await client.devices()}
            # B keeps serving its own device and says why it is alone
            async with connect(bad.url, token=TOKEN, name="local") as client:
                await client.device("sim-b").act_on(
                    build_query(resource_id="username"), ActionVerb.SET_TEXT, value="alone"
                )
                assert {d.id for d in await client.devices()} == {"sim-b"}
            failures = [e for e in log_events(bad) if str(e.get("event")).startswith("farm_")]
            assert failures and "Authorization Violation" in str(failures[0]["error"])
            assert "farm-s3cret" not in a.log_text() and "wrong" not in bad.log_text()
            # health tells the truth: B's login is refused, A is connected
            health = healthz(bad)
            assert health["status"] == "degraded"
            assert health["farm"]["state"] == "unauthorized"
            assert "Authorization Violation" in health["farm"]["reason"]
            assert healthz(a)["status"] == "ok" and healthz(a)["farm"]["state"] == "connected"
            async with connect(bad.url, token=TOKEN, name="lister") as client:
                listed = await client.call(DevicesList(id=client.next_id()), DevicesListResult)
                assert listed.farm is not None and listed.farm.state == "unauthorized"
        finally:
            for hub in (a, c, bad):
                hub.stop()


async def test_token_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``MOBRIDGE_FARM_TOKEN`` is the NATS token when ``--farm-token`` is not given: two hubs
    with it in their environment (and no option) hear each other; one whose environment holds
    a wrong token is refused by the server, which shows that the variable is what is used."""
    with nats_server(tmp_path, 'authorization { token: "farm-token-1" }') as nats:
        hubs = [
            FarmHub(n, f"sim-{n.lower()}", nats.url, tmp_path, env={"MOBRIDGE_FARM_TOKEN": t})
            for n, t in (("A", "farm-token-1"), ("C", "farm-token-1"), ("W", "not-the-token"))
        ]
        try:
            for hub in hubs:
                hub.start()
            await farm_listed(hubs[0], {"sim-c"})
            await farm_listed(hubs[1], {"sim-a"})
            with anyio.fail_after(30):
                while healthz(hubs[2])["farm"]["state"] != "unauthorized":
                    await anyio.sleep(0.1)
            assert "farm-token-1" not in " ".join(h.log_text() for h in hubs)
        finally:
            for hub in hubs:
                hub.stop()


def make_certs(folder: Path) -> tuple[Path, Path, Path]:
    """A throwaway CA and a server certificate for 127.0.0.1, made with openssl."""
    ca_key, ca, key, csr, cert = (
        folder / n for n in ("ca.key", "ca.pem", "srv.key", "srv.csr", "srv.pem")
    )
    ext = folder / "ext.cnf"
    ext.write_text("subjectAltName=IP:127.0.0.1\n", encoding="utf-8")

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(ca_key), "-out", str(ca),
        "-days", "2", "-subj", "/CN=mobridge test farm CA")  # fmt: skip
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(csr),
        "-subj", "/CN=127.0.0.1")  # fmt: skip
    run("x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial",
        "-out", str(cert), "-days", "2", "-extfile", str(ext))  # fmt: skip
    return ca, cert, key


@need_openssl
async def test_tls_with_a_ca(tmp_path: Path) -> None:
    ca, cert, key = make_certs(tmp_path)
    tls = f'tls {{ cert_file: "{cert}", key_file: "{key}" }}'
    with nats_server(tmp_path, tls) as nats:
        url = f"tls://127.0.0.1:{nats.port}"
        hubs = [
            FarmHub(n, f"sim-{n.lower()}", url, tmp_path, extra=("--farm-tls-ca", str(ca)))
            for n in ("A", "C")
        ]
        plain = FarmHub("B", "sim-b", url, tmp_path)  # no CA: the server is not trusted
        try:
            for hub in (*hubs, plain):
                hub.start()
            await farm_listed(hubs[0], {"sim-c"})
            await anyio.sleep(1.5)
            async with connect(hubs[0].url, token=TOKEN, name="lister") as client:
                assert "sim-b" not in {d.id for d in await client.devices()}
            failures = [e for e in log_events(plain) if str(e.get("event")).startswith("farm_")]
            assert failures and "CERTIFICATE_VERIFY_FAILED" in str(failures[0]["error"])
        finally:
            for hub in (*hubs, plain):
                hub.stop()
