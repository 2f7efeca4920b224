"""bridge.client's exports: the wire types are listed once (bridge/client/wire_types.py's
imports) and everything else derives from that list, without loading it early."""

from __future__ import annotations

import subprocess
import sys

import bridge.client
import bridge.client.wire_types as wire_types


def test_every_wire_type_is_exported_as_itself() -> None:
    assert len(wire_types.WIRE_TYPES) > 60
    assert list(wire_types.WIRE_TYPES) == sorted(set(wire_types.WIRE_TYPES))
    for name in wire_types.WIRE_TYPES:
        value = getattr(wire_types, name)
        assert value.__module__.startswith("bridge.wire."), name
        assert getattr(bridge.client, name) is value, name
        assert name in bridge.client.__all__, name
        assert name in dir(bridge.client), name


def test_star_import_takes_every_listed_name_and_unknown_names_fail() -> None:
    namespace: dict[str, object] = {}
    exec("from bridge.client import *", namespace)
    taken = {k for k in namespace if not k.startswith("__")}
    assert taken == set(bridge.client.__all__)
    assert {"HubConnection", "connect", "ClientError", "Role", "ActionResult"} <= taken
    try:
        bridge.client.NoSuchThing  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as exc:
        assert "NoSuchThing" in str(exc)
    else:
        raise AssertionError("an unknown name was found")


def test_a_plain_import_loads_neither_the_wire_types_nor_the_connection() -> None:
    code = (
        "import sys, bridge.client\n"
        "print(sorted(m for m in sys.modules if m.startswith('bridge.')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert "bridge.client.wire_types" not in out and "bridge.client.connection" not in out
    assert "bridge.wire" not in out
