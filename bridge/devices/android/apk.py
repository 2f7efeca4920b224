"""The agent APK: its bytes, sha256, package and version, read without any Android tool.

``read_manifest(axml)`` reads the package name, ``versionCode`` and ``versionName`` from the
binary ``AndroidManifest.xml`` that aapt/aapt2 write (a ``RES_XML`` chunk: string pool,
resource map, element chunks). ``load_agent_apk(path, expected_sha256)`` reads the APK once:
the same bytes are hashed, parsed and later pushed, so what is installed is what was checked.

Invariants:
- an APK larger than ``MAX_APK`` or a manifest larger than ``MAX_MANIFEST`` is refused, as is
  any chunk whose sizes point outside its parent (no read past the data);
- ``expected_sha256`` (from the caller, or the ``<apk>.sha256`` file next to it, in
  ``sha256sum`` format) must equal the sha256 of the bytes read, else ``ApkProblem``;
- the package must be ``AGENT_PACKAGE``: another APK is never installed as the agent.
"""

from __future__ import annotations

import hashlib
import io
import re
import struct
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

AGENT_PACKAGE = "dev.mobridge.agent.android"
INSTRUMENTATION = f"{AGENT_PACKAGE}/.BridgeInstrumentation"
MAX_APK = 64 * 1024 * 1024
MAX_MANIFEST = 1024 * 1024

_RES_XML = 0x0003
_STRING_POOL = 0x0001
_START_ELEMENT = 0x0102
_UTF8 = 1 << 8
_TYPE_STRING = 0x03
_TYPE_INT_DEC = 0x10
_TYPE_INT_HEX = 0x11
_VERSION_CODE_ID = 0x0101021B
_VERSION_NAME_ID = 0x0101021C
_RES_MAP = 0x0180
_NO_INDEX = 0xFFFFFFFF
_HEX64 = re.compile(r"[0-9a-f]{64}")


class ManifestError(ValueError):
    pass


@dataclass(frozen=True)
class ManifestInfo:
    package: str
    version_code: int
    version_name: str | None


@dataclass(frozen=True)
class AgentApk:
    path: Path
    data: bytes = field(repr=False)
    sha256: str
    package: str
    version_code: int
    version_name: str | None

    @property
    def version(self) -> str:
        return f"{self.version_name} (versionCode {self.version_code})"


@dataclass(frozen=True)
class ApkProblem:
    reason: str


def _u16(data: bytes, at: int) -> int:
    return int(struct.unpack_from("<H", data, at)[0])


def _u32(data: bytes, at: int) -> int:
    return int(struct.unpack_from("<I", data, at)[0])


def _strings(data: bytes, start: int, end: int) -> list[str]:
    header_size = _u16(data, start + 2)
    count, _styles, flags, strings_start = struct.unpack_from("<IIII", data, start + 8)
    if header_size < 28 or start + header_size + 4 * count > end:
        raise ManifestError("string pool header out of bounds")
    base = start + strings_start
    out: list[str] = []
    for i in range(count):
        at = base + _u32(data, start + header_size + 4 * i)
        if not base <= at < end:
            raise ManifestError("string offset out of bounds")
        if flags & _UTF8:
            at += 2 if data[at] & 0x80 else 1  # length in UTF-16 units; not needed
            n = data[at]
            if n & 0x80:
                n = ((n & 0x7F) << 8) | data[at + 1]
                at += 1
            at += 1
            if at + n > end:
                raise ManifestError("string out of bounds")
            out.append(data[at : at + n].decode("utf-8", "replace"))
        else:
            n = _u16(data, at)
            at += 2
            if n & 0x8000:
                n = ((n & 0x7FFF) << 16) | _u16(data, at)
                at += 2
            if at + 2 * n > end:
                raise ManifestError("string out of bounds")
            out.append(data[at : at + 2 * n].decode("utf-16-le", "replace"))
    return out


def read_manifest(data: bytes) -> ManifestInfo:
    """Package and version of a binary ``AndroidManifest.xml``. Raises ManifestError."""
    if len(data) < 8 or _u16(data, 0) != _RES_XML:
        raise ManifestError("not a binary XML manifest")
    total = min(len(data), _u32(data, 4))
    at = _u16(data, 2)
    strings: list[str] = []
    res_ids: list[int] = []
    while at + 8 <= total:
        kind, header_size = _u16(data, at), _u16(data, at + 2)
        size = _u32(data, at + 4)
        if size < 8 or at + size > total or header_size > size:
            raise ManifestError(f"chunk at {at} has a bad size")
        if kind == _STRING_POOL:
            strings = _strings(data, at, at + size)
        elif kind == _RES_MAP:
            res_ids = [_u32(data, p) for p in range(at + header_size, at + size - 3, 4)]
        elif kind == _START_ELEMENT:
            return _manifest_element(data, at, header_size, size, strings, res_ids)
        at += size
    raise ManifestError("no <manifest> element")


