import AgentCore
import Foundation
import HostMode
import XCTest

/// Plays the hub over a real loopback socket: handshake, masked frames out, frames in.
final class TestHub {
    let stream: SocketStream
    let reader: BufferedReader
    var status = 0

    init(port: Int, token: String?) throws {
        stream = try SocketStream.connect(port: port)
        try stream.setReadTimeout(ms: 10_000)
        reader = BufferedReader(stream)
        var head = "GET /agent HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        head += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        if let t = token { head += "Authorization: Bearer \(t)\r\n" }
        try stream.write(Array((head + "\r\n").utf8))
        var line = [UInt8]()
        while !(line.count >= 4 && line.suffix(4) == [13, 10, 13, 10]) {
            guard let b = try reader.readByte() else { break }
            line.append(b)
        }
        let text = String(decoding: line, as: UTF8.self)
        status = Int(text.split(separator: " ")[1]) ?? 0
    }

    func send(_ json: String) throws {
        try stream.write(WsFrameCodec.encode(fin: true, opcode: .text, payload: Array(json.utf8), maskKey: [1, 2, 3, 4]))
    }

    func send(_ m: HubMessage) throws { try send(m.encode()) }

    /// The next frame (pings answered, pongs skipped); nil when the stream ended.
    func frame() throws -> WsFrame? {
        while let f = try WsFrameCodec.read(reader, requireMask: false, maxPayload: 1 << 26) {
            if f.opcode == .ping {
                try stream.write(WsFrameCodec.encode(fin: true, opcode: .pong, payload: f.payload, maskKey: [0, 0, 0, 0]))
                continue
            }
            return f
        }
        return nil
    }

    /// The next agent message, skipping frames that are not text.
    func message() throws -> AgentMessage {
        while let f = try frame() {
            if f.opcode == .text { return try AgentMessage.decode(String(decoding: f.payload, as: UTF8.self)) }
            if f.opcode == .close { throw StreamError.closed }
        }
        throw StreamError.closed
    }

    /// Messages until the reply with `id`; the trees pushed meanwhile are collected.
    func reply(_ id: Int, trees: inout [RawTree]) throws -> Reply {
        while true {
            switch try message() {
            case .reply(let r) where r.id == id: return r
            case .tree(_, _, let t, _): trees.append(t)
            default: continue
            }
        }
    }

    func reply(_ id: Int) throws -> Reply {
        var ignored: [RawTree] = []
        return try reply(id, trees: &ignored)
    }

    func hello() throws -> (AgentMessage, RawTree) {
        try send(.hello(protocolVersion: 1, hub: "swift-test", token: nil))
        let hello = try message()
        guard case .tree(let reason, _, let tree, _) = try message(), reason == "initial" else {
            throw StreamError.io("no initial tree")
        }
        return (hello, tree)
    }

    /// The close code the agent sent, reading until it comes.
    func closeCode() throws -> Int? {
        while let f = try frame() {
            if f.opcode == .close { return f.payload.count >= 2 ? Int(f.payload[0]) << 8 | Int(f.payload[1]) : 1005 }
        }
        return nil
    }

    func close() { stream.close() }
}

/// A running agent: the real core and host primitives behind a real loopback listener.
final class RunningAgent {
    let server: AgentServer
    let listener: LoopbackListener
    let primitives: DevicePrimitives
    static let token = "swift-host-test-token"

    init(_ primitives: DevicePrimitives = HostPrimitives(ticking: false), config: AgentConfig = AgentConfig(),
         pace: TypingPace = .unpaced) throws {
        self.primitives = primitives
        server = AgentServer(backend: PrimitiveBackend(primitives: primitives, pace: pace), tokens: try TokenCheck(Self.token),
                             config: config, uiThread: SerialQueueThread(label: "test-ui"), platform: .ios,
                             log: StderrLog(prefix: "test-agent"))
        listener = try LoopbackListener(port: 0)
        let s = server
        listener.start { s.serve($0) }
    }

    func hub(token: String? = RunningAgent.token) throws -> TestHub { try TestHub(port: listener.port, token: token) }

