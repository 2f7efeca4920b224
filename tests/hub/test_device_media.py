"""Device media over real sockets against the simulated device: a package streamed from the
client and installed after the user's word (a wrong digest refused), the device log streamed
as actions happen (filtered, secrets masked, watchers told), and a screen recording encoded
to an MP4 that PyAV plays."""

from __future__ import annotations

import hashlib
import io
import json
import os
from functools import partial
from pathlib import Path

import anyio
import av
import pytest

from bridge.client import (
    ActionUnsupported,
    ConfirmationRequired,
    HubError,
    ProtocolFailure,
    connect,
)
from bridge.core.media import AppNotInstalled, AppNotRunning
from bridge.hub.app import AgentTarget
from bridge.wire.agent_link import AppCommand, InstalledApp, TerminateCommand
from bridge.wire.client_protocol import Confirm
from bridge.wire.device_media import AppUpload, AppUploadResult, LogsEvent
from bridge.wire.enums import AppAction, ErrorCode, MutationClass, VerificationResult
from tests.hub.hubfixture import CONTROLLER, OBSERVER, running_hub
from tests.hub.scripted_agent import TOKEN, serve_scripted, serve_scripted_gestures
from tests.hub.test_device_actions import FAST, centre_of, next_action, watched

pytestmark = pytest.mark.anyio

NOTES = {"appId": "com.example.notes", "name": "Notes"}


async def test_a_streamed_package_installs_after_the_users_word(tmp_path: Path) -> None:
    package = tmp_path / "notes.json"
    package.write_text(json.dumps(NOTES))
    async with running_hub(sim_options=FAST) as rh, watched(rh) as (actor, observer, events):
        dev = actor.device(rh.device_id)
        with pytest.raises(ConfirmationRequired) as asked:
            await dev.install_file(package)
        objection = asked.value.objection
        assert objection is not None
        # the confirmation names the same upload: it was kept for the approved retry
        upload = await dev.upload_file(package)
        with pytest.raises(ConfirmationRequired) as asked:
            await dev.install_upload(upload)
        assert asked.value.objection is not None
        answer = Confirm(objection=asked.value.objection.id, answer="approve")
        result = await dev.install_upload(upload, confirm=answer)
        assert result.verification is not None
        assert result.verification.evidence[0].what == "installed com.example.notes"
        listed = await observer.device(rh.device_id).apps()
        assert "com.example.notes" in [a.app_id for a in listed.apps]
        seen = [await next_action(events) for _ in range(3)]
        assert seen[-1].action == "APP_INSTALL" and seen[-1].message is not None
        assert rh.hub.service.uploads.held_bytes() > 0  # the first, unapproved upload
        with pytest.raises(ProtocolFailure, match="no upload"):
            await dev.install_upload(upload, confirm=answer)  # installed uploads are gone


async def test_a_wrong_sha256_is_refused_and_the_bytes_dropped(tmp_path: Path) -> None:
    data = json.dumps(NOTES).encode()
    async with running_hub(sim_options=FAST) as rh, connect(rh.url, token=CONTROLLER) as hub:
        dev = hub.device(rh.device_id)
        wrong = AppUpload(
            id=hub.next_id(), device=rh.device_id, size=len(data), sha256="0" * 64, offset=0,
            data=data, name="notes.json",
        )  # fmt: skip
        with pytest.raises(ProtocolFailure, match="its sha256 is"):
            await hub.call(wrong, AppUploadResult)
        assert rh.hub.service.uploads.held_bytes() == 0
        package = tmp_path / "notes.json"
        package.write_bytes(data)
        with pytest.raises(ValueError, match="not the 0000"):
            await dev.install_file(package, sha256="0" * 64)
        with pytest.raises(ValueError, match="no such file"):
            await dev.install_file(tmp_path / "absent.apk")
        right = hashlib.sha256(data).hexdigest()
        big = AppUpload(
            id=hub.next_id(), device=rh.device_id, size=len(data), sha256=right, offset=0,
            data=data + b"x", name="notes.json",
        )  # fmt: skip
        with pytest.raises(ProtocolFailure, match="more bytes than the size"):
            await hub.call(big, AppUploadResult)
        async with connect(rh.url, token=OBSERVER) as observer:
            with pytest.raises(ProtocolFailure, match="observer"):
                await observer.call(
                    AppUpload(
                        id=observer.next_id(),
                        device=rh.device_id,
                        size=len(data),
                        sha256=right,
                        offset=0,
                        data=data,
                    ),
                    AppUploadResult,
                )


