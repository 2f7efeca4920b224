"""Smoke test of the hub benchmark: a tiny run over real sockets prints a table per section.

Asserts the structure (every section present, numbers where numbers belong, every delta
delivered) and never a timing.
"""

from __future__ import annotations

import re

import pytest

from bridge.bench import hub as hub_bench

NUM = r"(\d+(?:\.\d+)?)"
TINY = hub_bench.Sizes(
    subscribers=(1, 3),
    changes=5,
    actions=5,
    byte_samples=3,
    poll_changes=3,
    poll_interval_s=0.05,
)


@pytest.fixture(scope="module")
def lines() -> list[str]:
    return hub_bench.measure(TINY)


def _section(lines: list[str], title: str) -> list[str]:
    """The lines of the section whose first line starts with ``title``."""
    starts = [i for i, line in enumerate(lines) if line.startswith(title)]
    assert len(starts) == 1, (title, lines)
    body: list[str] = []
    for line in lines[starts[0] + 1 :]:
        if not line:
            break
        body.append(line)
    return body


def test_fan_out_has_a_row_per_subscriber_count_and_loses_nothing(lines: list[str]) -> None:
    body = _section(lines, "delta fan-out")
    rows = [re.match(rf"^\s+(\d+)\s+{NUM}\s+{NUM}\s+{NUM}\s+{NUM}\s+{NUM}\s+(\d+)\s+(\d+)$", r)
            for r in body]  # fmt: skip
    found = [m for m in rows if m]
    assert [int(m.group(1)) for m in found] == list(TINY.subscribers)
    for m in found:
        p50, p99 = float(m.group(2)), float(m.group(3))
        assert 0 < p50 <= p99
        assert m.group(7) == "0", "every subscriber received every delta"


def test_bytes_table_covers_both_formats_and_views(lines: list[str]) -> None:
    body = _section(lines, "bytes per change")
    seen = set()
    for row in body:
        m = re.match(rf"^\s+(json|msgpack)\s+(compact|full)\s+{NUM}\s+([\d,]+)\s+{NUM}x", row)
        if m:
            delta, snapshot = float(m.group(3)), int(m.group(4).replace(",", ""))
            assert 0 < delta < snapshot, "a one-field delta is smaller than the snapshot"
            assert float(m.group(5)) > 1
            seen.add((m.group(1), m.group(2)))
    assert seen == {(f, v) for f in ("json", "msgpack") for v in ("compact", "full")}


def test_action_section_reports_total_agent_and_overhead(lines: list[str]) -> None:
    body = _section(lines, "act round trip")
    values = {}
    for row in body:
        m = re.match(rf"^\s+(total|agent|hub overhead)\s+(-?{NUM})\s+(-?{NUM})$", row)
        if m:
            values[m.group(1)] = float(m.group(2))
    assert set(values) == {"total", "agent", "hub overhead"}
    assert values["total"] > 0 and values["agent"] > 0


def test_polling_section_compares_subscriber_and_poller(lines: list[str]) -> None:
    body = _section(lines, "change -> client")
    text = "\n".join(body)
    assert re.search(rf"subscriber \(deltas\)\s+{NUM}\s+{NUM}\s+{NUM}\s+{NUM}", text)
    assert re.search(rf"poller \(50 ms\)\s+{NUM}\s+{NUM}\s+{NUM}\s+{NUM}", text)
    assert re.search(rf"poller / subscriber p50: {NUM}x", text)
    assert "missed" not in text