    deinit {
        server.stop(reason: "test over")
        listener.stop()
    }
}

private func node(_ t: RawTree, _ id: String) -> RawNode? { t.nodes.first { $0.automationId == id } }

final class HostAgentTests: XCTestCase {
    func testRefusesAWrongTokenWith401() throws {
        let agent = try RunningAgent()
        XCTAssertEqual(try agent.hub(token: "wrong").status, 401)
        XCTAssertEqual(try agent.hub(token: nil).status, 401)
        XCTAssertEqual(try agent.hub().status, 101)
    }

    func testHelloThenInitialTreeOfTheLoginScreen() throws {
        let agent = try RunningAgent()
        let hub = try agent.hub()
        let (hello, tree) = try hub.hello()
        guard case .hello(let p, let platform, let name, _, let device, let caps) = hello else { return XCTFail("\(hello)") }
        XCTAssertEqual(p, 1)
        XCTAssertEqual(platform, .ios)
        XCTAssertEqual(name, "mobridge-ios-runner")
        XCTAssertEqual(device.width, 1179)
        XCTAssertTrue(caps.contains("node_action"))
        XCTAssertEqual(tree.capture, 1)
        XCTAssertEqual(node(tree, "__screen_login")?.hittable, true)
        XCTAssertEqual(node(tree, "login")?.label, "Sign in")
    }

    func testLoginFlowOverTheAgentLinkNeverLeaksThePassword() throws {
        let agent = try RunningAgent()
        let hub = try agent.hub()
        var (_, tree) = try hub.hello()
        var pushed: [RawTree] = []
        var cmd = NodeActionCommand(id: 1, capture: tree.capture, handle: node(tree, "username")!.handle, action: .setText,
                                    identity: NodeIdentity(className: "XCUIElementTypeTextField", automationId: "username"))
        cmd.text = "demo"
        try hub.send(.nodeAction(cmd))
        XCTAssertEqual(try hub.reply(1, trees: &pushed).method, .accessibilityAction)
        cmd = NodeActionCommand(id: 2, capture: tree.capture, handle: node(tree, "password")!.handle, action: .setText,
                                identity: NodeIdentity(className: "XCUIElementTypeSecureTextField", automationId: "password"))
        cmd.text = "pw-secret-1"
        try hub.send(.nodeAction(cmd))
        XCTAssertTrue(try hub.reply(2, trees: &pushed).ok)
        try hub.send(.capture(id: 3))
        let captured = try XCTUnwrap(try hub.reply(3, trees: &pushed).tree)
        XCTAssertEqual(node(captured, "username")?.value, "demo")
        XCTAssertEqual(node(captured, "password")?.password, true)
        XCTAssertNil(node(captured, "password")?.value)
        XCTAssertEqual(captured.windows.map(\.type), ["application", "input_method"], "the keyboard is up")
        tree = captured
        try hub.send(.nodeAction(NodeActionCommand(id: 4, capture: tree.capture, handle: node(tree, "login")!.handle,
                                                   action: .click, identity: NodeIdentity(automationId: "login"))))
        XCTAssertTrue(try hub.reply(4, trees: &pushed).ok)
        // The action raises a change: a pushed tree shows home without being asked.
        let deadline = Date().addingTimeInterval(5)
        while !pushed.contains(where: { node($0, "__screen_home") != nil }) && Date() < deadline {
            if case .tree(_, _, let t, _) = try hub.message() { pushed.append(t) }
        }
        let home = try XCTUnwrap(pushed.last { node($0, "__screen_home") != nil })
        XCTAssertTrue(home.capture > captured.capture)
        for t in pushed + [captured, home] { XCTAssertFalse(t.toJson().encoded().contains("pw-secret-1")) }
        XCTAssertFalse(captured.toJson().encoded().contains("•"))
    }

