import AgentCore
import Foundation
import XCTest

/// Issue 20, iOS items 1-8: each decision the XCUITest layer used to make, now in the core, with
/// a test that fails on the reviewed code (noted per test).
private func el(_ type: ElementType, id: String = "", label: String = "", value: String? = nil,
                placeholder: String? = nil, _ frame: Rect, keyboard: Bool? = nil,
                _ children: [ElementSnapshot] = []) -> ElementSnapshot {
    ElementSnapshot(type: type, identifier: id, label: label, value: value, placeholder: placeholder, frame: frame,
                    hasFocus: false, hasKeyboardFocus: keyboard, children: children)
}

private let full = Rect(0, 0, 393, 852)

private func screen(_ content: [ElementSnapshot], keyboard: Bool = false, scale: Double = 3,
                    bundle: String = "dev.mobridge.demo") -> ScreenCapture {
    var windows = [el(.window, full, [el(.other, id: "__screen_x", Rect(0, 59, 393, 759), content)])]
    if keyboard {
        let kb = Rect(0, 552, 393, 300)
        windows.append(el(.window, kb, [el(.keyboard, kb, [el(.key, id: "Return", Rect(290, 790, 100, 50))])]))
    }
    return ScreenCapture(scale: scale, roots: [CapturedRoot(bundleId: bundle, system: false, tree: el(.application, full, windows))])
}

/// A device whose snapshots fail above `ceiling` levels unless limited, like XCTest.
private final class DeepDevice: DevicePrimitives, @unchecked Sendable {
    let deviceInfo = DeviceInfo(id: "deep")
    let capabilities = ["tree"]
    let ceiling: Int
    var failAbove: Int?
    var warnings: [String] = []
    func captureWarnings() -> [String] { warnings }
    var asked: [SnapshotLimits] = []
    let tree: ElementSnapshot

    init(levels: Int, ceiling: Int = 62) {
        var node = el(.staticText, label: "Deep leaf", Rect(0, 0, 10, 10))
        for _ in 0..<levels { node = el(.other, Rect(0, 0, 393, 852), [node]) }
        tree = el(.application, full, [el(.window, full, [node])])
        self.ceiling = ceiling
    }

    func screen() throws -> ScreenGeometry { ScreenGeometry(scale: 3) }
    func runningApps() throws -> [RunningApp] { [RunningApp(bundleId: "a.b", foreground: true)] }
    func snapshot(of bundleId: String, limits: SnapshotLimits) throws -> ElementSnapshot {
        guard bundleId == "a.b" else { throw JsonError("not running") }
        asked.append(limits)
        if let f = failAbove, limits.maxDepth > f { throw JsonError("snapshot timed out") }
        if limits.maxDepth > ceiling { throw JsonError("kAXErrorIllegalArgument") }
        func cut(_ e: ElementSnapshot, _ d: Int) -> ElementSnapshot {
            var n = e
            n.children = d >= limits.maxDepth ? [] : e.children.map { cut($0, d + 1) }
            return n
        }
        return cut(tree, 0)
    }
    func tap(x: Double, y: Double) throws {}
    func longPress(x: Double, y: Double, seconds: Double) throws {}
    func drag(_ plan: DragPlan) throws {}
    func typeText(_ text: String) throws {}
    func typeKey(_ key: KeyName) throws {}
    func pressHome() throws {}
    func app(_ action: AppAction, bundleId: String?, url: String?) throws -> Outcome { .success }
    func screenshotPNG() throws -> [UInt8] { [] }
    func setChangeListener(_ listener: (@Sendable () -> Void)?) {}
    func health() -> String? { nil }
}

final class DeviceDecisionTests: XCTestCase {
    // Item 1 — reviewed code: one unlimited snapshot, cut to 50 after it was fetched: a
    // 300-level tree failed the whole capture.
    func testDeepTreesAreLimitedWhileTakenAndSayTruncated() throws {
        let d = DeepDevice(levels: 300)
        let b = PrimitiveBackend(primitives: d, pace: .unpaced)
        let tree = try b.capture(1)
        XCTAssertEqual(d.asked.first?.maxDepth, 50, "the limit goes to the device with the request")
        XCTAssertEqual(tree.truncated,
                       "snapshot depth limit 50 reached: 1 elements at the limit were read without their children")
        XCTAssertTrue(tree.nodes.allSatisfy { $0.traits.isEmpty }, "one mechanism: the tree says it, no node trait")
        XCTAssertTrue(tree.toJson().encoded().contains("\"truncated\":"), "sent to the hub")
        XCTAssertLessThanOrEqual(tree.nodes.count, 52)
    }

