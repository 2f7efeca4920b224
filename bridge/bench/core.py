"""Core benchmarks: import+normalize, patch, apply, query and resolve on the largest real
dumps and on generated 1,000- and 5,000-node trees; resolve side by side with lxml XPath
over the same XML for an equivalent query (ratio)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path

from bridge.core.identity import IdAllocator
from bridge.core.importers import ImportFailure, import_dump
from bridge.core.noderef import build_ref, resolve_ref
from bridge.core.normalize import Normalized, SnapshotContext, normalize
from bridge.core.patch import apply_patch, patch
from bridge.core.query import run_query
from bridge.core.tree import NodeTree
from bridge.wire.query import SemanticQuery, TextMatch

DUMPS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "real-dumps"


def median_us(fn: Callable[[], object], runs: int) -> float:
    fn()
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter_ns()
        fn()
        samples.append((time.perf_counter_ns() - t0) / 1000)
    return statistics.median(samples)


def generated_xml(n: int) -> bytes:
    """A uiautomator dump with ``n`` nodes: rows of a list, each a button and two texts."""
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">',
        '<node index="0" class="android.widget.FrameLayout" package="b.gen" '
        'bounds="[0,0][1080,2400]" resource-id="" text="" content-desc="">',
        '<node index="0" class="androidx.recyclerview.widget.RecyclerView" package="b.gen" '
        'scrollable="true" bounds="[0,0][1080,2400]" resource-id="b.gen:id/list" text="" '
        'content-desc="">',
    ]
    rows = max(1, (n - 2) // 4)
    for i in range(rows):
        y = i * 40
        parts.append(
            f'<node index="{i}" class="android.widget.LinearLayout" package="b.gen" '
            f'clickable="true" bounds="[0,{y}][1080,{y + 40}]" resource-id="b.gen:id/row" '
            f'text="" content-desc="">'
            f'<node index="0" class="android.widget.TextView" package="b.gen" '
            f'bounds="[0,{y}][500,{y + 40}]" resource-id="b.gen:id/title" text="Item {i}" '
            f'content-desc="" />'
            f'<node index="1" class="android.widget.TextView" package="b.gen" '
            f'bounds="[500,{y}][900,{y + 40}]" resource-id="b.gen:id/sub" text="detail {i}" '
            f'content-desc="" />'
            f'<node index="2" class="android.widget.Button" package="b.gen" clickable="true" '
            f'bounds="[900,{y}][1080,{y + 40}]" resource-id="b.gen:id/buy_{i}" text="Open" '
            f'content-desc="" /></node>'
        )
    parts.append("</node></node></hierarchy>")
    return "".join(parts).encode()


def _norm(data: bytes, sid: str, ids: IdAllocator | None = None) -> Normalized:
    raw = import_dump(data, "bench")
    assert not isinstance(raw, ImportFailure), raw
    out = normalize(raw, SnapshotContext("bench", sid, 0), ids)
    assert isinstance(out, Normalized)
    return out


def _case(name: str, data: bytes, runs: int) -> list[str]:
    a = _norm(data, "s_1")
    edited = data.replace(b'text="Item 1"', b'text="Item one"', 1)
    ids = IdAllocator()
    a2 = _norm(data, "s_1", ids)
    b2 = _norm(edited, "s_2", ids)
    tree = NodeTree(a.full.nodes)
    target = next((n for n in reversed(a.full.nodes) if n.text or n.label), a.full.nodes[-1])
    ref = build_ref(a.full, tree, target.node_id)
    assert ref is not None
    label = target.text or target.label or ""
    query = SemanticQuery(text=TextMatch(value=label))
    body = patch(a2.full, b2.full)
    t_norm = median_us(lambda: _norm(data, "s_1"), runs)
    t_patch = median_us(lambda: patch(a2.full, b2.full), runs)
    t_apply = median_us(lambda: apply_patch(a2.full, body), runs)
    t_query = median_us(lambda: run_query(NodeTree(a.full.nodes), query, viewport=None), runs)
    t_resolve = median_us(lambda: resolve_ref(ref, a.full), runs)
    line = (
        f"{name:42} nodes={len(a.full.nodes):5}  import+normalize {t_norm:9.0f} µs  "
        f"patch {t_patch:7.0f} µs  apply {t_apply:7.0f} µs  query {t_query:7.0f} µs  "
        f"resolve {t_resolve:7.0f} µs"
    )
    out = [line]
    try:
        from lxml import etree
    except ImportError:
        return out
    if data.lstrip().startswith(b"<") and "'" not in label and label:
        doc = etree.fromstring(data, parser=etree.XMLParser(resolve_entities=False))
        xpath = etree.XPath(f"//*[@text='{label}' or @content-desc='{label}' or @label='{label}']")
        t_xpath = median_us(lambda: xpath(doc), runs)
        t_xpath_parse = median_us(
            lambda: etree.XPath(f"//*[@text='{label}']")(etree.fromstring(data)), runs
        )
        out.append(
            f"{'':42}   lxml XPath on parsed doc {t_xpath:7.0f} µs (resolve/xpath "
            f"{t_resolve / max(t_xpath, 0.01):5.2f}x); parse+XPath {t_xpath_parse:7.0f} µs "
            f"(resolve/(parse+xpath) {t_resolve / max(t_xpath_parse, 0.01):5.2f}x)"
        )
    return out


def run(quick: bool) -> list[str]:
    runs = 5 if quick else 21
    lines = [f"core: medians of {runs} runs (one process, side by side)"]
    if DUMPS.is_dir():
        biggest = sorted(
            (p for p in DUMPS.rglob("*") if p.suffix in (".xml", ".json")),
            key=lambda p: p.stat().st_size,
            reverse=True,
        )[: 1 if quick else 3]
        for path in biggest:
            lines += _case(path.name[:42], path.read_bytes(), runs)
    else:
        lines.append("(../shared absent: real dumps skipped)")
    for n in (1000,) if quick else (1000, 5000):
        lines += _case(f"generated {n}-node list", generated_xml(n), max(3, runs // 3))
    return lines


if __name__ == "__main__":
    print("\n".join(run(quick=False)))
