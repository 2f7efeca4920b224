"""The generated page source against real Appium page sources (``../shared/data/real-dumps``):
each real UiAutomator2 / XCUITest page source is imported and normalized as the hub does,
then written back in Appium's shape. The shape must match (root element, attribute names),
and an Appium-style XPath on each unique ``resource-id`` (Android) or ``name`` (iOS) of the
real source must find exactly one element here, with the real element's bounds. (A failed
WDA snapshot kept as an edge case, every node ``XCUIElementTypeAny`` at -1,-1, is left out:
it is not a page source Appium gives for a screen.)"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from lxml import etree

from bridge.core.importers import ImportFailure, import_dump
from bridge.core.normalize import NormalizeFailure, SnapshotContext, normalize
from bridge.webdriver.page_source import build
from tests.conftest import requires_shared
from tests.skips import SHARED_DIR

DUMPS = SHARED_DIR / "data" / "real-dumps"
APPIUM_SHAPES = ("android-appium-pagesource", "ios-wda-xml")
GEOMETRY = ("x", "y", "width", "height")


def _appium_dumps() -> list[str]:
    if not (DUMPS / "MANIFEST.tsv").is_file():
        return []
    with (DUMPS / "MANIFEST.tsv").open() as manifest:
        rows = csv.DictReader(manifest, delimiter="\t")
        return [
            r["local_file"]
            for r in rows
            if r["platform"] in APPIUM_SHAPES and not r["description"].startswith("EDGE CASE")
        ]


def _same_place(ours: etree._Element, real: etree._Element, android: bool) -> bool:
    if android:
        return ours.get("bounds") == real.get("bounds")
    return all(ours.get(k) == real.get(k) for k in GEOMETRY)


@requires_shared
def test_there_are_real_appium_page_sources_of_both_platforms() -> None:
    names = _appium_dumps()
    assert sum(n.startswith("android/") for n in names) >= 5
    assert sum(n.startswith("ios/") for n in names) >= 1


@requires_shared
@pytest.mark.parametrize("name", _appium_dumps() or ["(absent)"])
def test_the_generated_source_has_appiums_shape_and_places(name: str) -> None:
    data = Path(DUMPS / name).read_bytes()
    raw = import_dump(data, name)
    assert not isinstance(raw, ImportFailure), raw
    norm = normalize(raw, SnapshotContext("d", "s_1", 0))
    assert not isinstance(norm, NormalizeFailure), norm
    ours = build(norm.full).root
    real = etree.fromstring(data)
    android = name.startswith("android/")
    assert ours.tag == real.tag
    real_attributes = {a for e in real.iter() for a in e.attrib}
    # content-desc: the accessible name, also where the app set only a text
    extra = {a for e in ours.iter() for a in e.attrib} - real_attributes - {"content-desc"}
    assert not extra, f"attributes Appium does not write: {sorted(extra)}"
    key = "resource-id" if android else "name"
    by_key: dict[str, list[etree._Element]] = {}
    for element in real.iter():
        if value := element.get(key):
            by_key.setdefault(value, []).append(element)
    unique = {value: found[0] for value, found in by_key.items() if len(found) == 1}
    placed = 0
    for value, element in unique.items():
        found = ours.xpath(f"//*[@{key}=$v]", v=value)
        placed += len(found) == 1 and _same_place(found[0], element, android)
    assert placed >= 0.9 * len(unique), f"{placed} of {len(unique)} found in the same place"