    func testAFailingSnapshotFallsBackShallowerAndTheRootSaysTruncated() throws {
        let d = DeepDevice(levels: 300)
        d.failAbove = 25
        let tree = try PrimitiveBackend(primitives: d, pace: .unpaced).capture(1)
        XCTAssertEqual(d.asked.map(\.maxDepth), [50, 25])
        XCTAssertEqual(tree.truncated?.hasPrefix("the snapshot at depth 50 failed; a shallower one (depth 25) was taken"), true,
                       "a fallback capture says so: \(tree.truncated ?? "nil")")
        let ladder = SnapshotLadder(depths: [50, 25, 10])
        d.failAbove = 0
        XCTAssertThrowsError(try ladder.take { try d.snapshot(of: "a.b", limits: $0) }, "no rung works: the error stays")
    }

    func testTheLayersCaptureWarningsAreSentWithTheTree() throws {
        let d = DeepDevice(levels: 3)
        let clean = try PrimitiveBackend(primitives: d, pace: .unpaced).capture(1)
        XCTAssertEqual(clean.warnings, [])
        XCTAssertNil(clean.truncated, "a shallow tree is whole")
        XCTAssertFalse(clean.toJson().encoded().contains("warnings"), "omitted when empty")
        d.warnings = ["snapshot depth cannot be limited: XCAXClient_iOS.defaultParameters missing; using the public snapshot"]
            + (0..<9).map { "w\($0) " + String(repeating: "x", count: 400) }
        let warned = try PrimitiveBackend(primitives: d, pace: .unpaced).capture(1)
        XCTAssertEqual(warned.warnings.count, RawLimits.maxWarnings, "at most 8, as the hub accepts")
        XCTAssertEqual(warned.warnings[0], d.warnings[0])
        XCTAssertTrue(warned.warnings.allSatisfy { $0.unicodeScalars.count <= RawLimits.maxWarningText })
        let back = try RawTree.fromJson(try Json.parse(warned.toJson().encoded()), "tree")
        XCTAssertEqual(back.warnings, warned.warnings)
    }

    // Item 2 — reviewed code: every input waited for idle with no bound.
    func testEveryInputHasABoundedSwitchableIdleWait() throws {
        let p = FakePrimitives(screen([el(.button, label: "Stop", Rect(21, 130, 351, 47))]))
        let b = PrimitiveBackend(primitives: p, pace: .unpaced)
        _ = try b.capture(1)
        _ = try b.nodeAction(NodeActionCommand(id: 1, capture: 1, handle: 4, action: .click, identity: NodeIdentity()))
        _ = try b.gesture(kind: "tap", points: [Point(30, 30)], durationMs: 0)
        _ = try b.typeText("a")
        // Captures run with none (issue 34); the node action's tap, the gesture, the typing.
        XCTAssertEqual(Array(p.quiescence.suffix(4)), [.bounded(ms: 1000), .bounded(ms: 1000), .skip, .skip])
        b.quiescence = .uniform(60_000)
        _ = try b.gesture(kind: "tap", points: [Point(30, 30)], durationMs: 0)
        XCTAssertEqual(p.quiescence.last, .bounded(ms: QuiescencePolicy.maxMs), "capped")
        b.quiescence = .uniform(0)
        _ = try b.typeText("a")
        XCTAssertEqual(p.quiescence.last, .skip, "switched off")
    }

    // Item 3 — reviewed code: `hasFocus` as focus (never true on iPhone), a mid-field tap, and no
    // check of the value typed.
    func testKeyboardFocusIsReportedAndSetTextVerifiesTheValue() throws {
        let field = el(.textField, id: "email", value: "old@example.com", placeholder: "Email", Rect(21, 110, 351, 47), keyboard: true)
        let (tree, _) = SnapshotConverter().convert(screen([field], keyboard: true), captureId: 1)
        XCTAssertEqual(tree.focus, 4, "hasKeyboardFocus is the focus")
        XCTAssertTrue(tree.nodes[3].focused)

        let p = FakePrimitives(screen([el(.textField, id: "email", value: "old@example.com", placeholder: "Email",
                                          Rect(21, 110, 351, 47), keyboard: false)]))
        let b = PrimitiveBackend(primitives: p, pace: .unpaced)
        _ = try b.capture(1)
        var cmd = NodeActionCommand(id: 1, capture: 1, handle: 4, action: .setText, identity: NodeIdentity())
        cmd.text = "new@example.com"
        XCTAssertEqual(try b.nodeAction(cmd), .ok(.accessibilityAction))
        XCTAssertEqual(p.calls[2], "tap 368,133", "near the end of the field, not its middle")
        XCTAssertEqual(p.calls.last, "snapshot", "the value is read back")
        let after = try b.capture(2)
        XCTAssertEqual(after.nodes[3].value, "new@example.com")
    }

