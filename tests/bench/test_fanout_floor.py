"""The fan-out floor's frames (``bridge.bench.fanout_floor``): the shape the hub sent, with the
floor's own generations, so that its subscribers decode what they decode from the hub."""

from __future__ import annotations

import json

import pytest

from bridge.bench.fanout_floor import MAX_SIZE, Floor, usable

DELTA = json.dumps(
    {
        "type": "delta",
        "subscription": "d:compact",
        "seq": 3,
        "generation": 1796514027687293,
        "upsert": [{"nodeId": "n7", "text": "Count 5", "generation": 4}],
    },
    separators=(",", ":"),
)


def test_the_floor_sends_the_hubs_frame_with_its_own_generations() -> None:
    floor = Floor()
    first, second = json.loads(floor.payload(0, DELTA)), json.loads(floor.payload(0, DELTA))
    assert (first["generation"], second["generation"]) == (1, 2)
    assert first["upsert"] == json.loads(DELTA)["upsert"], "only the frame's own generation"
    assert {k: v for k, v in first.items() if k != "generation"} == {
        k: v for k, v in json.loads(DELTA).items() if k != "generation"
    }


def test_without_a_frame_the_floor_pads_to_the_size_asked() -> None:
    floor = Floor()
    data = floor.payload(700)
    assert len(data) == 700
    assert json.loads(data)["generation"] == 1


def test_a_template_that_is_no_delta_falls_back_to_padding() -> None:
    assert usable(DELTA) == DELTA
    assert usable("not a frame") is None
    assert usable(None) is None
    assert usable(DELTA[:-1] + " " * MAX_SIZE + "}") is None, "over the size bound"


@pytest.mark.anyio
async def test_a_series_numbers_its_changes_whatever_the_template() -> None:
    floor = Floor()  # no subscribers: the frames go nowhere, the answer still lists them
    answer = await floor.send(2, 1000.0, 64, template="not a frame")
    assert [g for g, _ in answer["sent"]] == [1, 2]
    answer = await floor.send(1, 1000.0, 64, template=DELTA)
    assert [g for g, _ in answer["sent"]] == [3]
