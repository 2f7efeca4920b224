"""The simulated trees through the hub's normalizer: markers, roles, list identity."""

from __future__ import annotations

import pytest

from bridge.core.identity import IdAllocator
from bridge.core.normalize import Normalized, SnapshotContext, normalize
from bridge.devices.sim.capture import HandleRegistry, flatten
from bridge.devices.sim.device import DemoDevice
from bridge.devices.sim.scenes import SCREENS
from bridge.devices.sim.session import AgentSession
from bridge.wire.agent_link import NodeActionCommand, NodeIdentity
from bridge.wire.enums import ActionVerb, Platform, Role
from bridge.wire.node import SemanticNode
from bridge.wire.raw import RawTree


def _raw(screen: str, platform: Platform) -> RawTree:
    device = DemoDevice(platform, now=0.0, start=screen, animations=False)
    return flatten(device.scene(0.5), HandleRegistry(), platform).tree(1)


def _norm(raw: RawTree, ids: IdAllocator | None = None) -> Normalized:
    ctx = SnapshotContext(device_id="sim", snapshot_id="s_1", timestamp_ms=0)
    result = normalize(raw, ctx, ids or IdAllocator())
    assert isinstance(result, Normalized), result
    return result


def _named(nodes: tuple[SemanticNode, ...], name: str) -> list[SemanticNode]:
    return [n for n in nodes if name in (n.label, n.text)]


@pytest.mark.parametrize("platform", list(Platform))
@pytest.mark.parametrize("screen", SCREENS)
def test_every_screen_marker_is_found(platform: Platform, screen: str) -> None:
    assert _norm(_raw(screen, platform)).screens == (screen,)


@pytest.mark.parametrize("platform", list(Platform))
def test_roles_of_the_demo_screens(platform: Platform) -> None:
    login = _norm(_raw("login", platform)).full
    (sign_in,) = _named(login.nodes, "Sign in")
    assert sign_in.role is Role.BUTTON
    inputs = [n for n in login.nodes if n.role is Role.INPUT]
    assert len(inputs) == 2 and inputs[1].effective_state.password
    assert inputs[0].hint == "Username"

    settings = _norm(_raw("settings", platform)).full
    for name in ("Wi-Fi", "Bluetooth", "Dark mode"):
        toggles = [n for n in _named(settings.nodes, name) if n.role is not Role.TEXT]
        assert len(toggles) == 1, name
        assert toggles[0].role in (Role.CHECKBOX, Role.SWITCH)
        assert toggles[0].effective_state.checked is (name == "Wi-Fi")

    game = _norm(_raw("game", platform)).full
    assert [n.role for n in game.nodes if n.role is Role.CANVAS] == [Role.CANVAS]

    dialog = _norm(_raw("dialog", platform)).full
    assert any(n.role is Role.DIALOG for n in dialog.nodes)
    assert {n.role for n in _named(dialog.nodes, "OK")} == {Role.BUTTON}


@pytest.mark.parametrize("platform", list(Platform))
def test_list_rows_are_items_with_distinct_keys(platform: Platform) -> None:
    device = DemoDevice(platform, now=0.0, start="list", animations=False)
    session = AgentSession(device, HandleRegistry())
    ids = IdAllocator()
    first = _norm(session.capture(0.5), ids).full
    items = [n for n in first.nodes if n.role is Role.LIST_ITEM]
    assert len(items) == 10
    keys = [n.collection.item_key for n in items if n.collection]
    assert keys == [f"Item {i}" for i in range(1, 11)]
    assert all(n.collection and n.collection.row_count in (200, None) for n in items)
    tree = session.capture(0.5)
    (lst,) = [n for n in tree.nodes if (n.automation_id or "").rsplit("/", 1)[-1] == "list"]
    reply = session.handle(
        NodeActionCommand(
            id=1,
            capture=tree.capture,
            handle=lst.handle,
            action=ActionVerb.SCROLL_FORWARD,
            identity=NodeIdentity(class_name=lst.class_name),
        ),
        0.6,
    )
    assert reply is not None and reply.ok
    second = _norm(session.capture(0.7), ids).full
    items_after = [n for n in second.nodes if n.role is Role.LIST_ITEM]
    keys_after = [n.collection.item_key for n in items_after if n.collection]
    assert keys_after == [f"Item {i}" for i in range(11, 21)]
    # recycled views, new items: no node id survives on another item
    assert not {n.node_id for n in items} & {n.node_id for n in items_after}