    func testAfterOptionsChangesComeAsTreeDeltasBasedOnTheLastTreeSent() throws {
        let agent = try RunningAgent()
        let hub = try agent.hub()
        let (hello, login) = try hub.hello()
        guard case .hello(_, _, _, _, _, let caps) = hello else { return XCTFail("\(hello)") }
        XCTAssertTrue(caps.contains("tree_delta"))
        try hub.send(.options(id: 1, treeDelta: true))
        XCTAssertTrue(try hub.reply(1).ok)
        let user = try XCTUnwrap(node(login, "username"))
        var cmd = NodeActionCommand(id: 2, capture: login.capture, handle: user.handle, action: .setText,
                                    identity: NodeIdentity(automationId: "username"))
        cmd.text = "ada"
        try hub.send(.nodeAction(cmd))
        var delta: TreeDelta?
        var answered = false
        let deadline = Date().addingTimeInterval(5)
        while (delta == nil || !answered) && Date() < deadline {
            switch try hub.message() {
            case .treeDelta(let d): delta = delta ?? d
            case .reply(let r) where r.id == 2: answered = r.ok
            case .tree: XCTFail("a whole tree after options")
            default: continue
            }
        }
        let d = try XCTUnwrap(delta)
        XCTAssertTrue(answered)
        XCTAssertEqual(d.base, login.capture)
        let typed = try XCTUnwrap(d.upsert.first { $0.handle == user.handle }, "the field keeps its handle")
        XCTAssertEqual(typed.value, "ada")
        XCTAssertEqual(typed.parent, login.nodes[user.parent].handle, "an upsert names its parent by handle")
        // a capture reply is the base of the next delta
        try hub.send(.capture(id: 3))
        let captured = try XCTUnwrap(try hub.reply(3).tree)
        cmd.id = 4
        cmd.capture = captured.capture
        cmd.text = "ada l"
        try hub.send(.nodeAction(cmd))
        var next: TreeDelta?
        while next == nil && Date() < deadline.addingTimeInterval(5) {
            if case .treeDelta(let d2) = try hub.message() { next = d2 }
        }
        XCTAssertEqual(next?.base, captured.capture)
    }

    func testStaleHandleAfterTheScreenChangedIsRefused() throws {
        let agent = try RunningAgent()
        let hub = try agent.hub()
        let (_, login) = try hub.hello()
        var cmd = NodeActionCommand(id: 1, capture: 1, handle: node(login, "username")!.handle, action: .setText,
                                    identity: NodeIdentity(automationId: "username"))
        cmd.text = "demo"
        try hub.send(.nodeAction(cmd))
        _ = try hub.reply(1)
        try hub.send(.nodeAction(NodeActionCommand(id: 2, capture: 1, handle: node(login, "login")!.handle, action: .click,
                                                   identity: NodeIdentity(automationId: "login"))))
        XCTAssertTrue(try hub.reply(2).ok)
        // Capture 1's username field is gone now (home is shown): never typed into something else.
        cmd.id = 3
        try hub.send(.nodeAction(cmd))
        let stale = try hub.reply(3)
        XCTAssertFalse(stale.ok)
        XCTAssertEqual(stale.code, "NOT_FOUND")
        try hub.send(.nodeAction(NodeActionCommand(id: 4, capture: 1, handle: node(login, "login")!.handle, action: .click,
                                                   identity: NodeIdentity(className: "XCUIElementTypeStaticText"))))
        XCTAssertEqual(try hub.reply(4).code, "IDENTITY_MISMATCH")
    }