async def _lines_until(events: object, needle: str) -> list[LogsEvent]:
    got: list[LogsEvent] = []
    with anyio.fail_after(10):
        async for event in events:  # type: ignore[attr-defined]
            got.append(event)
            if any(needle in line.text for line in event.lines):
                return got
    raise AssertionError("log ended")


async def test_the_log_streams_lines_as_actions_happen_with_secrets_masked() -> None:
    os.environ["MOBRIDGE_SECRET_LOG_PW"] = "log-secret-42"
    async with (
        running_hub(sim_options=FAST, sim_scene="login") as rh,
        watched(rh) as (actor, observer, events),
    ):
        dev = actor.device(rh.device_id)
        reader = observer.device(rh.device_id)
        async with reader.logs() as lines, reader.logs(grep=r"commitText", level="info") as typed:
            opened = await next_action(events)
            assert opened.action == "LOGS_SUBSCRIBE"
            x, y = await centre_of(actor, rh.device_id, "Username")
            await dev.tap_at(x, y)
            got = await _lines_until(lines, f"tap at {x},{y}")
            assert got[-1].lines[-1].app == "dev.mobridge.demo"
            await dev.type_focused(value_ref="secret://log_pw")
            masked = await _lines_until(typed, "commitText")
            text = " ".join(line.text for e in masked for line in e.lines)
            assert "log-secret-42" not in text and "••••••••" in text
            assert all("tap at" not in line.text for e in masked for line in e.lines)
        with pytest.raises(ProtocolFailure, match="lookahead"):
            async with reader.logs(grep="a(?=b)"):
                pass


async def test_a_recording_is_an_mp4_pyav_plays() -> None:
    async with running_hub(sim_options=FAST) as rh, connect(rh.url, token=OBSERVER) as hub:
        dev = hub.device(rh.device_id)
        made, data = await dev.record(2, fps=5)
        assert made.state == "stopped" and made.bytes == len(data) > 0
        container = av.open(io.BytesIO(data))
        stream = container.streams.video[0]
        assert stream.codec_context.name == "h264"
        frames = sum(1 for _ in container.decode(video=0))
        assert frames == made.frames >= 2
        with pytest.raises(ValueError, match="1 to 600"):
            await dev.record(0)
        started = await dev.start_recording(max_bytes=1024)
        with anyio.fail_after(20):
            stopped = await dev.stop_recording(started.recording)
        assert stopped.frames >= 1
        with pytest.raises(ProtocolFailure, match="no recording"):
            await dev.stop_recording("r_404")


class HubSideApps:
    """An app manager of the device layer (an iPhone's installation proxy, ``simctl``)."""

    def __init__(self) -> None:
        self.apps: dict[str, str] = {"com.apple.Preferences": "Settings"}
        self.installed_from: list[bytes] = []

    async def list_apps(self) -> list[InstalledApp]:
        return [InstalledApp(app_id=k, name=v) for k, v in self.apps.items()]

    async def install(self, path: Path) -> str | None:
        data = await anyio.Path(path).read_bytes()
        self.installed_from.append(data)
        app = json.loads(data)["appId"]
        self.apps[app] = "Notes"
        return str(app)

    async def uninstall(self, app_id: str) -> None:
        if self.apps.pop(app_id, None) is None:
            raise RuntimeError(f"{app_id} is not installed")


