"""A pytest plugin for people who prefer Python to YAML: ``pytest --mobridge-url URL``.

Registered as the ``mobridge`` pytest plugin (entry point ``pytest11``), so an installed
mobridge adds these to any pytest run (or load it by hand: ``-p bridge.flows.pytest_plugin``):

- options ``--mobridge-url`` (else ``$MOBRIDGE_URL``), ``--mobridge-token`` (else
  ``$MOBRIDGE_TOKEN`` or a local hub's token), ``--mobridge-device`` (else the hub's only
  online device), ``--mobridge-app`` (an app id relaunched before each test);
- ``mobridge_hub`` (session): a blocking ``SyncHub`` connected for the whole run;
- ``mobridge_device`` (per test): a ``SyncDevice`` whose **exclusive lease** is held for the
  test (released after it, also when it fails), with the app relaunched first when
  ``--mobridge-app`` is given.

A test that asks for these fixtures without a hub configured fails with the option to give
(it does not skip: a suite that silently skips its device tests is not green).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from bridge.client.sync import SyncDevice, SyncHub, connect_sync
from bridge.wire.enums import AppAction


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mobridge", "mobridge device tests")
    group.addoption("--mobridge-url", help="hub URL (default: $MOBRIDGE_URL)")
    group.addoption("--mobridge-token", help="hub token (default: $MOBRIDGE_TOKEN)")
    group.addoption("--mobridge-device", help="device id (default: the only online device)")
    group.addoption("--mobridge-app", help="app id to relaunch before each test")


def _option(config: pytest.Config, name: str, env: str | None = None) -> str | None:
    value = config.getoption(name)
    if value is None and env is not None:
        value = os.environ.get(env)
    return str(value) if value else None


@pytest.fixture(scope="session")
def mobridge_hub(pytestconfig: pytest.Config) -> Iterator[SyncHub]:
    url = _option(pytestconfig, "--mobridge-url", "MOBRIDGE_URL")
    if url is None:
        pytest.fail(
            "mobridge_hub needs a hub: pass --mobridge-url ws://HOST:PORT/v1 "
            "(or set MOBRIDGE_URL); start one with `mobridge serve`",
            pytrace=False,
        )
    token = _option(pytestconfig, "--mobridge-token")
    with connect_sync(url, token=token, name="pytest", kind="test") as hub:
        yield hub


@pytest.fixture
def mobridge_device(mobridge_hub: SyncHub, pytestconfig: pytest.Config) -> Iterator[SyncDevice]:
    wanted = _option(pytestconfig, "--mobridge-device")
    devices = mobridge_hub.devices()
    online = [d.id for d in devices if d.online]
    if wanted is None:
        if len(online) != 1:
            pytest.fail(
                f"the hub has {len(online)} online devices ({', '.join(online) or 'none'}): "
                "pass --mobridge-device ID",
                pytrace=False,
            )
        wanted = online[0]
    elif wanted not in online:
        pytest.fail(f"--mobridge-device {wanted}: not online ({', '.join(online)})", pytrace=False)
    device = mobridge_hub.device(wanted)
    with device.lease("exclusive"):
        app = _option(pytestconfig, "--mobridge-app")
        if app is not None:
            device.app(AppAction.APP_OPEN, app)
        yield device
