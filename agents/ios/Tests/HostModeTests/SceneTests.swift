import AgentCore
import Foundation
import HostMode
import XCTest

/// Issue 20 through host mode: each pathology scene with the real core over the host primitives,
/// which reproduce what XCTest does on a phone (unlimited deep snapshots fail, idle waits last
/// their whole bound on a screen that never idles, a tap puts the caret where it lands, a tap on
/// the keyboard types, a hold before a drag opens a context menu).
final class SceneTests: XCTestCase {
    private func backend(_ scene: String) -> (HostPrimitives, PrimitiveBackend) {
        let p = HostPrimitives(ticking: false, scene: scene)
        let b = PrimitiveBackend(primitives: p, pace: .unpaced)
        b.targetApp = ScriptedApp.bundleId
        return (p, b)
    }

    private func find(_ t: RawTree, _ text: String) -> RawNode? {
        t.nodes.first { $0.label == text || $0.text == text || $0.automationId == text }
    }

    private func act(_ b: PrimitiveBackend, _ tree: RawTree, _ text: String, _ action: ActionVerb = .click,
                     typing: String? = nil) throws -> Outcome {
        let n = try XCTUnwrap(find(tree, text), text)
        var cmd = NodeActionCommand(id: 1, capture: tree.capture, handle: n.handle, action: action, identity: NodeIdentity())
        cmd.text = typing
        cmd.allowAncestor = true
        return try b.nodeAction(cmd)
    }

    func testLargeSceneHasAThousandNodes() throws {
        let (_, b) = backend("large")
        let t = try b.capture(1)
        XCTAssertGreaterThanOrEqual(t.nodes.count, 1000)
        XCTAssertNotNil(find(t, "Row 200"))
    }

    func testDeepSceneFailsUnlimitedButIsCapturedLimitedAndTruncated() throws {
        let (p, b) = backend("deep")
        // The reviewed layer asked for the whole tree and cut it afterwards: XCTest fails that.
        XCTAssertThrowsError(try p.snapshot(of: ScriptedApp.bundleId, limits: SnapshotLimits(maxDepth: Int.max, timeoutMs: 0)))
        let t = try b.capture(1)
        XCTAssertEqual(t.truncated?.hasPrefix("snapshot depth limit 50 reached"), true, t.truncated ?? "nil")
        XCTAssertEqual(t.warnings, [])
        XCTAssertNil(find(t, "Deep leaf"), "cut off below the limit")
        XCTAssertLessThan(t.nodes.count, 60)
    }

    func testWithoutThePrivateSnapshotParametersEachCaptureWarns() throws {
        let p = HostPrimitives(ticking: false, scene: "login", privateSnapshotParameters: false)
        let t = try PrimitiveBackend(primitives: p, pace: .unpaced).capture(1)
        XCTAssertEqual(t.warnings, HostPrimitives.privateApiWarnings, "every fallback from the start (issue 34)")
        XCTAssertNil(t.truncated)
        // The deep scene then fails as XCTest does without a limit: the ladder cannot help.
        let deep = HostPrimitives(ticking: false, scene: "deep", privateSnapshotParameters: false)
        XCTAssertThrowsError(try PrimitiveBackend(primitives: deep, pace: .unpaced).capture(1))
    }

    func testBusySceneInputWaitsOnlyItsBound() throws {
        let (p, b) = backend("busy")
        let t = try b.capture(1)
        let started = Date()
        XCTAssertEqual(try act(b, t, "Stop"), .ok(.accessibilityAction))
        XCTAssertEqual(p.idleWaits, [1000], "bounded (XCTest's own wait would be 60 s here)")
        let t2 = try b.capture(2)
        let stopped = try XCTUnwrap(find(t2, "tick")?.label)
        XCTAssertTrue(stopped.hasPrefix("Stopped at "), stopped)
        Thread.sleep(forTimeInterval: 0.25)
        XCTAssertEqual(find(try b.capture(3), "tick")?.label, stopped, "the ticker is frozen")
        XCTAssertEqual(try act(b, t2, "note", .setText, typing: "hello"), .ok(.accessibilityAction))
        XCTAssertEqual(find(try b.capture(4), "note")?.value, "hello")
        XCTAssertLessThan(Date().timeIntervalSince(started), 8)
    }

