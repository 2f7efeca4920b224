"""The simulated device draws a filled password field as a fixed row of dots (issue 39): ink
appears where the empty field showed only its light hint, and the same ink for any length (the
picture never tells how long the password is). The device's own picture is read here: what the
hub hands out has the field blacked out besides (issue 33's pixel masking), also checked."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bridge.client import build_query, connect
from bridge.devices.sim.png import render_scene
from tests.hub.hubfixture import CONTROLLER, running_hub

pytestmark = [pytest.mark.anyio]


async def test_the_simulated_device_draws_a_filled_password_field_as_dots() -> None:
    async with running_hub(sim_scene="login") as rh:
        async with connect(rh.url, token=CONTROLLER, name="typist") as hub:
            dev = hub.device(rh.device_id)
            snap = (await dev.snapshot(compact=False)).snapshot
            field = next(n for n in snap.nodes if n.hint == "Password")
            root = snap.nodes[0].bounds
            password = build_query(resource_id="password")

            sim = rh.hub.sims[0]

            def dark(picture: Image.Image) -> int:
                scale = picture.width / (root[2] - root[0])
                left, top, right, bottom = (round(v * scale) for v in field.bounds)
                box = picture.crop((left, top, right, bottom))
                return sum(1 for p in box.getdata() if p < 100)

            async def ink() -> int:
                """Dark pixels of the field in the device's own picture (before the hub)."""
                png = render_scene(sim.device.scene(sim.now()), sim.config.screenshot_scale)
                return dark(Image.open(io.BytesIO(png)).convert("L"))

            async def handed_out() -> tuple[int, int]:
                """(dark pixels, all pixels) of the field in the picture the hub hands out."""
                shot = await dev.screenshot(fresh=True)
                picture = Image.open(io.BytesIO(await dev.fetch_screenshot(shot))).convert("L")
                scale = picture.width / (root[2] - root[0])
                left, top, right, bottom = (round(v * scale) for v in field.bounds)
                return dark(picture), (right - left) * (bottom - top)

            empty = await ink()
            await dev.type_text(password, "x")
            one = await ink()
            await dev.type_text(password, "a-much-longer-password")
            long = await ink()
            masked, area = await handed_out()
        assert one > empty  # dots where there were none (the hint is light grey)
        assert one == long  # the same dots whatever the length
        assert masked == area  # the hub hands the field out blacked out
