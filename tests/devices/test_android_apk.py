"""The agent APK reader: manifest fields (checked against the real aapt when installed),
sha256 checks, refusal of other packages and of damaged files."""

from __future__ import annotations

import hashlib
import io
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.devices.android.apk import (
    AGENT_PACKAGE,
    AgentApk,
    ApkProblem,
    ManifestError,
    load_agent_apk,
    parse_apk,
    read_manifest,
)
from tests.devices.android_fakes.apk_builder import build_apk, manifest_xml
from tests.skips import NO_AAPT

REPO = Path(__file__).resolve().parents[2]
FRAMEWORK_RES = Path("/usr/share/android-framework-res/framework-res.apk")


def _aapt_apk(tmp_path: Path, code: int, name: str, min_sdk: int) -> Path:
    aapt = shutil.which("aapt")
    if aapt is None or not FRAMEWORK_RES.is_file():
        pytest.skip(NO_AAPT)
    src = (REPO / "agents/android/app/AndroidManifest.xml").read_text()
    manifest_dir = tmp_path / f"m{min_sdk}"
    manifest_dir.mkdir()
    (manifest_dir / "AndroidManifest.xml").write_text(
        src.replace('android:minSdkVersion="26"', f'android:minSdkVersion="{min_sdk}"')
    )
    out = tmp_path / f"agent-{min_sdk}.apk"
    subprocess.run(
        [
            aapt,
            "package",
            "-f",
            "-M",
            str(manifest_dir / "AndroidManifest.xml"),
            "-I",
            str(FRAMEWORK_RES),
            "-F",
            str(out),
            "--version-code",
            str(code),
            "--version-name",
            name,
        ],
        check=True,
        capture_output=True,
    )
    return out


@pytest.mark.parametrize("min_sdk", [26, 7])
def test_manifest_written_by_the_real_aapt(tmp_path: Path, min_sdk: int) -> None:
    path = _aapt_apk(tmp_path, 10203, "1.2.3-ü", min_sdk)
    apk = load_agent_apk(path)
    assert isinstance(apk, AgentApk), apk
    assert (apk.package, apk.version_code, apk.version_name) == (AGENT_PACKAGE, 10203, "1.2.3-ü")
    assert apk.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


@given(
    code=st.integers(min_value=0, max_value=2**31 - 1),
    name=st.none() | st.text(min_size=1, max_size=300).filter(lambda s: "\0" not in s),
)
@settings(max_examples=60, deadline=None)
def test_manifest_round_trip(code: int, name: str | None) -> None:
    info = read_manifest(manifest_xml(AGENT_PACKAGE, code, name))
    assert (info.package, info.version_code, info.version_name) == (AGENT_PACKAGE, code, name)


@given(data=st.data())
@settings(max_examples=200, deadline=None)
def test_damaged_manifest_is_a_problem_never_a_crash(data: st.DataObject) -> None:
    damaged = bytearray(manifest_xml(AGENT_PACKAGE, 100, "0.1.0"))
    for _ in range(data.draw(st.integers(1, 8))):
        damaged[data.draw(st.integers(0, len(damaged) - 1))] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(damaged)))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("AndroidManifest.xml", bytes(damaged[:cut]))
    result = parse_apk(Path("damaged.apk"), buf.getvalue(), None)
    assert isinstance(result, AgentApk | ApkProblem)
    if isinstance(result, AgentApk):
        assert result.package == AGENT_PACKAGE


def test_sha256_sidecar_must_match(tmp_path: Path) -> None:
    data = build_apk()
    path = tmp_path / "mobridge-agent.apk"
    path.write_bytes(data)
    assert isinstance(load_agent_apk(path), AgentApk)  # no sidecar: accepted, hash computed
    (tmp_path / "mobridge-agent.apk.sha256").write_text(
        f"{hashlib.sha256(data).hexdigest()}  mobridge-agent.apk\n"
    )
    assert isinstance(load_agent_apk(path), AgentApk)
    (tmp_path / "mobridge-agent.apk.sha256").write_text("0" * 64 + "  mobridge-agent.apk\n")
    refused = load_agent_apk(path)
    assert isinstance(refused, ApkProblem)
    assert "sha256 mismatch" in refused.reason
    explicit = load_agent_apk(path, hashlib.sha256(data).hexdigest().upper())
    assert isinstance(explicit, AgentApk)  # an explicit digest wins over the sidecar


def test_other_package_and_garbage_are_refused(tmp_path: Path) -> None:
    other = parse_apk(Path("x.apk"), build_apk(package="com.example.evil"), None)
    assert isinstance(other, ApkProblem) and "not the agent" in other.reason
    garbage = parse_apk(Path("x.apk"), b"not a zip at all", None)
    assert isinstance(garbage, ApkProblem) and "not a readable APK" in garbage.reason
    missing = load_agent_apk(tmp_path / "absent.apk")
    assert isinstance(missing, ApkProblem) and "cannot read" in missing.reason
    with pytest.raises(ManifestError):
        read_manifest(b"\x03\x00\x08\x00\x08\x00\x00\x00")
