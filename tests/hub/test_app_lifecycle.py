"""App lifecycle over real sockets against the simulated device: the app list, terminating,
installing from the hub's install directory and uninstalling — each privileged action needs
the user's confirmation, critical apps are never touched, and every outcome is broadcast."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import anyio
import pytest

from bridge.client import (
    ActionUnsupported,
    ConfirmationRequired,
    HubError,
    PolicyBlockedError,
    ProtocolFailure,
    connect,
)
from bridge.hub.app import AgentTarget
from bridge.wire.action import ActionResult, Verify
from bridge.wire.client_protocol import Cancel, Confirm, PongResult
from bridge.wire.conditions import ScreenShown
from bridge.wire.device_control import KeyPress
from bridge.wire.enums import (
    DispatchStatus,
    ErrorCode,
    KeyName,
    MutationClass,
    ProtocolErrorCode,
    VerificationPolicy,
    VerificationResult,
)
from tests.hub.hubfixture import CONTROLLER, running_hub
from tests.hub.scripted_agent import TOKEN, serve_scripted_gestures
from tests.hub.test_device_actions import FAST, next_action, watched

pytestmark = pytest.mark.anyio

NOTES = {"appId": "com.example.notes", "name": "Notes"}


async def confirmed(call: object, retry: object) -> ActionResult:
    """Run ``call()``; it must be refused pending confirmation; ``retry(confirm)`` approves."""
    with pytest.raises(ConfirmationRequired) as raised:
        await call()  # type: ignore[operator]
    objection = raised.value.objection
    assert objection is not None and objection.answerable
    return await retry(Confirm(objection=objection.id, answer="approve"))  # type: ignore[operator,no-any-return]


async def test_terminate_kills_the_app_after_the_users_word_and_says_it_is_gone() -> None:
    async with running_hub(sim_options=FAST) as rh, watched(rh) as (actor, _, events):
        dev = actor.device(rh.device_id)
        result = await confirmed(
            lambda: dev.terminate_app("dev.mobridge.demo"),
            lambda c: dev.terminate_app("dev.mobridge.demo", confirm=c),
        )
        assert result.mutation_class is MutationClass.DESTRUCTIVE
        assert result.observation.window_changed
        assert result.verification is not None
        assert result.verification.result is VerificationResult.CONDITION_MET
        refused = await next_action(events)
        assert (refused.verb, refused.action, refused.error) == (
            "app",
            "APP_TERMINATE",
            ErrorCode.USER_CONFIRMATION_REQUIRED,
        )
        done = await next_action(events)
        assert done.result == result and done.message == "APP_TERMINATE dev.mobridge.demo"
        snap = (await dev.snapshot()).snapshot
        assert snap.app_id == "dev.mobridge.launcher"
        # the process died: bringing it back starts on its first screen, not where it was
        await dev.app("APP_BRING_TO_FRONT", "dev.mobridge.demo")
        assert (await dev.wait(ScreenShown(name="menu"), 2000)).result.value == "CONDITION_MET"


async def test_clear_wipes_the_apps_data_after_the_users_word() -> None:
    async with running_hub(sim_options=FAST) as rh, watched(rh) as (actor, _, events):
        dev = actor.device(rh.device_id)
        await dev.app("APP_DEEP_LINK", None, "mobridge-demo://settings")
        assert (await next_action(events)).action == "APP_DEEP_LINK"
        assert (await dev.wait(ScreenShown(name="settings"), 2000)).result.value == "CONDITION_MET"
        result = await confirmed(
            lambda: dev.clear_app("dev.mobridge.demo"),
            lambda c: dev.clear_app("dev.mobridge.demo", confirm=c),
        )
        assert result.mutation_class is MutationClass.DESTRUCTIVE
        assert result.verification is not None
        assert result.verification.result is VerificationResult.CONDITION_MET
        refused = await next_action(events)
        assert (refused.verb, refused.action, refused.error) == (
            "app",
            "APP_CLEAR",
            ErrorCode.USER_CONFIRMATION_REQUIRED,
        )
        done = await next_action(events)
        assert done.result == result and done.message == "APP_CLEAR dev.mobridge.demo"
        assert (await dev.snapshot()).snapshot.app_id == "dev.mobridge.launcher"
        await dev.app("APP_BRING_TO_FRONT", "dev.mobridge.demo")
        assert (await dev.wait(ScreenShown(name="menu"), 2000)).result.value == "CONDITION_MET"
        with pytest.raises(PolicyBlockedError, match="critical-app list"):
            await dev.clear_app("com.android.systemui")


async def test_an_approval_is_bound_to_the_app_it_was_given_for() -> None:
    async with running_hub(sim_options=FAST) as rh:
        async with connect(rh.url, token=CONTROLLER, name="a") as hub:
            dev = hub.device(rh.device_id)
            with pytest.raises(ConfirmationRequired) as raised:
                await dev.terminate_app("dev.mobridge.demo")
            assert raised.value.objection is not None
            answer = Confirm(objection=raised.value.objection.id, answer="approve")
            with pytest.raises(ProtocolFailure, match="different action"):
                await dev.uninstall_app("dev.mobridge.demo", confirm=answer)


async def test_critical_and_unknown_apps_are_refused_without_a_dispatch() -> None:
    async with running_hub(sim_options=FAST) as rh, watched(rh) as (actor, _, events):
        dev = actor.device(rh.device_id)
        for app in ("dev.mobridge.launcher", "com.android.systemui", "dev.mobridge.agent.test"):
            with pytest.raises(PolicyBlockedError, match="critical-app list"):
                await dev.terminate_app(app)
            assert (await next_action(events)).error is ErrorCode.POLICY_BLOCKED
        with pytest.raises(HubError) as unknown:
            await confirmed(
                lambda: dev.terminate_app("com.example.absent"),
                lambda c: dev.terminate_app("com.example.absent", confirm=c),
            )
        assert unknown.value.code is ErrorCode.ACTION_REJECTED
        assert "not installed" in unknown.value.envelope.message
        with pytest.raises(ProtocolFailure) as bad_id:
            await dev.terminate_app("no dots here")
        assert bad_id.value.code is ProtocolErrorCode.INVALID_PARAMS


async def test_installing_is_off_unless_the_hub_has_an_install_directory() -> None:
    async with running_hub(sim_options=FAST) as rh:
        async with connect(rh.url, token=CONTROLLER, name="a") as hub:
            with pytest.raises(PolicyBlockedError, match="disabled"):
                await hub.device(rh.device_id).install_app("notes.json")


async def test_install_and_uninstall_from_the_install_directory(tmp_path: Path) -> None:
    package = tmp_path / "notes.json"
    package.write_text(json.dumps(NOTES))
    (tmp_path / "broken.json").write_text("not a package")
    digest = hashlib.sha256(package.read_bytes()).hexdigest()
    outside = tmp_path.parent / f"{tmp_path.name}-outside.json"
    outside.write_text(json.dumps(NOTES))
    (tmp_path / "link.json").symlink_to(outside)
    async with (
        running_hub(sim_options=FAST, install_dir=tmp_path) as rh,
        watched(rh) as (actor, observer, events),
    ):
        dev = actor.device(rh.device_id)
        for name, problem in (
            ("absent.json", "no package"),
            ("link.json", "no package"),  # a symlink out of the directory is not in it
            ("../notes.json", r"matching regex .* at `\$.package`"),
        ):
            with pytest.raises(ProtocolFailure, match=problem):
                await dev.install_app(name)
        with pytest.raises(ProtocolFailure, match="does not have the sha256"):
            await dev.install_app("notes.json", sha256="0" * 64)
        result = await confirmed(
            lambda: dev.install_app("notes.json", sha256=digest),
            lambda c: dev.install_app("notes.json", sha256=digest, confirm=c),
        )
        assert result.mutation_class is MutationClass.EXTERNAL_SIDE_EFFECT
        assert result.verification is not None
        assert result.verification.result is VerificationResult.CONDITION_MET
        assert result.verification.evidence[0].what == "installed com.example.notes"
        events_seen = [await next_action(events), await next_action(events)]
        assert events_seen[0].error is ErrorCode.USER_CONFIRMATION_REQUIRED
        assert events_seen[1].message == "APP_INSTALL notes.json (com.example.notes)"
        listed = await observer.device(rh.device_id).apps()
        notes = [a for a in listed.apps if a.app_id == "com.example.notes"]
        assert notes and notes[0].name == "Notes" and not notes[0].system
        with pytest.raises(HubError) as broken:
            await confirmed(
                lambda: dev.install_app("broken.json"),
                lambda c: dev.install_app("broken.json", confirm=c),
            )
        assert broken.value.code is ErrorCode.ACTION_REJECTED
        assert "not a simulated package" in broken.value.envelope.message
        gone = await confirmed(
            lambda: dev.uninstall_app("com.example.notes"),
            lambda c: dev.uninstall_app("com.example.notes", confirm=c),
        )
        assert gone.mutation_class is MutationClass.DESTRUCTIVE
        assert gone.verification is not None
        assert gone.verification.result is VerificationResult.CONDITION_MET
        listed = await dev.apps()
        assert "com.example.notes" not in {a.app_id for a in listed.apps}
        with pytest.raises(HubError) as system:
            await confirmed(
                lambda: dev.uninstall_app("dev.mobridge.demo"),
                lambda c: dev.uninstall_app("dev.mobridge.demo", confirm=c),
            )
        assert system.value.code is ErrorCode.ACTION_REJECTED
        assert "system image" in system.value.envelope.message


async def test_an_agent_attached_by_url_cannot_receive_a_package(tmp_path: Path) -> None:
    (tmp_path / "notes.json").write_text(json.dumps(NOTES))
    async with anyio.create_task_group() as tg:
        port = await tg.start(serve_scripted_gestures)
        agent = AgentTarget(f"ws://127.0.0.1:{port}", TOKEN)
        async with (
            running_hub(sim=False, agents=[agent], install_dir=tmp_path) as rh,
            connect(rh.url, token=CONTROLLER, name="a") as hub,
        ):
            dev = hub.device(rh.device_id)
            with pytest.raises(ActionUnsupported, match="does not offer install"):
                await dev.install_app("notes.json")
        tg.cancel_scope.cancel()


async def test_a_queued_device_action_can_be_cancelled_before_it_is_dispatched() -> None:
    async with running_hub(sim_options=FAST) as rh:
        async with connect(rh.url, token=CONTROLLER, name="a") as hub:
            dev = hub.device(rh.device_id)
            never = Verify(
                policy=VerificationPolicy.EXPLICIT_CONDITION,
                expected=ScreenShown(name="nowhere"),
                timeout_ms=1500,
            )
            outcome: dict[str, object] = {}
            key = KeyPress(id="queued-key", device=rh.device_id, key=KeyName.TAB)
            # Under a lease an action holds the queue while it verifies (without one, only
            # while it dispatches: issue 27's fair queue).
            await dev.acquire_lease()

            async def hold() -> None:  # keeps the device's queue busy for 1.5 s
                outcome["hold"] = await dev.gesture("tap", [(5, 5)], verify=never)

            async def queued_key() -> None:
                try:
                    await hub.call(key, ActionResult)
                except ProtocolFailure as exc:
                    outcome["key"] = exc

            async with anyio.create_task_group() as tg:
                tg.start_soon(hold)
                await anyio.sleep(0.2)
                tg.start_soon(queued_key)
                await anyio.sleep(0.2)
                await hub.call(Cancel(id="cancel-it", request="queued-key"), PongResult)
            failure = outcome["key"]
            assert isinstance(failure, ProtocolFailure)
            assert failure.code is ProtocolErrorCode.CANCELLED
            assert "nothing was dispatched" in failure.message
            held = outcome["hold"]
            assert isinstance(held, ActionResult)
            assert held.verification is not None
            assert held.verification.result is VerificationResult.CONDITION_NOT_MET
            assert held.dispatch.status is DispatchStatus.DISPATCHED
