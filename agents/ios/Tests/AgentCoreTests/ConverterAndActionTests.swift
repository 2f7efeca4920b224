import AgentCore
import Foundation
import XCTest

private func el(_ type: ElementType, id: String = "", label: String = "", value: String? = nil,
                placeholder: String? = nil, _ frame: Rect, focus: Bool = false,
                _ children: [ElementSnapshot] = []) -> ElementSnapshot {
    ElementSnapshot(type: type, identifier: id, label: label, value: value, placeholder: placeholder, frame: frame,
                    hasFocus: focus, children: children)
}

/// A login screen as XCUITest reports it (points, scale 3).
private func loginScreen(user: String = "Username", focus: Bool = false) -> ScreenCapture {
    let full = Rect(0, 0, 393, 852)
    let form = el(.other, id: "__screen_login", Rect(0, 59, 393, 759), [
        el(.staticText, label: "Welcome", Rect(21, 75, 351, 34)),
        el(.textField, id: "username", value: user, placeholder: "Username", Rect(21, 130, 351, 47), focus: focus),
        el(.secureTextField, id: "password", value: "•••••", placeholder: "Password", Rect(21, 190, 351, 47)),
        el(.cell, id: "row", Rect(0, 250, 393, 54), [el(.staticText, label: "Sign in", Rect(21, 265, 200, 24))]),
        el(.table, id: "list", Rect(0, 320, 393, 400), [el(.staticText, label: "inside", Rect(21, 330, 200, 24))]),
        el(.image, id: "logo", Rect(150, 740, 90, 60)),
    ])
    let app = el(.application, label: "Demo", full, [el(.window, full, [form])])
    return ScreenCapture(scale: 3, roots: [CapturedRoot(bundleId: "dev.mobridge.demo", system: false, tree: app)])
}

final class SnapshotConverterTests: XCTestCase {
    func testPreOrderPixelsFlagsAndSecureMasking() {
        let (tree, record) = SnapshotConverter().convert(loginScreen(), captureId: 4)
        XCTAssertEqual(tree.capture, 4)
        XCTAssertEqual(tree.platform, .ios)
        XCTAssertEqual(tree.package, "dev.mobridge.demo")
        XCTAssertEqual(tree.screen?.width, 1179)
        XCTAssertEqual(tree.screen?.height, 2556)
        XCTAssertEqual(tree.nodes.map(\.parent), [-1, 0, 1, 2, 2, 2, 2, 6, 2, 8, 2])
        XCTAssertEqual(tree.nodes.map(\.handle), Array(1...11))
        let user = tree.nodes[4]
        XCTAssertEqual(user.className, "XCUIElementTypeTextField")
        XCTAssertEqual(user.bounds, Bounds(63, 390, 1116, 531))
        XCTAssertEqual(user.actions, ["click", "setText"])
        XCTAssertTrue(user.editable && user.clickable && user.focusable)
        let pw = tree.nodes[5]
        XCTAssertTrue(pw.password)
        XCTAssertNil(pw.value)
        XCTAssertFalse(tree.toJson().encoded().contains("•"), "secure values never leave the device")
        XCTAssertEqual(record.element(handle: 6)?.element.value, "•••••", "kept on the device to clear the field")
        XCTAssertEqual(tree.nodes[8].actions, ["scrollForward", "scrollBackward"])
        XCTAssertEqual(tree.nodes[10].actions, [])
        XCTAssertEqual(tree.nodes[2].hittable, true, "a screen marker's hittability comes from frames")
        XCTAssertNil(tree.nodes[3].hittable, "no per-element hittable")
        XCTAssertEqual(tree.windows.map(\.id), [1])
        XCTAssertEqual(tree.nodes[0].window, 1, "the application belongs to its first window")
        XCTAssertEqual(record.markerIdentifiers, ["__screen_login"])
    }