class HubSideProcesses:
    """Process control of the device layer (an iPhone's DVT): launch / terminate by app id."""

    def __init__(self) -> None:
        self.running: dict[str, int] = {"com.example.notes": 300}
        self.launched: list[str] = []

    async def launch(self, app_id: str) -> int:
        if app_id not in ("com.example.bank", "com.example.notes"):
            raise AppNotInstalled(app_id)
        self.launched.append(app_id)
        self.running[app_id] = 400 + len(self.launched)
        return self.running[app_id]

    async def terminate(self, app_id: str) -> int:
        if self.running.pop(app_id, None) is None:
            raise AppNotRunning(app_id)
        return 1


class AppsOnlyMedia:
    def __init__(self) -> None:
        self.manager = HubSideApps()
        self.procs = HubSideProcesses()

    def log_source(self) -> None:
        return None

    def recorder(self, fps: int) -> None:
        return None

    async def crashes(self, app: str | None) -> list[object]:
        return []

    def app_manager(self) -> HubSideApps:
        return self.manager

    def processes(self) -> HubSideProcesses:
        return self.procs


async def test_a_device_layer_installs_lists_and_removes_apps_its_agent_cannot(
    tmp_path: Path,
) -> None:
    package = tmp_path / "notes.json"
    package.write_text(json.dumps(NOTES))
    media = AppsOnlyMedia()
    async with anyio.create_task_group() as tg:
        port = await tg.start(serve_scripted_gestures)
        agent = AgentTarget(f"ws://127.0.0.1:{port}", TOKEN, media=media)  # type: ignore[arg-type]
        async with (
            running_hub(sim=False, agents=[agent]) as rh,
            connect(rh.url, token=CONTROLLER, name="a") as hub,
        ):
            dev = hub.device(rh.device_id)
            listed = await dev.apps()
            assert [a.app_id for a in listed.apps] == ["com.apple.Preferences"]
            upload = await dev.upload_file(package)
            with pytest.raises(ConfirmationRequired) as asked:
                await dev.install_upload(upload)
            assert asked.value.objection is not None
            yes = Confirm(objection=asked.value.objection.id, answer="approve")
            await dev.install_upload(upload, confirm=yes)
            assert media.manager.installed_from == [package.read_bytes()]
            assert "com.example.notes" in [a.app_id for a in (await dev.apps()).apps]
            with pytest.raises(ConfirmationRequired) as asked:
                await dev.uninstall_app("com.example.notes")
            assert asked.value.objection is not None
            yes = Confirm(objection=asked.value.objection.id, answer="approve")
            await dev.uninstall_app("com.example.notes", confirm=yes)
            assert "com.example.notes" not in media.manager.apps
            with pytest.raises(ActionUnsupported, match="offers no log"):
                async with dev.logs():
                    pass
        tg.cancel_scope.cancel()


