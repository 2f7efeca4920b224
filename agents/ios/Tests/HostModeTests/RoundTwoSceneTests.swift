import AgentCore
import Foundation
import HostMode
import XCTest

/// Issue 34 through host mode: the real core over the host primitives, which model what XCTest
/// does on a phone (its idle wait, input only to the app in front, the cost of each query).
/// Each test is named after the item of the issue it covers.
final class RoundTwoSceneTests: XCTestCase {
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

    private func timed(_ body: () throws -> Void) rethrows -> Double {
        let t0 = Date()
        try body()
        return Date().timeIntervalSince(t0) * 1000
    }

    /// A fixed sleep charges every event the whole bound; XCTest's own wait under a timeout ends
    /// when the app is idle. On `settling` (idle 250 ms after each event) two taps with a 1.5 s
    /// bound take about 0.25 s each with the real wait, 1.5 s each with the sleep; on `busy`
    /// (never idle) both pay the bound.
    func testIosIdleWaitIsXCTestsBoundedWaitNotAFixedSleep() throws {
        let (p, b) = backend("settling")
        b.quiescence = .uniform(1500)
        var t = try b.capture(1)
        let real = try timed {
            XCTAssertEqual(try act(b, t, "Go"), .ok(.accessibilityAction))
            t = try b.capture(2)
            XCTAssertEqual(try act(b, t, "Go"), .ok(.accessibilityAction))
        }
        XCTAssertEqual(find(try b.capture(3), "status")?.label, "Went 2")
        XCTAssertLessThan(real, 2 * 1500, "the real wait ended when the app went idle")
        XCTAssertTrue(p.idleWaits.allSatisfy { $0 <= 260 }, "\(p.idleWaits)")

        let (slept, sb) = backend("settling")
        slept.layerWait = .fixedSleep
        sb.quiescence = .uniform(1500)
        let t2 = try sb.capture(1)
        let sleeping = try timed { XCTAssertEqual(try act(sb, t2, "Go"), .ok(.accessibilityAction)) }
        XCTAssertGreaterThanOrEqual(sleeping, 1500, "the fixed sleep pays the bound on every event")
        XCTAssertEqual(slept.idleWaits, [1500])

        let (busy, bb) = backend("busy")
        bb.quiescence = .uniform(300)
        let t3 = try bb.capture(1)
        XCTAssertEqual(try act(bb, t3, "Stop"), .ok(.accessibilityAction))
        XCTAssertEqual(busy.idleWaits, [300], "never idle: exactly the bound")
    }

    /// The bound set for an input carried over into the captures after it: on a screen that
    /// never idles every capture paid it. Captures now run without an idle wait.
    func testIosIdleWaitDoesNotCarryOverIntoCaptures() throws {
        let (p, b) = backend("busy")
        b.quiescence = .uniform(400)
        let t = try b.capture(1)
        XCTAssertEqual(try act(b, t, "note", .setText, typing: "hi"), .ok(.accessibilityAction))
        XCTAssertTrue(p.captureWaits.allSatisfy { $0 == 0 }, "\(p.captureWaits)")
        let ms = try timed { _ = try b.capture(2) }
        XCTAssertLessThan(ms, 400)
    }

    /// Coordinates were built from the last non-SpringBoard app captured: after HOME a tap went
    /// through the backgrounded app. Input now goes to the app in front.
    func testIosInputGoesToTheAppInFrontNotTheLastCapturedOne() throws {
        let (p, b) = backend("login")
        _ = try b.capture(1)
        XCTAssertEqual(try b.globalAction(.home), .success)
        // SpringBoard's icon of the demo app, in pixels.
        XCTAssertEqual(try b.gesture(kind: "tap", points: [Point(59 * 3, 160 * 3)], durationMs: 0), .success)
        XCTAssertEqual(p.inputApps.last, ScriptedApp.springboard)
        XCTAssertEqual(p.screenName, "login", "the icon opened the app")
        XCTAssertEqual(try b.capture(2).package, ScriptedApp.bundleId)
        _ = try b.gesture(kind: "tap", points: [Point(600, 600)], durationMs: 0)
        XCTAssertEqual(p.inputApps.last, ScriptedApp.bundleId)
    }

    /// A capture queried the state of up to 17 apps and took a whole SpringBoard snapshot, again
    /// before each node action and after each typing step. Now: one app query per command, and
    /// SpringBoard only when an alert is up.
    func testIosCaptureCostIsOneAppQueryAndNoSpringBoardSnapshotWithoutAnAlert() throws {
        let (p, b) = backend("login")
        let t = try b.capture(1)
        XCTAssertEqual(p.runningAppsCalls, 1)
        XCTAssertNil(p.snapshotCalls[ScriptedApp.springboard])
        XCTAssertEqual(try act(b, t, "username", .setText, typing: "demo"), .ok(.accessibilityAction))
        XCTAssertEqual(p.runningAppsCalls, 2, "one app query for the whole SET_TEXT")
        XCTAssertNil(p.snapshotCalls[ScriptedApp.springboard], "no alert: SpringBoard is never read")
        let (a, ab) = backend("system-dialog")
        let withAlert = try ab.capture(1)
        XCTAssertEqual(a.snapshotCalls[ScriptedApp.springboard], 1)
        XCTAssertNotNil(find(withAlert, "Allow"))
    }