    func testFocusKeyboardWindowAndSpringBoardAlert() {
        var screen = loginScreen(focus: true)
        let kb = Rect(0, 552, 393, 300)
        var app = screen.roots[0].tree
        app.children.append(el(.window, kb, [el(.keyboard, kb, [el(.key, id: "Return", label: "return", Rect(290, 790, 100, 50))])]))
        screen.roots[0].tree = app
        let alert = el(.alert, label: "Allow?", Rect(66, 330, 270, 190), [el(.button, label: "Allow", Rect(201, 476, 135, 44))])
        screen.roots.append(CapturedRoot(bundleId: "com.apple.springboard", system: true, tree: alert))
        let (tree, _) = SnapshotConverter().convert(screen, captureId: 1)
        XCTAssertEqual(tree.focus, 5)
        XCTAssertEqual(tree.windows.map(\.type), ["application", "input_method"])
        let alertIndex = tree.nodes.firstIndex { $0.className == "XCUIElementTypeAlert" }!
        XCTAssertEqual(tree.nodes[alertIndex].parent, -1, "the alert is a second root")
        XCTAssertEqual(tree.package, "dev.mobridge.demo")
    }

    func testDepthCapMarksTheFrontier() {
        var leaf = el(.staticText, label: "deep", Rect(0, 0, 10, 10))
        for _ in 0..<10 { leaf = el(.other, Rect(0, 0, 10, 10), [leaf]) }
        let capture = ScreenCapture(scale: 2, roots: [CapturedRoot(bundleId: "a.b", system: false, tree: leaf)])
        let (tree, _) = SnapshotConverter(maxDepth: 4).convert(capture, captureId: 1)
        XCTAssertEqual(tree.nodes.count, 5)
        XCTAssertEqual(tree.truncated, "depth limit 4 reached: 1 child elements (and their subtrees) not read")
        XCTAssertTrue(tree.nodes.allSatisfy { $0.traits.isEmpty })
        let (whole, _) = SnapshotConverter(maxDepth: 50).convert(capture, captureId: 1)
        XCTAssertEqual(whole.nodes.count, 11)
        XCTAssertFalse(whole.toJson().encoded().contains("truncated"))
    }

    func testNodeBudgetCutsAndMarks() {
        let kids = (0..<30).map { el(.button, id: "b\($0)", Rect(0, Double($0), 10, 1)) }
        let capture = ScreenCapture(scale: 1, roots: [CapturedRoot(bundleId: "a.b", system: false, tree: el(.other, Rect(0, 0, 10, 30), kids))])
        let (tree, _) = SnapshotConverter(maxDepth: 50, maxNodes: 10).convert(capture, captureId: 1)
        XCTAssertEqual(tree.nodes.count, 10)
        XCTAssertEqual(tree.truncated, "node limit 10 reached: the rest of the screen was not read")
    }

    func testDeterministic() {
        let a = SnapshotConverter().convert(loginScreen(), captureId: 2).0.toJson().encoded()
        let b = SnapshotConverter().convert(loginScreen(), captureId: 2).0.toJson().encoded()
        XCTAssertEqual(a, b)
    }