    func testAFieldThatKeepsTheWrongValueFailsWithoutShowingIt() throws {
        let stuck = el(.textField, id: "f", value: "keep", placeholder: "F", Rect(21, 110, 351, 47), keyboard: true)
        final class Deaf: FakePrimitivesWrapper {}
        let p = Deaf(screen([stuck]))
        let b = PrimitiveBackend(primitives: p, pace: .unpaced)
        _ = try b.capture(1)
        var cmd = NodeActionCommand(id: 1, capture: 1, handle: 4, action: .setText, identity: NodeIdentity())
        cmd.text = "secret-value"
        let o = try b.nodeAction(cmd)
        XCTAssertEqual(o.code, .failed)
        XCTAssertFalse(o.message!.contains("secret") || o.message!.contains("keep"), o.message!)
        XCTAssertEqual(p.typed.filter { $0 == "secret-value" }.count, 2, "typed once more before failing")
    }

    // Item 4 — reviewed code: only the app under test or SpringBoard could be in front.
    func testTheFrontApplicationIsPickedAmongTheRunningOnes() {
        let settings = [RunningApp(bundleId: "dev.mobridge.demo", foreground: false),
                        RunningApp(bundleId: "com.apple.springboard", foreground: true),
                        RunningApp(bundleId: "com.apple.Preferences", foreground: true)]
        XCTAssertEqual(ForegroundPicker.pick(settings, preferred: ["dev.mobridge.demo"]), "com.apple.Preferences")
        let split = [RunningApp(bundleId: "a", foreground: true), RunningApp(bundleId: "b", foreground: true)]
        XCTAssertEqual(ForegroundPicker.pick(split, preferred: ["b"]), "b")
        var probed = split
        probed[0].atProbePoint = true
        XCTAssertEqual(ForegroundPicker.pick(probed, preferred: ["b"]), "a", "the app at the detection point wins")
        XCTAssertEqual(ForegroundPicker.pick([RunningApp(bundleId: "a", foreground: false)], preferred: []),
                       "com.apple.springboard")
    }

    // Item 5 — reviewed code: the scale was learnt once and cached.
    func testTheScaleIsReadPerCaptureAndPerGesture() throws {
        let p = FakePrimitives(screen([], scale: 3))
        let b = PrimitiveBackend(primitives: p, pace: .unpaced)
        _ = try b.capture(1)
        p.screens = [screen([], scale: 2)]  // the screen changed; no capture since
        _ = try b.gesture(kind: "tap", points: [Point(200, 400)], durationMs: 0)
        XCTAssertEqual(p.calls.last, "tap 100,200")
        var landscape = screen([], scale: 2)
        landscape.rotation = 90
        p.screens = [landscape]
        let t = try b.capture(2)
        XCTAssertEqual(t.rotation, 90)
        XCTAssertEqual(t.screen?.width, 786)
    }