    func testPrefilledFieldIsReplacedExactlyWithKeyboardFocus() throws {
        // What the reviewed code did: a tap mid-field, then one delete per character.
        let (raw, _) = backend("prefilled")
        try raw.tap(x: 21 + 351 / 2, y: 133)
        try raw.typeText(String(repeating: KeyText.delete, count: 15) + "new@example.com")
        let reviewed = try raw.snapshot(of: ScriptedApp.bundleId, limits: SnapshotLimits(maxDepth: 50, timeoutMs: 0))
        func value(_ e: ElementSnapshot) -> String? {
            if e.identifier == "email" { return e.value }
            return e.children.lazy.compactMap(value).first
        }
        XCTAssertNotEqual(value(reviewed), "new@example.com", "the old text's tail stays")

        let (_, b) = backend("prefilled")
        let t = try b.capture(1)
        XCTAssertEqual(try act(b, t, "email", .setText, typing: "new@example.com"), .ok(.accessibilityAction))
        let after = try b.capture(2)
        XCTAssertEqual(find(after, "email")?.value, "new@example.com")
        XCTAssertEqual(after.focus, find(after, "email")?.handle, "keyboard focus is the focus")
    }

    func testAnotherAppInFrontIsCapturedAndTapped() throws {
        let (_, b) = backend("other-app")
        let t = try b.capture(1)
        XCTAssertEqual(t.package, "com.apple.Preferences")
        XCTAssertEqual(try act(b, t, "Wi-Fi"), .ok(.accessibilityAction))  // the cell
        XCTAssertNotNil(find(try b.capture(2), "Wi-Fi opened"))
    }

    func testLandscapeAndAScaleChangeKeepPixelsRight() throws {
        let (_, b) = backend("landscape")
        let t = try b.capture(1)
        XCTAssertEqual(t.rotation, 90)
        XCTAssertEqual(t.screen?.width, 2556)
        XCTAssertEqual(t.screen?.height, 1179)
        XCTAssertEqual(try act(b, t, "scale"), .ok(.accessibilityAction))
        // No capture since the scale changed: a gesture in pixels uses the scale read now.
        XCTAssertEqual(try b.gesture(kind: "tap", points: [Point(342, 204)], durationMs: 0), .success)  // (171, 102) pt
        let t2 = try b.capture(2)
        XCTAssertEqual(find(t2, "scale.value")?.label, "Scale 3", "the tap at scale 2 hit the button again")
        XCTAssertEqual(find(t2, "scale")?.bounds, Bounds(63, 240, 963, 372))
    }

    func testBelowTheFoldIsScrolledAndUnderTheKeyboardIsRefused() throws {
        let (p, b) = backend("fold")
        let t = try b.capture(1)
        XCTAssertEqual(try act(b, t, "Row 40"), .ok(.ancestor))
        XCTAssertFalse(p.drags.isEmpty)
        XCTAssertTrue(p.drags.allSatisfy { $0.pressSeconds < 0.5 })
        let t2 = try b.capture(2)
        XCTAssertEqual(find(t2, "status")?.label, "Opened Row 40")
        let refused = try act(b, t2, "Submit")
        XCTAssertEqual(refused.code, .notVisible)
        let t3 = try b.capture(3)
        XCTAssertEqual(find(t3, "status")?.label, "Opened Row 40", "Submit was not tapped")
        XCTAssertEqual(find(t3, "name")?.value, "Name", "nor the keyboard over it")
        // The reviewed drag: the swipe's duration as a hold before the move opens a context menu.
        try p.drag(DragPlan(fromX: 196, fromY: 500, toX: 196, toY: 200, pressSeconds: 0.6, pixelsPerSecond: 1000, holdSeconds: 0))
        XCTAssertEqual(find(try b.capture(4), "status")?.label, "Context menu")
    }

    func testSystemDialogIsASecondWindow() throws {
        let (_, b) = backend("system-dialog")
        let t = try b.capture(1)
        XCTAssertEqual(t.windows.count, 2)
        XCTAssertEqual(t.windows[1].type, "system")
        XCTAssertEqual(t.windows[1].package, "com.apple.springboard")
        XCTAssertNotNil(find(t, "Allow “Demo” to use your location?"))
        XCTAssertEqual(try act(b, t, "Allow"), .ok(.accessibilityAction))
        XCTAssertEqual(find(try b.capture(2), "location")?.label, "Location allowed")
    }

    func testLongTextIsTypedAndVerified() throws {
        let (_, b) = backend("long-text")
        let t = try b.capture(1)
        XCTAssertEqual(find(t, "long")?.label?.count, 2000)
        XCTAssertEqual(try act(b, t, "bio", .setText, typing: PathologyScene.longText), .ok(.accessibilityAction))
        XCTAssertEqual(find(try b.capture(2), "bio")?.value, PathologyScene.longText)
    }

    func testSceneNamesAreCheckedOnTheCommandLine() throws {
        XCTAssertEqual(try HostOptions.parse(["--port", "0", "--token", "t", "--scene", "fold"], environment: [:]).scene, "fold")
        XCTAssertThrowsError(try HostOptions.parse(["--port", "0", "--token", "t", "--scene", "nope"], environment: [:]))
    }
}