    func testDoubleTapKeysAndVolumeReachTheScriptedApp() throws {
        let primitives = HostPrimitives(ticking: false)
        let agent = try RunningAgent(primitives)
        let hub = try agent.hub()
        let (hello, tree) = try hub.hello()
        guard case .hello(_, _, _, _, _, let caps) = hello else { return XCTFail("\(hello)") }
        for c in ["apps", "terminate", "install", "uninstall", "orientation"] { XCTAssertTrue(caps.contains(c), c) }
        XCTAssertFalse(caps.contains("clear"), "an iPhone cannot clear one app's data")
        try hub.send(.clear(id: 90, appId: "dev.mobridge.demo"))
        let cleared = try hub.reply(90)
        XCTAssertEqual(cleared.code, "UNSUPPORTED")
        XCTAssertEqual(cleared.message, "an iPhone cannot clear one app's data; reinstall the app (app uninstall + install)")
        for c in ["alerts", "keyboard"] { XCTAssertTrue(caps.contains(c), c) }
        try hub.send(.alert(id: 91, action: "list", button: nil))
        XCTAssertEqual(try hub.reply(91).alerts, [])
        try hub.send(.alert(id: 92, action: "accept", button: nil))
        XCTAssertEqual(try hub.reply(92).code, "NOT_FOUND")
        try hub.send(.permission(id: 93, action: "grant", appId: "dev.mobridge.demo", permission: "camera"))
        let perm = try hub.reply(93)
        XCTAssertEqual(perm.code, "UNSUPPORTED")
        XCTAssertTrue(perm.message?.contains("answer the app's permission alert") ?? false)
        try hub.send(.keyboard(id: 94))
        XCTAssertTrue(try hub.reply(94).ok, "no keyboard: nothing to hide")
        let user = try XCTUnwrap(node(tree, "username")?.bounds)
        let x = (user.left + user.right) / 2, y = (user.top + user.bottom) / 2
        try hub.send(.gesture(id: 1, kind: "double_tap", points: [Point(x, y)], durationMs: 0))
        XCTAssertTrue(try hub.reply(1).ok)
        try hub.send(.text(id: 2, text: "demo"))
        XCTAssertTrue(try hub.reply(2).ok)
        try hub.send(.key(id: 3, key: "ESCAPE"))
        XCTAssertTrue(try hub.reply(3).ok)
        try hub.send(.text(id: 4, text: "x"))
        XCTAssertEqual(try hub.reply(4).code, "FAILED", "escape took the focus away")
        let before = primitives.volume
        try hub.send(.key(id: 5, key: "VOLUME_UP"))
        XCTAssertTrue(try hub.reply(5).ok)
        XCTAssertEqual(primitives.volume, before + 1)
        try hub.send(.key(id: 6, key: "DPAD_DOWN"))
        let dpad = try hub.reply(6)
        XCTAssertEqual(dpad.code, "UNSUPPORTED")
        XCTAssertTrue(dpad.message?.contains("not available on iOS") ?? false)
        try hub.send(.gesture(id: 7, kind: "double_tap", points: [Point(1, 1), Point(2, 2)], durationMs: 0))
        XCTAssertEqual(try hub.reply(7).code, "BAD_COMMAND")
    }

    func testOrientationTurnsTheCapturedScreen() throws {
        let agent = try RunningAgent()
        let hub = try agent.hub()
        let (_, tree) = try hub.hello()
        XCTAssertEqual(tree.screen?.width, 1179)
        try hub.send(.orientation(id: 1, orientation: .landscape))
        XCTAssertTrue(try hub.reply(1).ok)
        try hub.send(.capture(id: 2))
        let turned = try XCTUnwrap(try hub.reply(2).tree)
        XCTAssertEqual(turned.screen?.width, 2556)
        XCTAssertEqual(turned.screen?.height, 1179)
        try hub.send(.orientation(id: 3, orientation: .portrait))
        XCTAssertTrue(try hub.reply(3).ok)
        try hub.send(.capture(id: 4))
        XCTAssertEqual(try XCTUnwrap(try hub.reply(4).tree).screen?.width, 1179)
    }

