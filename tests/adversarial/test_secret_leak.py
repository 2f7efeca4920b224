"""Issue 8.4: a secret typed into an ordinary field never leaves the hub (deltas, action events,
results, snapshots, finds), and the field shows again once it holds something else."""

from __future__ import annotations

import itertools
import json

import anyio
import pytest

from tests.adversarial.harness import call, client, hub_under_attack
from tests.hub.hubfixture import OBSERVER

SECRET = "Tr0ub4dor&3-horse"


async def test_secret_typed_into_a_username_field_is_masked_everywhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MOBRIDGE_SECRET_PW", SECRET)
    seen: list[str] = []
    patched: list[str] = []
    """Frames of the subscribers that opted in to slim ``patch`` events."""
    per_watcher: list[list[str]] = []
    async with (
        hub_under_attack(sim_scene="login") as rh,
        client(rh.url, OBSERVER, "watcher") as watch,
        client(rh.url, OBSERVER, "watcher-full") as watch_full,
        client(rh.url, OBSERVER, "patcher") as patch_watch,
        client(rh.url, OBSERVER, "patcher-full") as patch_watch_full,
        client(rh.url) as ws,
        anyio.create_task_group() as tg,
    ):
        dev = rh.device_id
        for w, compact, patches in (
            (watch, True, False),
            (watch_full, False, False),
            (patch_watch, True, True),
            (patch_watch_full, False, True),
        ):
            reply = await call(
                w,
                {
                    "type": "subscribe",
                    "id": 1,
                    "device": dev,
                    "compact": compact,
                    "patches": patches,
                },
            )
            seen.append(json.dumps(reply))

            mine: list[str] = []
            per_watcher.append(mine)

            async def record(
                w: object = w, patches: bool = patches, mine: list[str] = mine
            ) -> None:
                async for frame in w:  # type: ignore[attr-defined]
                    text = frame if isinstance(frame, str) else frame.decode()
                    seen.append(text)
                    mine.append(text)
                    if patches:
                        patched.append(text)

            tg.start_soon(record)

        found = await call(
            ws, {"type": "find", "id": 2, "device": dev, "query": {"resourceId": "username"}}
        )
        assert found["result"]["count"] == 1, found
        ref = found["result"]["matches"][0]["ref"]
        act = await call(
            ws,
            {
                "type": "act",
                "id": 3,
                "device": dev,
                "request": {
                    "action": "SET_TEXT",
                    "target": ref,
                    "valueRef": "secret://pw",
                },
            },
        )
        assert act["type"] == "result", act
        results = [json.dumps(act)]
        for n, message in enumerate(
            (
                {"type": "snapshot.get", "id": 10, "device": dev, "compact": False},
                {"type": "snapshot.get", "id": 11, "device": dev},
                {"type": "find", "id": 12, "device": dev, "query": {"role": "TEXT_FIELD"}},
                {
                    "type": "find",
                    "id": 13,
                    "device": dev,
                    "query": {"text": {"value": SECRET[:8], "match": "CONTAINS"}},
                },
            )
        ):
            results.append(json.dumps(await call(ws, {**message, "id": 20 + n})))
        # every watcher has been sent the typed field (masked) before anything is checked
        with anyio.fail_after(20):
            while not all(any("••••" in f for f in frames) for frames in per_watcher):
                await anyio.sleep(0.02)
        everything = "\n".join(seen + results)
        assert SECRET not in everything
        assert SECRET[:8] not in everything
        assert "••••" in everything  # the field is shown, masked
        # the patch subscribers got the typed field as a field edit, masked, never the secret
        slim = [json.loads(f) for f in patched if json.loads(f).get("type") == "patch"]
        edits = [e for f in slim for e in f.get("edit", ())]
        assert any(e.get("value") == "••••••••" for e in edits), slim
        assert not any(json.loads(f).get("type") == "delta" for f in patched)
        # the typed value did change the field (the mask is in the full snapshot)
        full = json.loads(results[1])["result"]["snapshot"]["nodes"]
        assert any(n.get("value") == "••••••••" for n in full)

        # typing something the hub did not take from a secret shows normally again
        act = await call(
            ws,
            {
                "type": "act",
                "id": 40,
                "device": dev,
                "request": {"action": "SET_TEXT", "target": ref, "value": "alice"},
            },
        )
        assert act["type"] == "result", act
        with anyio.fail_after(20):  # until the hub's snapshot shows the new text
            for n in itertools.count(41):
                snap = await call(
                    ws, {"type": "snapshot.get", "id": n, "device": dev, "compact": False}
                )
                values = [n.get("value") for n in snap["result"]["snapshot"]["nodes"]]
                if "alice" in values:
                    break
                await anyio.sleep(0.05)
        assert "alice" in values and "••••••••" not in values
        tg.cancel_scope.cancel()
