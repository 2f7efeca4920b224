"""Issues 33.6 and 33.9: upload bounds a hoarder cannot sit on. An idle controller declares
2 x 1 GiB and sends one byte of each: another client's upload still goes through, and after
the idle bound the hoarder's uploads are gone. A file name with a control character is
refused. A hub killed with -9 leaves its upload directory behind; the next start deletes it."""

from __future__ import annotations

import base64
import hashlib
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import anyio

from bridge.hub.app_install import DIR_PREFIX, IDLE_S
from bridge.hub.resources import UPLOADS
from tests.adversarial.harness import call, client, hub_under_attack
from tests.cli.hubproc import LISTENING, ROOT, clean_env, mobridge_command
from tests.hub.hubfixture import CONTROLLER, CONTROLLER_2

GIB = 1 << 30


def chunk(n: int, device: str, size: int, data: bytes, **kw: Any) -> dict[str, Any]:
    return {
        "type": "app.upload",
        "id": n,
        "device": device,
        "size": size,
        "sha256": kw.pop("sha256", "0" * 64),
        "offset": kw.pop("offset", 0),
        "data": base64.b64encode(data).decode(),
        "name": kw.pop("name", "app.apk"),
        **kw,
    }


async def test_an_idle_hoarder_does_not_block_other_uploads() -> None:
    now = [1000.0]
    async with hub_under_attack() as rh:
        store = rh.hub.service.uploads
        store.clock = lambda: now[0]
        dev = rh.device_id
        async with client(rh.url, CONTROLLER, "hoarder") as hoarder:
            held = []
            for n in (1, 2):
                reply = await call(hoarder, chunk(n, dev, GIB, b"x"))
                assert reply["type"] == "result", reply
                held.append(reply["result"]["upload"])
            assert store.held_bytes() < GIB // 4  # reservations, not declared sizes
            async with client(rh.url, CONTROLLER_2, "honest") as honest:
                data = os.urandom(300_000)
                digest = hashlib.sha256(data).hexdigest()
                reply = await call(honest, chunk(1, dev, len(data), data, sha256=digest))
                assert reply["type"] == "result" and reply["result"]["complete"], reply
                # the hoarder goes quiet past the idle bound; its room is given back
                now[0] += IDLE_S + 1
                reply = await call(honest, chunk(2, dev, len(data), data, sha256=digest))
                assert reply["type"] == "result", reply
            assert store.expired == 2
            assert rh.hub.service.resources.held(UPLOADS) == 0
            again = await call(hoarder, chunk(3, dev, GIB, b"y", offset=1, upload=held[0]))
            assert again["type"] == "protocol_error" and "no upload" in again["message"]
            stats = rh.hub.service.statistics()
            assert stats["media"]["uploads"]["expired"] == 2


async def test_a_name_with_a_control_character_is_refused() -> None:
    async with hub_under_attack() as rh, client(rh.url) as ws:
        for n, name in enumerate(("x.apk\n", "x\r.apk", "x.apk\x00"), start=1):
            reply = await call(ws, chunk(n, rh.device_id, 1, b"x", name=name))
            assert reply["type"] == "protocol_error", (name, reply)
        assert not rh.hub.service.uploads._uploads


def start_hub(tmp: Path, runtime: Path) -> tuple[subprocess.Popen[str], int]:
    process = subprocess.Popen(
        mobridge_command(
            "serve", "--port", "0", "--no-dashboard", "--no-journal", "--token", CONTROLLER
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
        env=clean_env(runtime, TMPDIR=str(tmp)),
    )
    assert process.stdout is not None
    for _ in range(50):
        line = process.stdout.readline()
        if not line:
            break
        if (found := LISTENING.match(line.rstrip("\n"))) is not None:
            return process, int(found.group(1))
    process.kill()
    raise AssertionError("the hub did not start")


def upload_dirs(tmp: Path) -> list[Path]:
    return sorted(p for p in tmp.iterdir() if p.name.startswith(DIR_PREFIX))


async def test_upload_files_of_a_killed_hub_are_deleted_at_the_next_start(tmp_path: Path) -> None:
    tmp, runtime = tmp_path / "tmp", tmp_path / "runtime"
    tmp.mkdir()
    runtime.mkdir(mode=0o700)
    process, port = await anyio.to_thread.run_sync(start_hub, tmp, runtime)
    try:
        async with client(f"ws://127.0.0.1:{port}/v1") as ws:
            devices = await call(ws, {"type": "devices.list", "id": 1})
            dev = devices["result"]["devices"][0]["id"]
            reply = await call(ws, chunk(2, dev, 1 << 20, b"z" * 1000))
            assert reply["type"] == "result", reply
            assert len(upload_dirs(tmp)) == 1
            os.kill(process.pid, signal.SIGKILL)
            await anyio.to_thread.run_sync(process.wait)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert len(upload_dirs(tmp)) == 1  # kill -9 left it
    process, port = await anyio.to_thread.run_sync(start_hub, tmp, runtime)
    try:
        assert upload_dirs(tmp) == []
    finally:
        process.terminate()
        await anyio.to_thread.run_sync(process.wait)
