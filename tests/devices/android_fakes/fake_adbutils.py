"""A fake of exactly the adbutils calls the Android driver makes, for the phone that is not
here: ``AdbClient.track_devices`` / ``device``, and ``AdbDevice.shell`` (plain and
``stream=True``), ``sync.push``, ``forward``, ``forward_remove``, ``forward_list``.

It records every shell command line as the device would receive it and answers like a
device would: a small package manager (``pm list packages|path|install|uninstall``,
``dumpsys package``, ``sha256sum``), ``am instrument`` streams scripted status lines,
``uiautomator dump`` returns ``screen_xml`` (a real dump in the agentless tests),
``screencap -p`` returns ``png``; ``input``, ``monkey``, ``am start`` are recorded. Commands
are split with ``shlex`` as the device shell would, so a test sees exactly the argv that would
run. ``unplug()`` makes every later call, and a call held in progress, raise adbutils'
``AdbError`` ("device not found"), ends instrumentation streams and drops forwards.
"""

from __future__ import annotations

import hashlib
import queue
import shlex
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from adbutils import DeviceEvent, ForwardItem  # type: ignore[import-untyped]
from adbutils.errors import AdbError, AdbTimeout  # type: ignore[import-untyped]

from bridge.devices.android.apk import read_manifest

AGENT = "dev.mobridge.agent.android"
SYSTEM_PACKAGES = ("android", "com.android.settings", "com.android.systemui")
_EOF = b""


@dataclass
class Installed:
    version_code: int
    version_name: str | None
    data: bytes


class FakeInstrumentation:
    """The output stream of one ``am instrument`` (``shell(..., stream=True)``)."""

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self.args = {argv[i + 1]: argv[i + 2] for i, a in enumerate(argv[:-2]) if a == "-e"}
        self._chunks: queue.Queue[bytes] = queue.Queue()
        self.closed = threading.Event()
        self.ended = False

    @property
    def token(self) -> str:
        return self.args["token"]

    @property
    def socket(self) -> str:
        return self.args["socket"]

    def emit(self, *lines: str) -> None:
        for line in lines:
            self._chunks.put(line.encode() + b"\r\n")

    def ready(self, protocol: int = 1, version: str = "0.1.0") -> None:
        self.emit(
            "INSTRUMENTATION_STATUS: mobridge.state=ready",
            f"INSTRUMENTATION_STATUS: mobridge.socket={self.socket}",
            f"INSTRUMENTATION_STATUS: mobridge.protocol={protocol}",
            f"INSTRUMENTATION_STATUS: mobridge.version={version}",
            "INSTRUMENTATION_STATUS_CODE: 1",
        )

    def crash(self) -> None:
        self.emit("INSTRUMENTATION_RESULT: shortMsg=Process crashed.", "INSTRUMENTATION_CODE: 0")
        self.end()

    def end(self) -> None:
        self.ended = True
        self._chunks.put(_EOF)

    # -- the AdbConnection surface --

    def recv(self, n: int) -> bytes:
        while True:
            if self.closed.is_set():
                return b""
            try:
                chunk = self._chunks.get(timeout=0.02)
            except queue.Empty:
                continue
            if chunk == _EOF:
                self._chunks.put(_EOF)
                return b""
            return chunk

    def close(self) -> None:
        self.closed.set()


class FakeScreenrecord:
    """The standard output of ``screenrecord --output-format=h264 ... -`` (``shell(...,
    stream=True)``): the device's ``h264`` bytes in chunks of ``chunk`` bytes, then, like the
    tool on a still screen, nothing until closed (or the end, with ``ends``)."""

    def __init__(self, argv: list[str], data: bytes, chunk: int, ends: bool) -> None:
        self.argv = argv
        self._data = data
        self._at = 0
        self._chunk = chunk
        self._ends = ends
        self.closed = threading.Event()

    def recv(self, n: int) -> bytes:
        if self._at < len(self._data) and not self.closed.is_set():
            size = min(n, self._chunk)
            chunk = self._data[self._at : self._at + size]
            self._at += len(chunk)
            return chunk
        if self._ends:
            return b""
        self.closed.wait()
        return b""

    def close(self) -> None:
        self.closed.set()


