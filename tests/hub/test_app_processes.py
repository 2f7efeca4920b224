"""Which executor launches / terminates: the agent whenever it announces the capability, the
device layer's process control only when it does not (and the device layer has one)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from bridge.hub.app_processes import hub_processes

PROCESSES = object()


def _svc(media: Any) -> Any:
    return SimpleNamespace(media={"phone": media} if media is not None else {})


def _device(*capabilities: str) -> Any:
    return SimpleNamespace(id="phone", capabilities=capabilities)


def test_the_agent_is_preferred_when_it_announces_the_capability() -> None:
    media = SimpleNamespace(processes=lambda: PROCESSES)
    assert hub_processes(_svc(media), _device("app", "terminate"), "app") is None
    assert hub_processes(_svc(media), _device("app", "terminate"), "terminate") is None
    assert hub_processes(_svc(media), _device("tree"), "terminate") is PROCESSES
    assert hub_processes(_svc(media), _device("terminate"), "app") is PROCESSES


def test_without_a_device_layer_the_agent_is_asked_as_before() -> None:
    assert hub_processes(_svc(None), _device("tree"), "app") is None
    none = SimpleNamespace(processes=lambda: None)
    assert hub_processes(_svc(none), _device("tree"), "terminate") is None