def _manifest_element(
    data: bytes, at: int, header_size: int, size: int, strings: list[str], res_ids: list[int]
) -> ManifestInfo:
    ext = at + header_size
    if ext + 20 > at + size:
        raise ManifestError("element header out of bounds")
    name_index = _u32(data, ext + 4)
    if name_index >= len(strings) or strings[name_index] != "manifest":
        raise ManifestError("the first element is not <manifest>")
    attr_start, attr_size, attr_count = struct.unpack_from("<HHH", data, ext + 8)
    if attr_size < 20 or ext + attr_start + attr_size * attr_count > at + size:
        raise ManifestError("attributes out of bounds")
    package: str | None = None
    code: int | None = None
    name: str | None = None
    for i in range(attr_count):
        a = ext + attr_start + i * attr_size
        attr_name, raw, data_type, value = (
            _u32(data, a + 4),
            _u32(data, a + 8),
            data[a + 15],
            _u32(data, a + 16),
        )
        res_id = res_ids[attr_name] if attr_name < len(res_ids) else None
        label = strings[attr_name] if attr_name < len(strings) else ""
        text = strings[raw] if raw != _NO_INDEX and raw < len(strings) else None
        if text is None and data_type == _TYPE_STRING and value < len(strings):
            text = strings[value]
        if res_id == _VERSION_CODE_ID or (res_id is None and label == "versionCode"):
            if data_type in (_TYPE_INT_DEC, _TYPE_INT_HEX):
                code = value
            elif text is not None and text.isdigit():
                code = int(text)
        elif res_id == _VERSION_NAME_ID or (res_id is None and label == "versionName"):
            name = text
        elif label == "package" and res_id is None:
            package = text
    if not package:
        raise ManifestError("<manifest> has no package")
    if code is None:
        raise ManifestError("<manifest> has no versionCode")
    return ManifestInfo(package, code, name)


def read_sha256_file(path: Path) -> str | None:
    """The hex digest of a ``sha256sum``-style file (first word), or None when absent."""
    try:
        words = path.read_text("utf-8", "replace").split()
    except FileNotFoundError:
        return None
    return words[0].lower() if words else ""


def parse_apk(path: Path, data: bytes, expected_sha256: str | None) -> AgentApk | ApkProblem:
    """Check and describe APK bytes (pure; ``load_agent_apk`` reads the file)."""
    digest = hashlib.sha256(data).hexdigest()
    if expected_sha256 is not None:
        want = expected_sha256.strip().lower()
        if not _HEX64.fullmatch(want):
            return ApkProblem(f"the expected sha256 of {path} is not 64 hex digits")
        if want != digest:
            return ApkProblem(
                f"sha256 mismatch for {path}: expected {want}, the file has {digest}; "
                "refusing to install it"
            )
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            info = z.getinfo("AndroidManifest.xml")
            if info.file_size > MAX_MANIFEST:
                return ApkProblem(f"{path}: AndroidManifest.xml is over {MAX_MANIFEST} bytes")
            with z.open(info) as f:
                manifest = f.read(MAX_MANIFEST + 1)
    except (zipfile.BadZipFile, KeyError, OSError, EOFError, ValueError) as exc:
        return ApkProblem(f"{path} is not a readable APK: {exc}")
    try:
        meta = read_manifest(manifest)
    except (ManifestError, struct.error, IndexError) as exc:
        return ApkProblem(f"{path}: cannot read its manifest: {exc}")
    if meta.package != AGENT_PACKAGE:
        return ApkProblem(f"{path} is package {meta.package!r}, not the agent {AGENT_PACKAGE}")
    return AgentApk(path, data, digest, meta.package, meta.version_code, meta.version_name)


def load_agent_apk(path: Path, expected_sha256: str | None = None) -> AgentApk | ApkProblem:
    """Read and check the agent APK at ``path`` (blocking file I/O: call it in a thread).
    Without ``expected_sha256`` the ``<path>.sha256`` file is used when present."""
    try:
        size = path.stat().st_size
        if size > MAX_APK:
            return ApkProblem(f"{path} is {size} bytes, over the {MAX_APK} limit")
        data = path.read_bytes()
    except OSError as exc:
        return ApkProblem(f"cannot read the agent APK {path}: {exc}")
    if expected_sha256 is None:
        expected_sha256 = read_sha256_file(path.with_name(path.name + ".sha256"))
    return parse_apk(path, data, expected_sha256)


def packaged_apk_candidates() -> list[Path]:
    """Where the agent APK is looked for when ``--android-agent-apk`` is not given: inside the
    installed package (``bridge/devices/android/agent/mobridge-agent.apk``), then the
    source checkout's ``scripts/build-android-agent`` output (newest version first)."""
    here = Path(__file__).resolve().parent
    found = [here / "agent" / "mobridge-agent.apk"]
    build = here.parents[2] / "agents" / "android" / "build"
    if build.is_dir():

        def version_key(p: Path) -> tuple[int, ...]:
            digits = re.findall(r"\d+", p.stem)
            return tuple(int(d) for d in digits)

        found += sorted(build.glob("mobridge-agent-*.apk"), key=version_key, reverse=True)
    return [p for p in found if p.is_file()]