class FakeSync:
    def __init__(self, device: FakeDevice) -> None:
        self.device = device

    def push(self, src: bytes, dst: str, mode: int = 0o755) -> int:
        self.device.check()
        data = bytes(src)
        if self.device.corrupt_push:
            data = data[:-1] + bytes([data[-1] ^ 0xFF])
        self.device.files[dst] = data
        self.device.pushes.append(dst)
        return len(data)

    def read_bytes(self, path: str) -> bytes:
        self.device.check()
        data = self.device.files.get(path)
        if data is None:
            raise AdbError(f"{path}: no such file")
        return data


class FakeDevice:
    """A fake of ``adbutils.AdbDevice`` for one phone."""

    def __init__(self, serial: str, *, screen_xml: bytes = b"", png: bytes = b"") -> None:
        self.serial = serial
        self.plugged = True
        self.screen_xml = screen_xml
        self.png = png
        self.calls: list[str] = []
        self.files: dict[str, bytes] = {}
        self.pushes: list[str] = []
        self.stopped: list[str] = []
        self.packages: dict[str, Installed] = {}
        self.forwards: dict[str, str] = {}
        self.removed_forwards: list[str] = []
        self.instrumentations: list[FakeInstrumentation] = []
        self.on_instrument: Callable[[FakeInstrumentation], None] = lambda i: i.ready()
        self.install_replies: list[str] = []
        self.corrupt_push = False
        self.has_sha256sum = True
        self.launchable: set[str] = {"com.example.app"}
        self.hold_input: threading.Event | None = None
        self.hold_force_stop: threading.Event | None = None
        """When set to an event, the next ``am force-stop`` waits for it (5 s at most)."""
        self.force_stop_held = threading.Event()
        self.input_started = threading.Event()
        self.dump_fails = False
        self.logcat: list[str] = []
        """``logcat -v epoch`` lines the device holds (``logcat -d -T`` answers from them)."""
        self.crash_log = ""
        self.ps_text = "PID NAME\n1 init\n"
        self.network = {"airplane_mode_on": 0, "wifi_on": 1, "mobile_data": 1}
        """The settings behind airplane mode, Wi-Fi and data (``cmd connectivity``, ``svc``)."""
        self.mp4 = b""
        """What ``screenrecord`` writes."""
        self.h264 = b""
        """What ``screenrecord --output-format=h264 ... -`` writes to its standard output."""
        self.h264_chunk = 4096
        self.h264_ends = False
        self.screenrecords: list[FakeScreenrecord] = []
        self.wm_size = "Physical size: 1080x2400"
        self._lock = threading.Lock()

    # -- test controls --

    def unplug(self) -> None:
        self.plugged = False
        self.forwards.clear()
        for inst in self.instrumentations:
            inst.end()
        if self.hold_input is not None:
            self.hold_input.set()

    def check(self) -> None:
        if not self.plugged:
            raise AdbError(f"device '{self.serial}' not found")

    def install(self, data: bytes) -> None:
        meta = read_manifest(_manifest_of(data))
        self.packages[meta.package] = Installed(meta.version_code, meta.version_name, data)

    def argvs(self, program: str) -> list[list[str]]:
        """Every recorded command line of ``program``, split as the device shell splits it."""
        out = []
        for line in self.calls:
            if "uiautomator dump" in line or line.startswith("getprop "):
                continue
            argv = shlex.split(line)
            if argv and argv[0] == program:
                out.append(argv)
        return out

    # -- the AdbDevice surface --

    @property
    def sync(self) -> FakeSync:
        return FakeSync(self)

    def shell(
        self,
        cmdargs: str,
        stream: bool = False,
        timeout: float | None = None,
        encoding: str | None = "utf-8",
    ) -> object:
        self.check()
        with self._lock:
            self.calls.append(cmdargs)
        if stream:
            argv = shlex.split(cmdargs)
            if argv and argv[0] == "screenrecord":
                record = FakeScreenrecord(argv, self.h264, self.h264_chunk, self.h264_ends)
                self.screenrecords.append(record)
                return record
            return self._instrument(argv)
        out = self._run(cmdargs)
        return out if encoding is None else out.decode(encoding).rstrip()

    def forward(self, local: str, remote: str, norebind: bool = False) -> None:
        self.check()
        self.forwards[local] = remote

    def forward_remove(self, local: str, raise_non_found: bool = True) -> None:
        self.check()
        self.removed_forwards.append(local)
        if self.forwards.pop(local, None) is None and raise_non_found:
            raise AdbError(f"listener '{local}' not found")

    def forward_list(self) -> list[object]:
        self.check()
        return [ForwardItem(self.serial, local, remote) for local, remote in self.forwards.items()]

    # -- behaviour --

    def _instrument(self, argv: list[str]) -> FakeInstrumentation:
        inst = FakeInstrumentation(argv)
        self.instrumentations.append(inst)
        if AGENT not in self.packages:
            inst.emit(
                "INSTRUMENTATION_STATUS: Error=Unable to find instrumentation info for: "
                f"ComponentInfo{{{AGENT}/{AGENT}.BridgeInstrumentation}}",
                "INSTRUMENTATION_STATUS: id=ActivityManagerService",
                "INSTRUMENTATION_STATUS_CODE: -1",
                f"android.util.AndroidException: INSTRUMENTATION_FAILED: {AGENT}/"
                ".BridgeInstrumentation",
            )
            inst.end()
        else:
            self.on_instrument(inst)
        return inst

    def _run(self, line: str) -> bytes:
        if line == "wm size":
            return self.wm_size.encode() + b"\n"
        if "uiautomator dump" in line:
            if self.dump_fails:
                return b"ERROR: could not get idle state.\n"
            return self.screen_xml
        if line.startswith("getprop ro.product.manufacturer"):
            return b"Google\nPixel 7\n14\nPhysical size: 1080x2400\n"
        argv = shlex.split(line)
        match argv:
            case ["pm", "list", "packages", "-3"]:  # installed by the user: ours
                return "".join(f"package:{p}\n" for p in self.packages).encode()
            case ["pm", "list", "packages", "-s"]:  # the system image's
                return "".join(f"package:{p}\n" for p in SYSTEM_PACKAGES).encode()
            case ["pm", "list", "packages", name]:
                found = [p for p in self.packages if name in p]
                return "".join(f"package:{p}\n" for p in found).encode()
            case ["dumpsys", "package", name]:
                pkg = self.packages.get(name)
                if pkg is None:
                    return f"Unable to find package: {name}\n".encode()
                return (
                    f"Packages:\n  Package [{name}] (5d1e2f3):\n    userId=10234\n"
                    f"    versionCode={pkg.version_code} minSdk=26 targetSdk=34\n"
                    f"    versionName={pkg.version_name}\n    flags=[ DEBUGGABLE HAS_CODE ]\n"
                ).encode()
            case ["pm", "path", name]:
                if name not in self.packages:
                    return b""
                return f"package:/data/app/~~Xk3==/{name}-Qw9==/base.apk\n".encode()
            case ["sha256sum", path]:
                if not self.has_sha256sum:
                    return b"/system/bin/sh: sha256sum: not found\n"
                data = self._file(path)
                if data is None:
                    return f"sha256sum: {path}: No such file or directory\n".encode()
                return f"{hashlib.sha256(data).hexdigest()}  {path}\n".encode()
            case ["pm", "install", *_flags, path]:
                if self.install_replies:
                    return self.install_replies.pop(0).encode()
                data = self.files.get(path)
                if data is None:
                    return b"Failure [INSTALL_FAILED_INVALID_URI]\n"
                self.install(data)
                return b"Success\n"
            case ["pm", "uninstall", name]:
                return b"Success\n" if self.packages.pop(name, None) else b"Failure\n"
            case ["rm", "-f", *paths]:
                for path in paths:
                    self.files.pop(path, None)
                return b""
            case ["am", "force-stop", name]:
                hold, self.hold_force_stop = self.hold_force_stop, None
                if hold is not None:
                    self.force_stop_held.set()
                    hold.wait(5)
                self.stopped.append(name)
                if name == AGENT:
                    for inst in self.instrumentations:
                        if not inst.ended:
                            inst.crash()
                return b""
            case ["input", *_rest]:
                return self._input()
            case ["screencap", "-p"]:
                return self.png
            case ["cmd", "connectivity", "airplane-mode", ("enable" | "disable") as how]:
                on = how == "enable"
                self.network["airplane_mode_on"] = int(on)
                if on:
                    self.network.update(wifi_on=0, mobile_data=0)
                return b""
            case ["svc", ("wifi" | "data") as radio, ("enable" | "disable") as how]:
                self.network["wifi_on" if radio == "wifi" else "mobile_data"] = int(how == "enable")
                return b""
            case ["settings", "get", "global", name] if name in self.network:
                return f"{self.network[name]}\n".encode()
            case ["date", "+%s.%N"]:
                return b"1764672000.000000000\n"
            case ["ps", "-A", "-o", "PID,NAME"]:
                return self.ps_text.encode()
            case ["logcat", "-d", "-v", "epoch", "-T", since, "-t", _count]:
                kept = [ln for ln in self.logcat if float(ln.split()[0]) >= float(since)]
                return "".join(f"{ln}\n" for ln in kept).encode()
            case ["logcat", "-d", "-b", "crash", "-v", "epoch"]:
                return self.crash_log.encode()
            case ["screenrecord", *rest]:
                path = next(a for a in rest if a.endswith(".mp4"))
                self.files[path] = self.mp4
                return b""
            case ["kill", "-INT", *_pid]:
                return b""
            case ["wm", "size"]:
                return b"Physical size: 1080x2400\n"
            case ["monkey", "-p", name, *_rest]:
                if name not in self.launchable:
                    return b"** No activities found to run, monkey aborted.\n"
                return b"Events injected: 1\n## Network stats: elapsed time=12ms\n"
            case ["am", "start", *_rest]:
                return b"Starting: Intent { act=android.intent.action.VIEW }\nStatus: ok\n"
        return b""

    def _file(self, path: str) -> bytes | None:
        if path.endswith("/base.apk"):
            name = path.split("/")[-2].split("-")[0]
            pkg = self.packages.get(name)
            return pkg.data if pkg else None
        return self.files.get(path)

    def _input(self) -> bytes:
        self.input_started.set()
        hold = self.hold_input
        if hold is not None:
            if not hold.wait(10):
                raise AdbTimeout("adb recv timeout")
            self.check()
        return b""