    /// The tab bar covers rows under it: "Row 14" (half under the bar) is tapped in its visible
    /// part, "Row 15" (wholly under it) scrolled out first; the bar is never tapped.
    func testIosTabBarCoveringATargetIsNeverTappedThrough() throws {
        let (_, b) = backend("tab-bar")
        var t = try b.capture(1)
        XCTAssertEqual(try act(b, t, "Row 14"), .ok(.ancestor))
        t = try b.capture(2)
        XCTAssertEqual(find(t, "status")?.label, "Opened Row 14")
        XCTAssertEqual(try act(b, t, "Row 15"), .ok(.ancestor))
        XCTAssertEqual(find(try b.capture(3), "status")?.label, "Opened Row 15")
    }

    private func answer(_ scene: String, _ action: String) throws -> String? {
        let (_, b) = backend(scene)
        let found = DeviceCapabilities.alerts(try b.capture(1))
        let button = try DeviceCapabilities.choose(try XCTUnwrap(found.first), action, nil).get()
        let b0 = try XCTUnwrap(button.bounds)
        XCTAssertEqual(try b.gesture(kind: "tap", points: [Point((b0.left + b0.right) / 2, (b0.top + b0.bottom) / 2)], durationMs: 0),
                       .success)
        return find(try b.capture(2), "location")?.label
    }

    /// Alert answers by English words, else first/last: German and Japanese prompts with the
    /// iOS 17 "Precise" toggle first were answered with the toggle.
    func testIosLocalizedAlertIsAnsweredInGermanAndJapanese() throws {
        XCTAssertEqual(try answer("alert-de", "accept"), "Location allowed")
        XCTAssertEqual(try answer("alert-de", "dismiss"), "Location denied")
        XCTAssertEqual(try answer("alert-ja", "accept"), "Location allowed")
        XCTAssertEqual(try answer("alert-ja", "dismiss"), "Location denied")
    }

    /// `UIScreen.scale` (3) is not a Plus model's pixel ratio (1080 pixels for 414 points): the
    /// tree's pixels now match the screenshot's, so a point read off a screenshot hits.
    func testIosPlusModelScaleIsTheScreenshotsPixelRatio() throws {
        let (_, b) = backend("plus")
        let t = try b.capture(1)
        guard case let png? = try b.screenshot().pngBase64, let data = Data(base64Encoded: png), let size = PNGInfo.size([UInt8](data)) else {
            return XCTFail("no screenshot")
        }
        XCTAssertEqual(size.width, 1080)
        XCTAssertEqual(t.screen?.width, 1080, "the tree's pixels are the screenshot's")
        // The button's centre as a vision model would read it off the screenshot.
        let x = Int((40 + 75) * 1080.0 / 414), y = Int((300 + 25) * 1080.0 / 414)
        XCTAssertEqual(try b.gesture(kind: "tap", points: [Point(x, y)], durationMs: 0), .success)
        XCTAssertEqual(find(try b.capture(2), "status")?.label, "Tapped")
    }

    /// Keyboard hide tapped "return" unchecked: in a text view that types a newline and the
    /// keyboard stays, reported as success.
    func testIosKeyboardHideInAMultiLineTextViewTypesNoNewlineAndChecksTheKeyboardLeft() throws {
        let (_, b) = backend("notes")
        var id = 1
        let o = try KeyboardHide.perform(b, nextCapture: { defer { id += 1 }; return id }, acted: {})
        XCTAssertEqual(o, .success)
        let t = try b.capture(99)
        XCTAssertNil(t.nodes.first { $0.className == "XCUIElementTypeKeyboard" }, "the keyboard left")
        XCTAssertEqual(find(t, "notes")?.value, "First line", "no newline typed")
    }

    /// The iOS agent had no clipboard.
    func testIosClipboardIsSetAndRead() throws {
        let (_, b) = backend("login")
        XCTAssertEqual(try b.clipboard(set: "copied"), .success)
        XCTAssertEqual(try b.clipboard(set: nil).text, "copied")
        XCTAssertTrue(b.capabilities.contains("clipboard"))
    }
}

/// The command line of the modelled idle wait (issue 34).
final class RoundTwoOptionsTests: XCTestCase {
    func testIdleModelOptionsReachTheHostPrimitives() throws {
        let o = try HostOptions.parse(["--port", "0", "--idle-after-ms", "40", "--fixed-idle-sleep", "--scene", "notes"],
                                      environment: ["MOBRIDGE_AGENT_TOKEN": "t"])
        XCTAssertEqual(o.idleAfterMs, 40)
        XCTAssertTrue(o.fixedIdleSleep)
        let p = try XCTUnwrap(try o.backend().primitives as? HostPrimitives)
        XCTAssertEqual(p.idleAfterMs, 40)
        XCTAssertEqual(p.layerWait, .fixedSleep)
        XCTAssertThrowsError(try HostOptions.parse(["--port", "0", "--idle-after-ms", "-1"], environment: ["MOBRIDGE_AGENT_TOKEN": "t"]))
        for name in ["settling", "tab-bar", "alert-de", "alert-ja", "plus", "notes"] {
            XCTAssertTrue(PathologyScene.names.contains(name), name)
        }
    }
}