    func testTheIosFixtureScreenComesOutAsTheFixtureSaysIt() throws {
        // protocol/fixtures/agent-link/agent-to-hub/tree--ios.json, rebuilt from XCUITest-shaped
        // elements (its frames in points at scale 3): classes, ids, texts, bounds, masks agree.
        let text = try String(contentsOf: Repo.file("protocol/fixtures/agent-link/agent-to-hub/tree--ios.json"), encoding: .utf8)
        guard case .tree(_, _, let fixture, _) = try AgentMessage.decode(text) else { return XCTFail("not a tree") }
        func rect(_ b: Bounds?) -> Rect {
            let b = b!
            return Rect(Double(b.left) / 3, Double(b.top) / 3, Double(b.right - b.left) / 3, Double(b.bottom - b.top) / 3)
        }
        func type(_ n: RawNode) -> ElementType {
            ElementType.allCases.first { $0.className == n.className }!
        }
        // Rebuild the element tree from the fixture's parent links.
        var elements = fixture.nodes.map { n in
            ElementSnapshot(type: type(n), identifier: n.automationId ?? "", label: n.label ?? "",
                            value: n.password ? "••••" : n.value, placeholder: n.hint, frame: rect(n.bounds),
                            enabled: n.enabled)
        }
        for i in stride(from: elements.count - 1, through: 1, by: -1) {
            elements[fixture.nodes[i].parent].children.insert(elements[i], at: 0)
        }
        let capture = ScreenCapture(scale: 3, roots: [CapturedRoot(bundleId: fixture.package!, system: false, tree: elements[0])])
        let (tree, _) = SnapshotConverter().convert(capture, captureId: fixture.capture)
        XCTAssertEqual(tree.nodes.count, fixture.nodes.count)
        for (got, want) in zip(tree.nodes, fixture.nodes) {
            XCTAssertEqual(got.className, want.className)
            XCTAssertEqual(got.automationId, want.automationId)
            XCTAssertEqual(got.label, want.label)
            XCTAssertEqual(got.value, want.value)
            XCTAssertEqual(got.hint, want.hint)
            XCTAssertEqual(got.bounds, want.bounds)
            XCTAssertEqual(got.password, want.password)
            XCTAssertEqual(got.enabled, want.enabled)
            XCTAssertEqual(got.editable, want.editable)
            if !want.actions.isEmpty { XCTAssertEqual(got.actions, want.actions, want.className ?? "") }
        }
        XCTAssertEqual(tree.package, "com.example.Shop-Beta")
        XCTAssertEqual(tree.screen?.width, fixture.screen?.width)
    }
}

/// Records what the runner asks of the platform; `screens` are served in turn (one per snapshot
/// of the front application). Text fields behave: a tap on one focuses it (caret at the end),
/// typing edits its value (`\u{8}` deletes the last character).
final class FakePrimitives: DevicePrimitives, @unchecked Sendable {
    var screens: [ScreenCapture]
    var calls: [String] = []
    var drags: [DragPlan] = []
    var quiescence: [Quiescence] = []
    let deviceInfo = DeviceInfo(id: "fake")
    let capabilities = ["tree"]
    private var edited: [String: String] = [:]
    private var focused: String?

    init(_ screens: ScreenCapture...) { self.screens = screens }

    private var current: ScreenCapture { screens[0] }

    func screen() throws -> ScreenGeometry { ScreenGeometry(scale: current.scale, rotation: current.rotation) }
    func runningApps() throws -> [RunningApp] {
        current.roots.map { RunningApp(bundleId: $0.system ? ForegroundPicker.springboard : $0.bundleId, foreground: true) }
    }
    func snapshot(of bundleId: String, limits: SnapshotLimits) throws -> ElementSnapshot {
        if bundleId == ForegroundPicker.springboard {
            guard let r = current.roots.first(where: { $0.system }) else { throw JsonError("no springboard") }
            return r.tree
        }
        calls.append("snapshot")
        let cap = screens.count > 1 ? screens.removeFirst() : screens[0]
        return apply(cap.roots.first { !$0.system }!.tree)
    }
    private func apply(_ e: ElementSnapshot) -> ElementSnapshot {
        var n = e
        if let v = edited[e.identifier] { n.value = v.isEmpty ? e.placeholder : (e.type == .secureTextField ? String(repeating: "•", count: v.count) : v) }
        if focused != nil { n.hasKeyboardFocus = e.identifier == focused }
        n.children = e.children.map(apply)
        return n
    }
    private func field(at x: Double, _ y: Double, in e: ElementSnapshot) -> ElementSnapshot? {
        if e.type?.isEditable == true && e.frame.contains(x: x, y: y) { return e }
        for c in e.children { if let f = field(at: x, y, in: c) { return f } }
        return nil
    }
    func setQuiescence(_ wait: Quiescence) { quiescence.append(wait) }
    func tap(x: Double, y: Double) throws {
        calls.append("tap \(Int(x)),\(Int(y))")
        if let f = field(at: x, y, in: current.roots[0].tree) {
            focused = f.identifier
            if edited[f.identifier] == nil {
                let v = f.value ?? ""
                edited[f.identifier] = v == f.placeholder ? "" : (f.type == .secureTextField ? String(repeating: "x", count: v.count) : v)
            }
        }
    }
    func longPress(x: Double, y: Double, seconds: Double) throws { calls.append("press \(Int(x)),\(Int(y)) \(seconds)") }
    func drag(_ plan: DragPlan) throws {
        drags.append(plan)
        calls.append("drag \(Int(plan.fromX)),\(Int(plan.fromY))->\(Int(plan.toX)),\(Int(plan.toY))")
    }
    func typeText(_ text: String) throws {
        calls.append("type " + text.replacingOccurrences(of: "\u{8}", with: "⌫"))
        guard let f = focused else { return }
        var v = edited[f] ?? ""
        for c in text { if c == "\u{8}" { if !v.isEmpty { v.removeLast() } } else { v.append(c) } }
        edited[f] = v
    }
    func typeKey(_ key: KeyName) throws { calls.append("key \(key)") }
    func pressHome() throws { calls.append("home") }
    func app(_ action: AppAction, bundleId: String?, url: String?) throws -> Outcome { calls.append("app"); return .success }
    func screenshotPNG() throws -> [UInt8] { [1, 2, 3] }
    func setChangeListener(_ listener: (@Sendable () -> Void)?) {}
    func health() -> String? { nil }
}

