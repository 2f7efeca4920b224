"""Installing the agent APK through the fake of adbutils: missing, same, other version, same
version but other bytes, sha256 mismatches, refused updates."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from bridge.devices.android import AndroidConfig, AndroidSetupError, preflight, run_android
from bridge.devices.android.apk import AGENT_PACKAGE, AgentApk, parse_apk
from bridge.devices.android.install import InstallRefused, ensure_agent, parse_dumpsys_version
from tests.devices.android_fakes.apk_builder import build_apk
from tests.devices.android_fakes.fake_adbutils import FakeDevice

pytestmark = pytest.mark.anyio


def _apk(code: int = 100, name: str = "0.1.0", payload: bytes = b"dex v1") -> AgentApk:
    apk = parse_apk(
        Path("agent.apk"), build_apk(version_code=code, version_name=name, payload=payload), None
    )
    assert isinstance(apk, AgentApk)
    return apk


async def test_installs_when_missing_and_cleans_up() -> None:
    dev = FakeDevice("emulator-5554")
    assert await ensure_agent(dev, _apk()) == "installed"
    assert dev.packages[AGENT_PACKAGE].version_code == 100
    (install,) = [a for a in dev.argvs("pm") if a[1] == "install"]
    assert install[:4] == ["pm", "install", "-r", "-t"]
    assert install[4] == dev.pushes[0] and install[4].startswith("/data/local/tmp/")
    assert dev.files == {}  # the pushed file was removed
    assert ["rm", "-f", dev.pushes[0]] in dev.argvs("rm")


async def test_skips_when_the_same_version_and_bytes_are_installed() -> None:
    dev = FakeDevice("s1")
    apk = _apk()
    dev.install(apk.data)
    assert await ensure_agent(dev, apk) == "current"
    assert dev.pushes == []
    assert not any(a[1] == "install" for a in dev.argvs("pm"))


async def test_reinstalls_on_version_mismatch() -> None:
    dev = FakeDevice("s1")
    dev.install(_apk(code=99, name="0.0.9").data)
    assert await ensure_agent(dev, _apk()) == "updated"
    assert dev.packages[AGENT_PACKAGE].version_name == "0.1.0"


async def test_reinstalls_a_rebuild_with_the_same_version() -> None:
    dev = FakeDevice("s1")
    dev.install(_apk(payload=b"dex old build").data)
    new = _apk(payload=b"dex new build")
    assert await ensure_agent(dev, new) == "updated"
    assert dev.packages[AGENT_PACKAGE].data == new.data


async def test_version_only_when_the_device_has_no_sha256sum() -> None:
    dev = FakeDevice("s1")
    dev.install(_apk(payload=b"dex old build").data)
    dev.has_sha256sum = False
    assert await ensure_agent(dev, _apk(payload=b"dex new build")) == "current"


async def test_sha256_mismatch_after_push_is_refused() -> None:
    dev = FakeDevice("s1")
    dev.corrupt_push = True
    with pytest.raises(InstallRefused, match="sha256"):
        await ensure_agent(dev, _apk())
    assert AGENT_PACKAGE not in dev.packages
    assert not any(a[1] == "install" for a in dev.argvs("pm"))
    assert dev.files == {}


async def test_incompatible_update_uninstalls_then_installs() -> None:
    dev = FakeDevice("s1")
    dev.install(_apk(code=200, name="0.2.0").data)
    dev.install_replies = ["Failure [INSTALL_FAILED_VERSION_DOWNGRADE]"]
    assert await ensure_agent(dev, _apk()) == "updated"
    assert ["pm", "uninstall", AGENT_PACKAGE] in dev.argvs("pm")
    assert dev.packages[AGENT_PACKAGE].version_code == 100


def test_dumpsys_version_parsing() -> None:
    text = "    versionCode=10203 minSdk=26 targetSdk=34\n    versionName=1.2.3\n"
    assert parse_dumpsys_version(text) == (10203, "1.2.3")
    assert parse_dumpsys_version("versionName=null") == (None, None)


async def test_run_android_refuses_an_apk_whose_sha256_does_not_match(tmp_path: Path) -> None:
    path = tmp_path / "agent.apk"
    path.write_bytes(build_apk())
    wrong = hashlib.sha256(b"something else").hexdigest()
    config = AndroidConfig(agent_apk=path, agent_sha256=wrong, adb_factory=_no_adb)
    with pytest.raises(AndroidSetupError, match="sha256 mismatch"):
        await run_android(
            config, lambda url, token, stage, media=None, web=None: _never(), lambda url: None
        )


def _no_adb() -> object:
    raise AssertionError("adb must not be touched when the APK is refused")


def _never() -> object:
    raise AssertionError("nothing may be attached")


def test_preflight_says_why_agent_mode_cannot_start(tmp_path: Path) -> None:
    path = tmp_path / "agent.apk"
    path.write_bytes(build_apk())
    assert preflight(AndroidConfig(agent_apk=path)) is None
    assert preflight(AndroidConfig(agentless=True, agent_apk=tmp_path / "absent.apk")) is None
    missing = preflight(AndroidConfig(agent_apk=tmp_path / "absent.apk"))
    assert missing is not None and "cannot read" in missing
    (tmp_path / "agent.apk.sha256").write_text("f" * 64 + "\n")
    wrong = preflight(AndroidConfig(agent_apk=path))
    assert wrong is not None and "sha256 mismatch" in wrong
    assert AndroidConfig.from_cli("*").serial is None
    assert AndroidConfig.from_cli("emulator-5554", path, True) == AndroidConfig(
        serial="emulator-5554", agent_apk=path, agentless=True
    )
