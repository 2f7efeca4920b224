"""The blank-canvas row runs a real ``mobridge serve --vision`` against a canvas agent for a
few seconds and reports what it saw (the 10-minute figure itself is the bench's)."""

from __future__ import annotations

import sys

import anyio
import pytest

from tests.skips import need_vision


@need_vision
@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc (Linux only)")
def test_the_blank_canvas_row_samples_a_real_hub() -> None:
    from bridge.bench.vision_blank import report, soak

    got = anyio.run(soak, 4.0, 2.0)
    assert got["alive"] and got["always_online"], got
    assert got["screenshots"] >= 1
    assert len(got["samples"]) >= 2 and all(10 < rss < 2000 for _, rss, _ in got["samples"])
    (head, figures) = report(4.0, 2.0, got)
    assert head.startswith("vision blank canvas: serve --vision") and "RSS median" in figures
