"""agents/ios/tools/stub_surface.py: the XCUITest stubs are exactly the surface the runner uses
(run by scripts/check; the compile against the stubs is in scripts/check-ios)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "agents" / "ios" / "tools" / "stub_surface.py"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("stub_surface", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["stub_surface"] = module
    spec.loader.exec_module(module)
    return module


STUBS = """
@MainActor
open class XCUIElement {
    public func tap() { stub() }
    public var exists: Bool { stub() }
}
public struct XCTIssue {
    public var compactDescription: String { stub() }
}
"""


def test_the_repository_stubs_pass_and_list_their_surface() -> None:
    out = subprocess.run(
        [sys.executable, str(TOOL), "--list"], capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "XCUIApplication" in lines
    assert "  XCUIElement.snapshot()" in lines
    assert "  XCUICoordinate.press(forDuration:thenDragTo:)" in lines


def test_unused_stub_members_and_undeclared_apple_types_fail() -> None:
    tool = _tool()
    layer = "func f(e: XCUIElement, i: XCTIssue) { e.tap(); log(\\(i.compactDescription)) }"
    _, problems = tool.check(STUBS, layer)
    assert problems == ["stub member XCUIElement.exists is used nowhere in the runner"]
    _, problems = tool.check(STUBS, layer + "\nlet r = XCUIRemote.shared\n_ = e.exists")
    assert problems == ["the runner uses XCUIRemote, which the stubs do not declare"]
    # A name only in a comment or a string is not a use.
    _, problems = tool.check(STUBS, layer + '\n// e.exists\nlet s = "e.exists"')
    assert "stub member XCUIElement.exists is used nowhere in the runner" in problems