    // Item 6 — reviewed code: a tap at the frame's centre, whatever covered it.
    func testCoveredElementsAreRefusedAndHiddenOnesScrolledIntoView() throws {
        let submit = el(.button, label: "Submit", Rect(21, 700, 351, 47))
        let p = FakePrimitives(screen([submit], keyboard: true))
        let b = PrimitiveBackend(primitives: p, pace: .unpaced)
        _ = try b.capture(1)
        let o = try b.nodeAction(NodeActionCommand(id: 1, capture: 1, handle: 4, action: .click, identity: NodeIdentity()))
        XCTAssertEqual(o.code, .notVisible)
        XCTAssertTrue(o.message!.hasPrefix("NOT_VISIBLE: the element is under the keyboard"), o.message!)
        XCTAssertTrue(o.message!.contains("recovery"))
        XCTAssertFalse(p.calls.contains { $0.hasPrefix("tap") }, "never a tap on the keyboard")

        // A row below the fold inside a table: scrolled (drags with velocity), then tapped.
        func rows(_ offset: Double) -> ScreenCapture {
            let cells = (1...60).map { i in
                el(.cell, Rect(0, 100 + Double(i - 1) * 50 - offset, 393, 50),
                   [el(.staticText, label: "Row \(i)", Rect(21, 115 + Double(i - 1) * 50 - offset, 300, 20))])
            }
            return screen([el(.table, id: "rows", Rect(0, 100, 393, 500), cells)])
        }
        let q = FakePrimitives(rows(0), rows(0), rows(400), rows(800), rows(1200), rows(1600))
        let c = PrimitiveBackend(primitives: q, pace: .unpaced)
        _ = try c.capture(1)
        let row40 = 5 + 39 * 2  // app, window, marker, table, then cell/text pairs
        let r = try c.nodeAction(NodeActionCommand(id: 2, capture: 1, handle: row40, action: .click, identity: NodeIdentity()))
        XCTAssertEqual(r, .ok(.accessibilityAction))
        XCTAssertEqual(q.drags.count, 4, "400 points a drag (0.8 of the table) until Row 40 shows")
        XCTAssertTrue(q.drags.allSatisfy { $0.fromY > $0.toY && $0.pressSeconds < 0.5 })
        let tap = q.calls.last!
        XCTAssertTrue(tap.hasPrefix("tap "), tap)
        let y = Double(tap.split(separator: ",")[1])!
        XCTAssertTrue((100...600).contains(y), "tapped inside the table's visible part: \(tap)")
    }

    func testAPartlyCoveredElementIsTappedInItsUncoveredPartAndAnAlertBlocksTheRest() throws {
        let half = el(.button, label: "Half", Rect(21, 500, 351, 120))  // centre 560; the keyboard starts at 552
        let p = FakePrimitives(screen([half], keyboard: true))
        let b = PrimitiveBackend(primitives: p, pace: .unpaced)
        _ = try b.capture(1)
        XCTAssertEqual(try b.nodeAction(NodeActionCommand(id: 1, capture: 1, handle: 4, action: .click, identity: NodeIdentity())),
                       .ok(.accessibilityAction))
        XCTAssertEqual(p.calls.last, "tap 196,526", "the centre of the part above the keyboard")

        var alerted = screen([el(.button, label: "Behind", Rect(21, 400, 351, 47))])
        let alert = el(.application, full, [el(.window, full, [el(.alert, Rect(66, 300, 270, 200),
                                                                   [el(.button, label: "OK", Rect(66, 456, 270, 44))])])])
        alerted.roots.append(CapturedRoot(bundleId: ForegroundPicker.springboard, system: true, tree: alert))
        let q = FakePrimitives(alerted)
        let c = PrimitiveBackend(primitives: q, pace: .unpaced)
        let t = try c.capture(1)
        XCTAssertEqual(t.windows.count, 2, "the alert's window is captured with the app's")
        let behind = try XCTUnwrap(t.nodes.first { $0.label == "Behind" })
        let o = try c.nodeAction(NodeActionCommand(id: 2, capture: 1, handle: behind.handle, action: .click, identity: NodeIdentity()))
        XCTAssertEqual(o.code, .notVisible)
        XCTAssertTrue(o.message!.contains("under an alert") && o.message!.contains("answer or dismiss the alert"), o.message!)
        XCTAssertEqual(t.nodes.first { $0.automationId == "__screen_x" }?.hittable, false, "the marker is covered too")
        let ok = try XCTUnwrap(t.nodes.first { $0.label == "OK" })
        XCTAssertEqual(try c.nodeAction(NodeActionCommand(id: 3, capture: 1, handle: ok.handle, action: .click, identity: NodeIdentity())),
                       .ok(.accessibilityAction), "inside the alert is fine")
    }

    // Item 7 — reviewed code: the swipe's duration became a hold before the drag.
    func testDragsHaveVelocityAndAShortPress() {
        let plan = DragPlan.between(fromX: 0, fromY: 600, toX: 0, toY: 100, seconds: 2, scale: 3)
        XCTAssertEqual(plan.pixelsPerSecond, 750)
        XCTAssertLessThan(plan.pressSeconds, 0.5)
        XCTAssertEqual(plan.holdSeconds, 0)
        XCTAssertEqual(DragPlan.between(fromX: 0, fromY: 0, toX: 0, toY: 1, seconds: 10, scale: 3).pixelsPerSecond,
                       DragPlan.minPixelsPerSecond)
    }