async def test_a_device_layer_launches_and_terminates_apps_its_agent_cannot() -> None:
    """The agent announces neither ``app`` nor ``terminate`` (an iPhone's runner that cannot):
    the device layer's process control does them inside the same plans (approval, events)."""
    media = AppsOnlyMedia()
    async with anyio.create_task_group() as tg:
        port = await tg.start(serve_scripted_gestures)
        agent = AgentTarget(f"ws://127.0.0.1:{port}", TOKEN, media=media)  # type: ignore[arg-type]
        async with (
            running_hub(sim=False, agents=[agent]) as rh,
            watched(rh) as (hub, _, events),
        ):
            dev = hub.device(rh.device_id)
            opened = await dev.app(AppAction.APP_OPEN, "com.example.bank")
            assert media.procs.launched == ["com.example.bank"]
            assert opened.verification is not None  # the front app, from the next capture
            assert opened.verification.result is VerificationResult.CONDITION_MET
            event = await next_action(events)
            assert (event.action, event.result) == ("APP_OPEN", opened)
            with pytest.raises(HubError) as missing:
                await dev.app(AppAction.APP_OPEN, "com.example.missing")
            assert missing.value.code is ErrorCode.ACTION_REJECTED
            assert f"`mobridge apps {rh.device_id}`" in missing.value.envelope.message
            assert "\n" not in missing.value.envelope.message
            assert (await next_action(events)).error is ErrorCode.ACTION_REJECTED
            with pytest.raises(ConfirmationRequired) as asked:
                await dev.terminate_app("com.example.notes")
            assert asked.value.objection is not None
            yes = Confirm(objection=asked.value.objection.id, answer="approve")
            gone = await dev.terminate_app("com.example.notes", confirm=yes)
            assert gone.mutation_class is MutationClass.DESTRUCTIVE
            assert "com.example.notes" not in media.procs.running
            assert gone.verification is not None
            assert gone.verification.result is VerificationResult.CONDITION_MET
            with pytest.raises(ConfirmationRequired) as asked:
                await dev.terminate_app("com.example.notes")
            assert asked.value.objection is not None
            yes = Confirm(objection=asked.value.objection.id, answer="approve")
            with pytest.raises(HubError) as idle:
                await dev.terminate_app("com.example.notes", confirm=yes)
            assert idle.value.code is ErrorCode.NO_EFFECT
            assert idle.value.envelope.message == (
                f"com.example.notes is not running on {rh.device_id}: nothing was terminated"
            )
        tg.cancel_scope.cancel()


async def test_an_agent_that_answers_unsupported_hands_launch_and_terminate_to_the_layer() -> None:
    """The agent announces ``app`` and ``terminate`` and is asked first; it answers
    UNSUPPORTED, so the device layer does them in the same action."""
    media = AppsOnlyMedia()
    caps = ("tree", "node_action", "gesture", "app", "terminate")
    serve = partial(serve_scripted, capabilities=caps, unsupported=(AppCommand, TerminateCommand))
    async with anyio.create_task_group() as tg:
        port = await tg.start(serve)
        agent = AgentTarget(f"ws://127.0.0.1:{port}", TOKEN, media=media)  # type: ignore[arg-type]
        async with (
            running_hub(sim=False, agents=[agent]) as rh,
            connect(rh.url, token=CONTROLLER, name="a") as hub,
        ):
            dev = hub.device(rh.device_id)
            opened = await dev.app(AppAction.APP_OPEN, "com.example.bank")
            assert media.procs.launched == ["com.example.bank"]
            assert opened.verification is not None
            assert opened.verification.result is VerificationResult.CONDITION_MET
            with pytest.raises(ConfirmationRequired) as asked:
                await dev.terminate_app("com.example.notes")
            assert asked.value.objection is not None
            yes = Confirm(objection=asked.value.objection.id, answer="approve")
            await dev.terminate_app("com.example.notes", confirm=yes)
            assert "com.example.notes" not in media.procs.running
        tg.cancel_scope.cancel()


async def test_without_the_media_extra_a_recording_is_refused_naming_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PyAV is the ``media`` extra: a hub without it serves, and refuses a screenshot
    recording in one line that names the extra (and, for a hub started before it was
    installed, the restart)."""
    from bridge.hub import recording

    monkeypatch.setattr(
        recording, "media_extra_missing", lambda: "PyAV (the media extra) is not installed"
    )
    async with running_hub() as rh, connect(rh.url, token=CONTROLLER, name="rec") as hub:
        dev = hub.device(rh.device_id)
        with pytest.raises(HubError) as refused:
            await dev.start_recording(seconds=1)
        assert refused.value.code is ErrorCode.ACTION_UNSUPPORTED
        assert "media extra" in str(refused.value)
        assert "MOBRIDGE_EXTRAS=media scripts/run" in " ".join(refused.value.recovery)
        assert "restart the hub" in " ".join(refused.value.recovery)
        assert (await dev.snapshot()).snapshot.nodes  # the hub serves on