final class NodeActionTests: XCTestCase {
    private func backend(_ p: FakePrimitives) -> PrimitiveBackend { PrimitiveBackend(primitives: p, pace: .unpaced) }

    private func command(_ handle: Int, _ action: ActionVerb, className: String? = nil, id: String? = nil,
                         text: String? = nil, gesture: Bool = false) -> NodeActionCommand {
        var c = NodeActionCommand(id: 1, capture: 1, handle: handle, action: action,
                                  identity: NodeIdentity(className: className, automationId: id))
        c.text = text
        c.allowGesture = gesture
        return c
    }

    func testSetTextFocusesClearsThePlaceholderAwareValueAndTypes() throws {
        let p = FakePrimitives(loginScreen(user: "ada"))
        let b = backend(p)
        _ = try b.capture(1)
        let o = try b.nodeAction(command(5, .setText, className: "XCUIElementTypeTextField", id: "username", text: "demo"))
        XCTAssertEqual(o, .ok(.accessibilityAction))
        // The live re-read, a tap near the field's end (the caret goes there), then the old
        // value deleted by its length, the text typed and the value read back.
        XCTAssertEqual(p.calls, ["snapshot", "snapshot", "tap 368,153", "snapshot", "type ⌫⌫⌫", "type demo", "snapshot"])

        let p2 = FakePrimitives(loginScreen(user: "Username", focus: true))
        let b2 = backend(p2)
        _ = try b2.capture(1)
        _ = try b2.nodeAction(command(5, .setText, text: "x"))
        XCTAssertEqual(Array(p2.calls.prefix(3)), ["snapshot", "snapshot", "type x"], "focused already; the placeholder is not deleted")
    }

    func testSecureFieldIsClearedByItsBulletCount() throws {
        let p = FakePrimitives(loginScreen())
        let b = backend(p)
        _ = try b.capture(1)
        XCTAssertEqual(try b.nodeAction(command(6, .clearText)), .ok(.accessibilityAction))
        XCTAssertEqual(Array(p.calls.suffix(4)), ["tap 368,213", "snapshot", "type ⌫⌫⌫⌫⌫", "snapshot"])
    }

    func testClickOnATextInsideACellUsesTheCellAndOnAPlainTextNeedsGestures() throws {
        let p = FakePrimitives(loginScreen())
        let b = backend(p)
        _ = try b.capture(1)
        XCTAssertEqual(try b.nodeAction(command(8, .click)), .ok(.ancestor))
        XCTAssertEqual(p.calls.last, "tap 196,277")
        let plain = try b.nodeAction(command(4, .click))
        XCTAssertEqual(plain.code, .unsupported)
        XCTAssertEqual(try b.nodeAction(command(4, .click, gesture: true)), .ok(.gestureFallback))
        XCTAssertEqual(try b.nodeAction(command(5, .longClick)), .ok(.accessibilityAction))
        XCTAssertEqual(p.calls.last, "press 196,153 1.0")
    }

