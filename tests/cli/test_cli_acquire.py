"""``mobridge acquire`` against a served hub (real subprocesses): the leased device on
stdout, exit 1 when none became free, exit 2 and one line for a bad selector; and the
``--device-selector`` text of ``mobridge test``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bridge.cli.failures import UsageError
from bridge.cli.farm import parse_selector
from bridge.wire.enums import Platform
from tests.cli.hubproc import served_hub


def test_acquire_prints_the_device_and_refuses_with_reasons(tmp_path: Path) -> None:
    with served_hub(tmp_path, "--device-tag", "sim-android=usb3") as hub:
        got = hub.run("acquire", "--platform", "android", "--os", ">=10", "--tag", "usb3")
        assert got.returncode == 0, got.stderr
        leased = json.loads(got.stdout)
        assert leased["device"] == "sim-android" and leased["tags"] == ["usb3"]
        assert "leased sim-android" in got.stderr
        none = hub.run("acquire", "--platform", "ios", "--timeout", "0")
        assert none.returncode == 1
        assert json.loads(none.stdout)["error"] == "POLICY_BLOCKED"
        bad = hub.run("acquire", "--os", "seventeen")
        assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
        assert "os range 'seventeen'" in bad.stderr


def test_device_selector_text() -> None:
    chosen = parse_selector("platform=ios, os>=17, os<18, tag=usb3, tag=lab-1, model=iPhone 15")
    assert chosen.platform is Platform.IOS and chosen.os == ">=17,<18"
    assert chosen.tags == ("usb3", "lab-1") and chosen.model == "iPhone 15"
    for bad in ("colour=red", "platform>=ios", "platform=windows"):
        with pytest.raises(UsageError):
            parse_selector(bad)
