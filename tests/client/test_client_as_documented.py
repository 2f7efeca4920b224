"""The Python client as docs/client.md and the README describe it (issue 40): plain string
targets wherever the CLI takes a target, ``type_text`` / ``wait_for`` / ``wait_gone`` /
``expect``, every public method named in docs/client.md, every result and enum type
importable from ``bridge.client``.

The behaviour runs against a real hub (in-process, real websockets on 127.0.0.1)."""

from __future__ import annotations

import enum
import inspect
import typing
from pathlib import Path

import pytest

import bridge.client
from bridge.client import (
    AmbiguousError,
    NotFoundError,
    ScreenShown,
    VerificationResult,
    build_query,
    connect,
    expect,
)
from bridge.client.connection import HubConnection
from bridge.client.device import Device
from bridge.client.sync import SyncDevice, SyncHub
from tests.hub.hubfixture import CONTROLLER, running_hub

ROOT = Path(__file__).resolve().parents[2]
CLASSES = (HubConnection, Device, SyncHub, SyncDevice)


def _public_methods(cls: type) -> list[str]:
    return [n for n, f in inspect.getmembers(cls) if not n.startswith("_") and callable(f)]


def test_docs_client_md_names_every_public_method() -> None:
    text = (ROOT / "docs" / "client.md").read_text(encoding="utf-8")
    missing = sorted(
        {f"{cls.__name__}.{n}" for cls in CLASSES for n in _public_methods(cls)}
        - {
            f"{cls.__name__}.{n}"
            for cls in CLASSES
            for n in _public_methods(cls)
            if f"{n}(" in text
        }
    )
    assert missing == [], f"docs/client.md does not describe {missing}"


def _wire_classes(hint: object) -> set[type]:
    out: set[type] = set()
    stack = [hint]
    while stack:
        item = stack.pop()
        if inspect.isclass(item) and item.__module__.startswith("bridge.wire"):
            out.add(item)
        stack.extend(typing.get_args(item))
    return out


def test_every_result_and_enum_type_is_importable_from_bridge_client() -> None:
    returned: set[type] = set()
    for cls in CLASSES:
        for name in _public_methods(cls):
            hints = typing.get_type_hints(getattr(cls, name))
            returned |= _wire_classes(hints.get("return"))
    import bridge.wire.enums as enums

    wanted = returned | {
        v
        for v in vars(enums).values()
        if inspect.isclass(v)
        and issubclass(v, enum.Enum)
        and v.__module__ == enums.__name__
        and len(v) > 0  # the members' base (``WireEnum``) is no vocabulary
    }
    assert len(wanted) > 40
    missing = sorted(
        c.__name__ for c in wanted if getattr(bridge.client, c.__name__, None) is not c
    )
    assert missing == [], f"not importable from bridge.client: {missing}"
    for name in bridge.client.__all__:  # and everything it lists is there
        assert getattr(bridge.client, name) is not None, name


@pytest.mark.anyio
async def test_plain_targets_type_wait_and_verify_on_a_real_hub() -> None:
    async with (
        running_hub(sim_scene="menu") as rh,
        connect(rh.url, token=CONTROLLER, name="as-documented") as hub,
    ):
        dev = hub.device(rh.device_id)
        match, _ = await dev.find_one("Login")  # plain text where a query was needed
        assert match.node.text == "Login"
        tapped = await dev.tap("Login")  # used to be: Expected object | null, got str
        assert tapped.dispatch.status.value == "DISPATCHED"
        assert (await dev.wait_for_screen("login")).result is VerificationResult.CONDITION_MET
        await dev.type_text("Username", "demo")  # a field by its hint, as the CLI finds it
        await dev.type_text("Password", "pw")
        username = (await dev.find_one("demo"))[0].node
        assert username.value == "demo" or username.text == "demo"
        done = await dev.tap("Sign in", verify=expect(ScreenShown(name="home")))
        assert done.verification is not None
        assert done.verification.result is VerificationResult.CONDITION_MET
        gone = await dev.wait_gone("Sign in")
        assert gone.result is VerificationResult.CONDITION_MET
        await dev.back()
        assert (await dev.wait_for("Login")).result is VerificationResult.CONDITION_MET
        never = await dev.wait_for("Nothing like this", timeout_ms=300)
        assert never.result is VerificationResult.CONDITION_NOT_MET
        # A handle, as `mobridge screen` prints it, is a target too.
        handle = (await dev.find_one("Settings"))[0].node.node_id
        assert (await dev.tap(handle)).dispatch.status.value == "DISPATCHED"
        assert (await dev.wait_for("Wi-Fi")).result is VerificationResult.CONDITION_MET
        with pytest.raises(NotFoundError):
            await dev.tap("Nothing like this")
        with pytest.raises(ValueError, match="empty text"):
            await dev.tap("  ")
        await dev.app("APP_OPEN", "dev.mobridge.demo")
        await dev.tap("Ambiguous")
        with pytest.raises(AmbiguousError) as many:
            await dev.tap("Continue")
        assert len(many.value.candidates) == 2
        assert (await dev.find(build_query(role="BUTTON"))).count >= 2