def _manifest_of(apk: bytes) -> bytes:
    import io
    import zipfile

    with zipfile.ZipFile(io.BytesIO(apk)) as z:
        return z.read("AndroidManifest.xml")


@dataclass
class FakeAdbClient:
    """A fake of ``adbutils.AdbClient``: ``track_devices`` and ``device``."""

    devices: dict[str, FakeDevice] = field(default_factory=dict)
    track_calls: int = 0
    _events: queue.Queue[object] = field(default_factory=queue.Queue)
    stopped: threading.Event = field(default_factory=threading.Event)

    def add(self, device: FakeDevice) -> FakeDevice:
        """A device that is plugged in before tracking starts."""
        self.devices[device.serial] = device
        return device

    def plug(self, device: FakeDevice) -> FakeDevice:
        device.plugged = True
        self.devices[device.serial] = device
        self._events.put(DeviceEvent(True, device.serial, "device"))
        return device

    def unplug(self, serial: str) -> None:
        self.devices[serial].unplug()
        self._events.put(DeviceEvent(False, serial, "absent"))

    def status(self, serial: str, status: str) -> None:
        self._events.put(DeviceEvent(True, serial, status))

    def kill_server(self) -> None:
        """The adb server dies: the tracking stream fails."""
        self._events.put(AdbError("connection reset by adb server"))

    def stop(self) -> None:
        self.stopped.set()

    def track_devices(self) -> Iterator[object]:
        self.track_calls += 1
        for serial, dev in list(self.devices.items()):
            if dev.plugged:
                yield DeviceEvent(True, serial, "device")
        while not self.stopped.is_set():
            try:
                event = self._events.get(timeout=0.02)
            except queue.Empty:
                continue
            if isinstance(event, BaseException):
                raise event
            yield event

    def device(self, serial: str) -> FakeDevice:
        dev = self.devices.get(serial)
        if dev is None:
            dev = FakeDevice(serial)
            dev.plugged = False
        return dev
