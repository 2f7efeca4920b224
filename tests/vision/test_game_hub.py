"""The vision path end to end on the simulated game (real hub, real sockets, real OCR): the
canvas's words become vision nodes under the CANVAS, found by text, tapped by coordinates,
waited for, and their disappearance is evidence; the snapshot still conforms to the reference.
Without the extra, a client asking for vision gets one line saying how to enable it."""

from __future__ import annotations

import msgspec
import pytest

from bridge.client import ProtocolFailure, build_query, connect
from bridge.vision import ENABLE_HINT, engine
from bridge.wire.conditions import Absent, Present
from bridge.wire.enums import (
    FallbackType,
    ProtocolErrorCode,
    Role,
    Source,
    VerificationResult,
)
from bridge.wire.query import SemanticQuery, TextMatch
from tests.conftest import SHARED_DIR
from tests.hub.hubfixture import CONTROLLER, running_hub
from tests.skips import need_vision

pytestmark = pytest.mark.anyio

PLAY = build_query(text="PLAY")


def present(words: str) -> Present:
    return Present(query=SemanticQuery(text=TextMatch(value=words)))


@need_vision
async def test_find_tap_wait_on_the_game_canvas() -> None:
    async with running_hub(vision=True, sim_scene="game") as rh:
        async with connect(rh.url, token=CONTROLLER, name="vision-test") as hub:
            dev = hub.device(rh.device_id)
            seen = await dev.wait(present("PLAY"), timeout_ms=20_000)
            assert seen.result is VerificationResult.CONDITION_MET
            found = await dev.find(PLAY, sources=(Source.VISION,))
            assert found.count == 1
            match = found.matches[0]
            assert match.node.source is Source.VISION and match.node.role is Role.BUTTON
            assert 0.5 <= match.node.confidence <= 1.0
            assert match.ref.source is not None and match.ref.source.value == "VISION"
            full = (await dev.snapshot(compact=False)).snapshot
            canvas = next(n for n in full.nodes if n.role is Role.CANVAS)
            assert match.node.parent_id == canvas.node_id
            assert (await dev.find(PLAY, sources=(Source.ACCESSIBILITY,))).count == 0
            resolved = await dev.resolve(match.ref)
            assert "weaker evidence than accessibility" in resolved.locator
            assert (await dev.wait(present("SCORE 120"), timeout_ms=10_000)).result is (
                VerificationResult.CONDITION_MET
            )
            result = await dev.tap(match.ref)
            assert result.dispatch.fallback_type is FallbackType.VISION_COORDINATE
            after = await dev.wait(present("SCORE 130"), timeout_ms=20_000)
            assert after.result is VerificationResult.CONDITION_MET
            gone = await dev.wait(
                Absent(query=SemanticQuery(text=TextMatch(value="SCORE 120"))), timeout_ms=10_000
            )
            assert gone.result is VerificationResult.CONDITION_MET
            stats = rh.hub.service.vision
            assert stats is not None and stats.reader.stats.passes >= 2
            seen = rh.hub.service.statistics()["vision"]
            assert seen["engine"] == "ppocr" and seen["ocr_passes"] >= 2
            if SHARED_DIR.is_dir():
                from tests.wire.schemas import reference_validator

                doc = msgspec.json.decode(
                    msgspec.json.encode((await dev.snapshot(compact=False)).snapshot)
                )
                errors = list(reference_validator("snapshot").iter_errors(doc))
                assert not errors, errors[:3]


async def test_without_the_extra_asking_for_vision_says_how_to_enable_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(engine, "_loaded", ENABLE_HINT)  # as if the extra were not installed
    async with running_hub(sim_scene="game") as rh:
        assert rh.hub.service.vision is None
        async with connect(rh.url, token=CONTROLLER, name="vision-test") as hub:
            dev = hub.device(rh.device_id)
            assert (await dev.find(build_query(role="CANVAS"))).count == 1  # as today
            with pytest.raises(ProtocolFailure) as refused:
                await dev.find(PLAY, sources=(Source.VISION,))
            assert refused.value.code is ProtocolErrorCode.INVALID_PARAMS
            assert "pip install 'mobridge[vision]'" in refused.value.message
            assert "\n" not in refused.value.message
        assert rh.hub.service.vision is None
