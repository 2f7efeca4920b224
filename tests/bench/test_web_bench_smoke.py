"""Smoke test of the web benchmark: the merge, client and delta rows print their figures
(structure only, never a timing)."""

from __future__ import annotations

import re

from bridge.bench import web
from tests.skips import need_web_chromium


@need_web_chromium
def test_rows_print_the_merge_the_client_and_the_delta() -> None:
    text = "\n".join(web.run(quick=True))
    assert re.search(r"web merge: 500-element page \((\d+) web nodes merged\)", text), text
    assert re.search(r"p50 read \(3 CDP calls\) +[\d.]+ ms .* whole +[\d.]+ ms", text), text
    assert re.search(r"cdp round trip p50: thin client +[\d.]+ ms", text), text
    assert re.search(r"p50 +[\d.]+ ms +p90 +[\d.]+ ms +max +[\d.]+ ms \(target <= 50 ms", text)
    merged = re.search(r"\((\d+) web nodes merged\)", text)
    assert merged is not None and int(merged.group(1)) >= 500