    func testAppsAreListedTerminatedInstalledAndUninstalled() throws {
        let primitives = HostPrimitives(ticking: false)
        let agent = try RunningAgent(primitives)
        let hub = try agent.hub()
        _ = try hub.hello()
        try hub.send(.apps(id: 1))
        let listed = try XCTUnwrap(try hub.reply(1).apps)
        XCTAssertEqual(listed.map(\.appId), [ScriptedApp.bundleId, ScriptedApp.springboard, "com.apple.Preferences"])
        XCTAssertEqual(listed.map(\.system), [false, true, true])
        try hub.send(.terminate(id: 2, appId: ScriptedApp.bundleId))
        XCTAssertTrue(try hub.reply(2).ok)
        XCTAssertEqual(primitives.screenName, "springboard")
        try hub.send(.terminate(id: 3, appId: "com.example.absent"))
        XCTAssertEqual(try hub.reply(3).code, "NOT_FOUND")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("notes-\(UUID().uuidString).json")
        let package = Data(#"{"appId":"com.example.notes","name":"Notes"}"#.utf8)
        try package.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try hub.send(.install(id: 4, path: file.path, sha256: String(repeating: "0", count: 64)))
        XCTAssertEqual(try hub.reply(4).code, "FAILED", "a wrong sha256 is refused")
        try hub.send(.install(id: 5, path: file.path, sha256: Digest.hex(Digest.sha256([UInt8](package)))))
        let installed = try hub.reply(5)
        XCTAssertTrue(installed.ok, installed.message ?? "")
        XCTAssertEqual(installed.appId, "com.example.notes")
        try hub.send(.apps(id: 6))
        XCTAssertEqual(try hub.reply(6).apps?.count, 4)
        try hub.send(.uninstall(id: 7, appId: "com.example.notes"))
        XCTAssertTrue(try hub.reply(7).ok)
        try hub.send(.uninstall(id: 8, appId: "com.apple.Preferences"))
        XCTAssertEqual(try hub.reply(8).code, "FAILED")
    }

    func testEveryCommandGetsExactlyOneReplyEvenWhenBad() throws {
        let agent = try RunningAgent()
        let hub = try agent.hub()
        _ = try hub.hello()
        try hub.send(#"{"type":"teleport","id":9}"#)
        XCTAssertEqual(try hub.reply(9).code, "BAD_COMMAND")
        try hub.send(#"{"type":"capture","id":10,"extra":1}"#)
        XCTAssertEqual(try hub.reply(10).code, "BAD_COMMAND")
        try hub.send(.ping(id: 11))
        XCTAssertTrue(try hub.reply(11).ok)
        try hub.send(.clipboard(id: 12, set: nil))
        XCTAssertEqual(try hub.reply(12).text, "", "the pasteboard (issue 34), empty")
        try hub.send(.gesture(id: 13, kind: "swipe", points: [Point(1, 1)], durationMs: 0))
        XCTAssertEqual(try hub.reply(13).code, "BAD_COMMAND")
        try hub.send(.screenshot(id: 14))
        let png = try XCTUnwrap(Base64.decode(try XCTUnwrap(try hub.reply(14).pngBase64)))
        XCTAssertEqual(PNGInfo.size(png)?.width, 131)
        try hub.send(.app(id: 15, action: .open, appId: "com.example.missing", uri: nil))
        XCTAssertEqual(try hub.reply(15).code, "NOT_FOUND")
        try hub.send(#"{"type":"capture"}"#)
        XCTAssertEqual(try hub.closeCode(), 1008, "no id to answer: the link closes")
    }

    func testHelloRulesAndSupersede() throws {
        let agent = try RunningAgent()
        let first = try agent.hub()
        try first.send(.capture(id: 1))
        XCTAssertEqual(try first.closeCode(), 1008, "hello must come first")
        let badProtocol = try agent.hub()
        try badProtocol.send(.hello(protocolVersion: 2, hub: "x", token: nil))
        XCTAssertEqual(try badProtocol.closeCode(), 1008)
        let a = try agent.hub()
        _ = try a.hello()
        let b = try agent.hub()
        _ = try b.hello()
        XCTAssertEqual(try a.closeCode(), 1001, "a newer hub connection supersedes the older")
        try b.send(.ping(id: 5))
        XCTAssertTrue(try b.reply(5).ok)
    }

    func testBusyMainThreadAnswersBusyAndPingsStillFlow() throws {
        final class SlowPrimitives: DevicePrimitives, @unchecked Sendable {
            let inner = HostPrimitives(ticking: false)
            let gate = DispatchSemaphore(value: 0)
            var deviceInfo: DeviceInfo { inner.deviceInfo }
            var capabilities: [String] { inner.capabilities }
            func screen() throws -> ScreenGeometry { try inner.screen() }
            func runningApps() throws -> [RunningApp] { try inner.runningApps() }
            func snapshot(of bundleId: String, limits: SnapshotLimits) throws -> ElementSnapshot {
                try inner.snapshot(of: bundleId, limits: limits)
            }
            func tap(x: Double, y: Double) throws { gate.wait() }  // an XCUITest call that hangs
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
        let slow = SlowPrimitives()
        var config = AgentConfig()
        config.commandDeadlineMs = 200
        let agent = try RunningAgent(slow, config: config)
        let hub = try agent.hub()
        _ = try hub.hello()
        try hub.send(.gesture(id: 1, kind: "tap", points: [Point(30, 30)], durationMs: 0))
        let over = try hub.reply(1)
        XCTAssertEqual(over.code, "FAILED")
        XCTAssertTrue(over.message?.contains("still running") == true, over.message ?? "")
        try hub.send(.capture(id: 2))
        let busy = try hub.reply(2)
        XCTAssertEqual(busy.code, "FAILED")
        XCTAssertTrue(busy.message?.hasPrefix("busy:") == true, busy.message ?? "")
        try hub.send(.ping(id: 3))
        XCTAssertTrue(try hub.reply(3).ok, "pings are answered off the main thread")
        slow.gate.signal()
        var captured: Reply?
        for id in 4..<40 where captured?.ok != true {
            try hub.send(.capture(id: id))
            captured = try hub.reply(id)
            if captured?.ok != true { Thread.sleep(forTimeInterval: 0.05) }
        }
        XCTAssertNotNil(captured?.tree, "commands run again once the main thread is free")
    }

    func testDegradedHealthIsReportedAndRecovers() throws {
        let host = HostPrimitives(ticking: false)
        var config = AgentConfig()
        config.watchdogIntervalMs = 50
        let agent = try RunningAgent(host, config: config)
        let hub = try agent.hub()
        _ = try hub.hello()
        host.setHealthProblem("accessibility lost")
        var state = ""
        while state != "degraded" { if case .status(let s, let r) = try hub.message() { state = s; XCTAssertEqual(r, "accessibility lost") } }
        try hub.send(.capture(id: 1))
        XCTAssertTrue(try hub.reply(1).message?.contains("degraded") == true)
        host.setHealthProblem(nil)
        while state != "ready" { if case .status(let s, _) = try hub.message() { state = s } }
        var resync = false
        while !resync { if case .tree = try hub.message() { resync = true } }
    }

    func testStopTellsTheHub() throws {
        let agent = try RunningAgent()
        let hub = try agent.hub()
        _ = try hub.hello()
        agent.server.stop(reason: "bye")
        var stopping = false
        while !stopping { if case .status(let s, let r) = try hub.message(), s == "stopping" { stopping = true; XCTAssertEqual(r, "bye") } }
    }
}

final class ScriptedAppTests: XCTestCase {
    func testBehavesLikeXCUITestReportsIt() throws {
        let app = ScriptedApp()
        var changes = 0
        app.onChange = { changes += 1 }
        let field = app.appTree().children[0].children[0].children[1]
        XCTAssertEqual(field.value, "Username", "an empty field reports its placeholder as value")
        XCTAssertThrowsError(try app.type("x"), "no keyboard focus")
        app.tap(x: 100, y: 150)
        try app.type("demX\u{8}o")
        XCTAssertEqual(app.username, "demo")
        app.tap(x: 100, y: 210)
        try app.type("pw")
        let pw = app.appTree().children[0].children[0].children[2]
        XCTAssertEqual(pw.value, "••")
        try app.type("\r")
        XCTAssertEqual(app.screen, .home)
        XCTAssertGreaterThan(changes, 4)
        app.tap(x: 100, y: 240)
        XCTAssertEqual(app.roots().map(\.bundleId), ["dev.mobridge.demo", "com.apple.springboard"])
        app.tap(x: 300, y: 490)
        XCTAssertFalse(app.alertShown)
        app.home()
        XCTAssertEqual(app.roots().map(\.bundleId), ["com.apple.springboard"])
        app.tap(x: 50, y: 150)
        XCTAssertTrue(app.inFront)
        XCTAssertTrue(app.open("mobridge-demo://login"))
        XCTAssertFalse(app.open("https://example.com"))
    }

    func testPngWriterProducesAValidPng() {
        let png = PNGWriter.grey(width: 3, height: 2, pixels: [0, 64, 128, 255, 1, 2])
        XCTAssertEqual(PNGInfo.size(png)?.width, 3)
        XCTAssertEqual(PNGInfo.size(png)?.height, 2)
        XCTAssertEqual(Array(png.suffix(12)), [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82], "IEND and its CRC")
    }

    func testReplayFilesAreStrict() throws {
        let ok = #"{"scale":2,"roots":[{"bundleId":"a.b","tree":{"type":"XCUIElementTypeApplication","frame":[0,0,10,20],"children":[{"type":"XCUIElementTypeButton","label":"Go","frame":[1,2,3,4.5]}]}}]}"#
        let capture = try SnapshotFile.parse(ok)
        XCTAssertEqual(capture.scale, 2)
        XCTAssertEqual(capture.roots[0].tree.children[0].label, "Go")
        XCTAssertThrowsError(try SnapshotFile.parse(ok.replacingOccurrences(of: "XCUIElementTypeButton", with: "Buttonish")))
        XCTAssertThrowsError(try SnapshotFile.parse(ok.replacingOccurrences(of: "\"label\"", with: "\"lable\"")))
    }

    func testHostOptions() throws {
        let o = try HostOptions.parse(["--port", "0", "--type-cps", "30"], environment: ["MOBRIDGE_AGENT_TOKEN": "t"])
        XCTAssertEqual(o.port, 0)
        XCTAssertEqual(o.token, "t")
        XCTAssertEqual(o.typeCps, 30)
        XCTAssertThrowsError(try HostOptions.parse(["--port", "0"], environment: [:]))
        XCTAssertThrowsError(try HostOptions.parse(["--token", "t"], environment: [:]))
        XCTAssertThrowsError(try HostOptions.parse(["--port", "70000", "--token", "t"], environment: [:]))
        XCTAssertThrowsError(try HostOptions.parse(["--port", "1", "--token", "t", "--bogus"], environment: [:]))
    }
}

final class LoopbackListenerTests: XCTestCase {
    func testListensOnLoopbackOnlyAndOnIpv6OnlyWhenAsked() throws {
        let l = try LoopbackListener(port: 0)
        defer { l.stop() }
        XCTAssertGreaterThan(l.port, 0)
        XCTAssertNoThrow(try SocketStream.connect(port: l.port).close())
        XCTAssertThrowsError(try LoopbackListener(port: l.port), "the port is taken")
        let both = try LoopbackListener(port: 0, ipv6: true)
        both.stop()
        XCTAssertThrowsError(try SocketStream.connect(port: both.port), "stopped listeners refuse")
    }
}

final class ConnectionCapTests: XCTestCase {
    func testConnectionsBeyondTheCapAreClosedAndTheHubStillGetsInOnceOthersGo() throws {
        var config = AgentConfig()
        config.maxConnections = 2
        config.handshakeTimeoutMs = 300
        let agent = try RunningAgent(config: config)
        let idle = try (0..<2).map { _ in try SocketStream.connect(port: agent.listener.port) }
        Thread.sleep(forTimeInterval: 0.1)
        let extra = try SocketStream.connect(port: agent.listener.port)
        try extra.setReadTimeout(ms: 2000)
        var buf = [UInt8](repeating: 0, count: 16)
        XCTAssertEqual(try buf.withUnsafeMutableBytes { try extra.read(into: $0) }, 0, "closed at once")
        Thread.sleep(forTimeInterval: 0.6)  // the idle ones time out in their handshake
        idle.forEach { $0.close() }
        let hub = try agent.hub()
        XCTAssertEqual(hub.status, 101)
        _ = try hub.hello()
    }
}