    func testScrollUsesTheNearestScrollableAncestor() throws {
        let p = FakePrimitives(loginScreen())
        let b = backend(p)
        _ = try b.capture(1)
        XCTAssertEqual(try b.nodeAction(command(10, .scrollForward)), .ok(.ancestor))
        XCTAssertEqual(p.calls.last, "drag 196,620->196,420")
        XCTAssertLessThan(p.drags.last!.pressSeconds, 0.5, "a drag with velocity, never a hold that opens a context menu")
        XCTAssertEqual(try b.nodeAction(command(9, .scrollBackward)), .ok(.accessibilityAction))
        XCTAssertEqual(try b.nodeAction(command(4, .scrollForward)).code, .unsupported)
    }

    func testStaleHandlesNeverActOnAnotherElement() throws {
        let moved = loginScreen()
        var other = moved
        var form = other.roots[0].tree.children[0].children[0]
        form.children.remove(at: 1)  // the username field is gone
        other.roots[0].tree.children[0].children[0] = form
        let p = FakePrimitives(moved, other)
        let b = backend(p)
        _ = try b.capture(1)
        let gone = try b.nodeAction(command(5, .setText, text: "x"))
        XCTAssertEqual(gone.code, .notFound)
        XCTAssertFalse(p.calls.contains { $0.hasPrefix("tap") || $0.hasPrefix("type") })

        let p2 = FakePrimitives(loginScreen())
        let b2 = backend(p2)
        _ = try b2.capture(1)
        let mismatch = try b2.nodeAction(command(5, .click, className: "XCUIElementTypeButton", id: "username"))
        XCTAssertEqual(mismatch.code, .identityMismatch)
        XCTAssertEqual(mismatch.message, "handle 5 of capture 1: className differs")
        XCTAssertEqual(try b2.nodeAction(command(99, .click)).code, .notFound)
        var unknownCapture = command(5, .click)
        unknownCapture.capture = 7
        XCTAssertEqual(try b2.nodeAction(unknownCapture).code, .notFound)
    }

    func testOnlyTheNewestCapturesAreRetained() throws {
        let b = backend(FakePrimitives(loginScreen()))
        for i in 1...6 { _ = try b.capture(i) }
        XCTAssertNil(b.record(2))
        XCTAssertNotNil(b.record(3))
        XCTAssertNotNil(b.record(6))
    }

    func testGesturesArePixelsDividedByTheScaleAndKeysMap() throws {
        let p = FakePrimitives(loginScreen())
        let b = backend(p)
        _ = try b.capture(1)
        XCTAssertEqual(try b.gesture(kind: "tap", points: [Point(300, 600)], durationMs: 0), .success)
        XCTAssertEqual(p.calls.last, "tap 100,200")
        _ = try b.gesture(kind: "swipe", points: [Point(30, 60), Point(30, 600)], durationMs: 1000)
        XCTAssertEqual(p.calls.last, "drag 10,20->10,200")
        // 540 pixels in one second: a velocity, and the press before it stays short.
        XCTAssertEqual(p.drags.last?.pixelsPerSecond, 540)
        XCTAssertEqual(p.drags.last?.pressSeconds, DragPlan.pressSeconds)
        XCTAssertEqual(try b.gesture(kind: "pinch", points: [Point(1, 1)], durationMs: 0).code, .unsupported)
        XCTAssertEqual(try b.key("DEL"), .success)
        XCTAssertEqual(p.calls.last, "key delete")
        XCTAssertEqual(try b.key("F13").code, .unsupported)
        XCTAssertEqual(try b.globalAction(.back).code, .unsupported)
        XCTAssertEqual(try b.globalAction(.home), .success)
        XCTAssertEqual(try b.clipboard(set: nil).code, .unsupported)
        XCTAssertEqual(try b.screenshot().pngBase64, "AQID")
    }
}
