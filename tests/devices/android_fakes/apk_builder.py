"""Builds small APKs for the driver's tests: a zip with a binary ``AndroidManifest.xml`` in the
layout aapt2 writes (UTF-8 string pool, resource map, namespace and element chunks).

A stand-in for ``scripts/build-android-agent`` where no Android SDK exists; the manifest
reader is also checked against the real ``aapt`` tool in test_android_apk when it is
installed.
"""

from __future__ import annotations

import io
import struct
import zipfile

ANDROID_NS = "http://schemas.android.com/apk/res/android"
NO_INDEX = 0xFFFFFFFF


def _length(n: int) -> bytes:
    if n < 0x80:
        return bytes([n])
    return bytes([0x80 | (n >> 8), n & 0xFF])


def _string_pool(strings: list[str]) -> bytes:
    offsets: list[int] = []
    data = b""
    for s in strings:
        offsets.append(len(data))
        raw = s.encode("utf-8")
        data += _length(len(s)) + _length(len(raw)) + raw + b"\0"
    data += b"\0" * (-len(data) % 4)
    header = 28
    strings_start = header + 4 * len(strings)
    size = strings_start + len(data)
    head = struct.pack("<HHIIIIII", 0x0001, header, size, len(strings), 0, 1 << 8, strings_start, 0)
    return head + b"".join(struct.pack("<I", o) for o in offsets) + data


def manifest_xml(package: str, version_code: int, version_name: str | None) -> bytes:
    strings = ["versionCode", "versionName", "package", "manifest", ANDROID_NS, "android"]
    strings.append(package)
    if version_name is not None:
        strings.append(version_name)
    index = {s: i for i, s in enumerate(strings)}
    pool = _string_pool(strings)
    res_map = struct.pack("<HHI", 0x0180, 8, 16) + struct.pack("<II", 0x0101021B, 0x0101021C)
    ns = index[ANDROID_NS]
    start_ns = struct.pack("<HHIIIII", 0x0100, 16, 24, 1, NO_INDEX, index["android"], ns)
    attrs = [struct.pack("<IIIHBBI", ns, 0, NO_INDEX, 8, 0, 0x10, version_code)]
    if version_name is not None:
        v = index[version_name]
        attrs.append(struct.pack("<IIIHBBI", ns, 1, v, 8, 0, 0x03, v))
    p = index[package]
    attrs.append(struct.pack("<IIIHBBI", NO_INDEX, 2, p, 8, 0, 0x03, p))
    ext = struct.pack("<IIHHHHHH", NO_INDEX, index["manifest"], 20, 20, len(attrs), 0, 0, 0)
    body = ext + b"".join(attrs)
    start = struct.pack("<HHIII", 0x0102, 16, 16 + len(body), 1, NO_INDEX) + body
    end = struct.pack("<HHIIIII", 0x0103, 16, 24, 1, NO_INDEX, NO_INDEX, index["manifest"])
    end_ns = struct.pack("<HHIIIII", 0x0101, 16, 24, 1, NO_INDEX, index["android"], ns)
    chunks = pool + res_map + start_ns + start + end + end_ns
    return struct.pack("<HHI", 0x0003, 8, 8 + len(chunks)) + chunks


def build_apk(
    package: str = "dev.mobridge.agent.android",
    version_code: int = 100,
    version_name: str | None = "0.1.0",
    payload: bytes = b"dex\n035\0fake classes",
) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("AndroidManifest.xml", manifest_xml(package, version_code, version_name))
        z.writestr("classes.dex", payload)
    return out.getvalue()
