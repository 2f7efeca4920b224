"""Foreign flow formats are given to the loader by the composition root
(``bridge.flows.formats``): the loader imports no format; without Maestro's installed a
Maestro file is read as mobridge's (and fails there); installing it again is harmless."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bridge.flows import formats
from bridge.flows.compile import FlowLoader
from bridge.flows.errors import FlowErrors
from bridge.flows.maestro.actions import OnElement
from bridge.flows.maestro.format import MAESTRO, install


@pytest.fixture
def no_formats(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(formats, "_INSTALLED", {})
    yield


def test_without_maestro_installed_a_maestro_file_is_not_read(
    tmp_path: Path, no_formats: None
) -> None:
    path = tmp_path / "m.yaml"
    path.write_text("appId: a.b\n---\n- tapOn: Login\n")
    with pytest.raises(FlowErrors) as caught:
        FlowLoader({}, {}).load(path, "m.yaml")
    assert "unknown step 'tapOn'" in str(caught.value)
    install()
    install()
    assert formats.installed() == (MAESTRO,)
    flow = FlowLoader({}, {}).load(path, "m.yaml")
    assert flow.maestro and isinstance(flow.steps[0].action, OnElement)
    assert formats.executing(flow.steps[0].action) is MAESTRO