    // Item 8 — reviewed code: one XCTest query per identified element per capture, and a
    // typing deadline of 50 ms a character whatever the pace and the value to clear.
    func testOneSnapshotPerRootAndDeadlinesScaleWithTheWork() throws {
        let many = (0..<40).map { el(.button, id: "b\($0)", label: "B", Rect(0, Double($0) * 10, 10, 10)) }
        let p = FakePrimitives(screen(many))
        _ = try PrimitiveBackend(primitives: p, pace: .unpaced).capture(1)
        XCTAssertEqual(p.calls, ["snapshot"], "one snapshot, no per-element query")

        let long = String(repeating: "a", count: 2000)
        let b = PrimitiveBackend(primitives: FakePrimitives(screen([el(.textField, id: "bio", value: long, Rect(21, 80, 351, 47))])),
                                 pace: .device)
        _ = try b.capture(1)
        var cmd = NodeActionCommand(id: 1, capture: 1, handle: 4, action: .setText, identity: NodeIdentity())
        cmd.text = long
        let budget = b.extraDeadlineMs(.nodeAction(cmd))
        let typing = TypingPace.device.pauseMs(long) + Int(2000 * 1000 / CommandBudget.xctestCharsPerSecond)
        let clearing = Int(2000 * 1000 / CommandBudget.xctestCharsPerSecond)
        XCTAssertGreaterThanOrEqual(budget, 2 * (typing + clearing), "both attempts fit")
        XCTAssertGreaterThan(budget, 2000 * 50, "more than the reviewed 50 ms a character")
    }
}

/// A fake whose text field ignores typing (autocorrect, a formatter, a dropped keyboard).
/// Issue 21: a pinch reaches XCUITest only on a layer that announces multi_touch, on the element
/// under the centre (pixels = points x scale), zooming in with a positive velocity.
final class MultiTouchBackendTests: XCTestCase {
    func testAPinchGoesToTheElementUnderTheCentreOnlyWhenTheLayerCanPinch() throws {
        let photo = el(.image, id: "photo", Rect(0, 100, 393, 400))
        let p = FakePrimitivesWrapper(screen([photo]))
        let b = PrimitiveBackend(primitives: p, pace: .unpaced)
        let refused = try b.multiTouch(kind: "pinch", center: Point(590, 900), scale: 2, durationMs: 500)
        XCTAssertEqual(refused.code, .unsupported)
        XCTAssertTrue(p.plans.isEmpty)
        p.extraCapabilities = ["multi_touch"]
        XCTAssertEqual(try b.multiTouch(kind: "pinch", center: Point(590, 900), scale: 2, durationMs: 500), .success)
        XCTAssertEqual(p.plans, [MultiTouchPlan(gesture: .pinch(scale: 2, velocity: 2), bundleId: "dev.mobridge.demo",
                                                identifier: "photo")])
        XCTAssertEqual(try b.multiTouch(kind: "two_finger_tap", center: Point(590, 2000), scale: 1, durationMs: 0),
                       .success)
        XCTAssertEqual(p.plans.last?.gesture, .twoFingerTap)
        XCTAssertEqual(p.plans.last?.identifier, "__screen_x")
    }
}

class FakePrimitivesWrapper: DevicePrimitives, @unchecked Sendable {
    let inner: FakePrimitives
    var typed: [String] = []
    init(_ s: ScreenCapture) { inner = FakePrimitives(s) }
    var deviceInfo: DeviceInfo { inner.deviceInfo }
    var extraCapabilities: [String] = []
    var plans: [MultiTouchPlan] = []
    var capabilities: [String] { inner.capabilities + extraCapabilities }
    func multiTouch(_ plan: MultiTouchPlan) throws -> Outcome {
        plans.append(plan)
        return .success
    }
    func screen() throws -> ScreenGeometry { try inner.screen() }
    func runningApps() throws -> [RunningApp] { try inner.runningApps() }
    func snapshot(of bundleId: String, limits: SnapshotLimits) throws -> ElementSnapshot {
        try inner.snapshot(of: bundleId, limits: limits)
    }
    func tap(x: Double, y: Double) throws {}
    func longPress(x: Double, y: Double, seconds: Double) throws {}
    func drag(_ plan: DragPlan) throws {}
    func typeText(_ text: String) throws { typed.append(text) }
    func typeKey(_ key: KeyName) throws {}
    func pressHome() throws {}
    func app(_ action: AppAction, bundleId: String?, url: String?) throws -> Outcome { .success }
    func screenshotPNG() throws -> [UInt8] { [] }
    func setChangeListener(_ listener: (@Sendable () -> Void)?) {}
    func health() -> String? { nil }
}
