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
    assert (
        "  XCUICoordinate.press(forDuration:thenDragTo:withVelocity:thenHoldForDuration:)" in lines
    )


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


STUB_DIR = ROOT / "agents" / "ios" / "Sources" / "XCUITestStubs"


def _run_on(stubs: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TOOL), "--stubs", str(stubs)],
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_wrong_stub_signature_fails_against_the_api_listing(tmp_path: Path) -> None:
    """Issue 20: the stubs are proven against the XCTest API listing (agents/ios/tools/xctest-api);
    a deliberately wrong signature in a copy of them makes the check fail and say which."""
    text = (STUB_DIR / "XCUITestStubs.swift").read_text(encoding="utf-8")
    assert _run_on(STUB_DIR).returncode == 0
    wrong = text.replace(
        "public func press(forDuration duration: TimeInterval) { stub() }",
        "public func press(forDuration duration: Double, pressure: Double) { stub() }",
    )
    assert wrong != text
    (tmp_path / "XCUITestStubs.swift").write_text(wrong, encoding="utf-8")
    out = _run_on(tmp_path)
    assert out.returncode == 1
    assert (
        "stub member XCUICoordinate.press(forDuration:pressure:) is not in the XCTest API listing"
        in (out.stderr)
    )

    retyped = text.replace(
        "public func typeText(_ text: String) { stub() }",
        "public func typeText(_ text: Substring) { stub() }",
    )
    (tmp_path / "XCUITestStubs.swift").write_text(retyped, encoding="utf-8")
    out = _run_on(tmp_path)
    assert out.returncode == 1
    assert (
        "stub member XCUIElement.typeText(_:) differs from the listing (XCUIElement.h "
        "(XCUIElementKeyboardEvents -typeText:)): stub 'func typeText(_ text: Substring)', "
        "listing 'func typeText(_ text: String)'"
    ) in out.stderr


def test_availability_and_newer_than_ios16_uses_are_checked() -> None:
    tool = _tool()
    listing = tool.parse_listing(
        "XCUIApplication.open(_:) | func open(_ url: URL) | ios 16.4 | XCUIApplication.h\n"
    )
    stubs = """
open class XCUIApplication {
    @available(iOS 16.4, *)
    public func open(_ url: URL) { stub() }
}
"""
    surface = tool.parse_stubs(stubs)
    unguarded = "func f(a: XCUIApplication, u: URL) { a.open(u) }"
    problems = tool.check_listing(surface, listing, unguarded)
    assert problems == [
        "the runner uses XCUIApplication.open(_:), which needs iOS 16.4 (newer than the minimum "
        "iOS 16.0), without an #available(iOS 16.4, *) check"
    ]
    guarded = "func f(a: XCUIApplication, u: URL) { if #available(iOS 16.4, *) { a.open(u) } }"
    assert tool.check_listing(surface, listing, guarded) == []
    plain = tool.parse_stubs(stubs.replace("    @available(iOS 16.4, *)\n", ""))
    assert tool.check_listing(plain, listing, guarded) == [
        "stub member XCUIApplication.open(_:) availability differs from the listing "
        "(XCUIApplication.h): stub iOS -, listing iOS 16.4"
    ]


def test_ios_listing_blocks_name_repository_and_revision_and_members_their_availability() -> None:
    """Issue 34: the iOS XCTest listing carries provenance like the Android one: each block
    names the public repository, header path and revision read (or says it is documentation
    only), and each member its own availability; a block without a revision, a member outside
    any block, or one without availability fails."""
    tool = _tool()
    listing = (ROOT / "agents" / "ios" / "tools" / "xctest-api" / "XCTest-iOS.api").read_text(
        encoding="utf-8"
    )
    assert tool.check_provenance(listing) == []
    parsed = tool.parse_listing(listing)
    exists = parsed["XCUIElement.exists"]
    assert exists.block.startswith("versx/Kevin XCTest.framework/Headers/XCUIElement.h @ ")
    assert exists.available == "9.0"
    assert any(v.block.startswith("documentation ") for v in parsed.values())
    member = "XCUIElement.exists | var exists: Bool | ios 9.0 | XCUIElement.h"
    assert tool.check_provenance(member) == [
        "listing member XCUIElement.exists is in no 'source:' block"
    ]
    no_rev = "source: versx/Kevin XCTest.framework/Headers/XCUIElement.h\n" + member
    assert "names no repository, header and 40-hex revision" in tool.check_provenance(no_rev)[0]
    no_avail = (
        "source: a/b X.h @ " + "0" * 40 + "\n"
        "XCUIElement.exists | var exists: Bool | class | XCUIElement.h"
    )
    assert tool.check_provenance(no_avail) == [
        "listing member XCUIElement.exists has no availability of its own (ios X.Y)"
    ]
