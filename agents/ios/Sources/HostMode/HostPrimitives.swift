import AgentCore
import Foundation

/// `DevicePrimitives` over the scripted app: what the XCUITest layer does on a device, done to
/// `ScriptedApp` on this machine. Touches hit-test its frames, typing goes to its focused field,
/// the home button shows SpringBoard, a screenshot is a grey picture of the element outlines.
///
/// XCTest's quiescence is modelled (issue 34): after each input event the app animates for the
/// scene's `idleAfterMs` (or never goes idle); the next event waits as `layerWait` says —
/// `.xctest` the real bounded wait (`IdleWait.cost`, what the XCUITest layer now does), or
/// `.fixedSleep` the whole bound whatever the app does (what it did before) — so the two
/// time differently in tests and in the bench.
///
/// Invariants: every use of the app holds `lock` (the clock thread and the UI thread both touch
/// it); change events are delivered outside the lock; the clock ticks (an event a second)
/// only while the home screen is in front, like the Java host mode's; input goes to the app
/// the core named (`setInputApp`) and is refused for one not in the foreground, as XCTest
/// cannot touch a backgrounded app.
public final class HostPrimitives: DevicePrimitives, @unchecked Sendable {
    public let deviceInfo: DeviceInfo
    public let capabilities = ["tree", "node_action", "gesture", "global", "key", "text", "app", "screenshot",
                               "apps", "terminate", "install", "uninstall", "orientation", "clipboard"]
    private let lock = NSLock()
    private let app: ScriptedApp
    private var listener: (@Sendable () -> Void)?
    private var pending = false
    private var problem: String?
    private let ticking: Bool
    private var clockStarted = false

    /// XCTest fails a snapshot deeper than this when no depth limit was set (the accessibility
    /// server's kAXErrorIllegalArgument; observed near 62 levels).
    public static let axDepthCeiling = 62
    private var quiescence = Quiescence.bounded(ms: 60_000)  // XCTest's own: effectively unbounded
    /// What the input calls waited for idle, in ms (test hook).
    public private(set) var idleWaits: [Int] = []
    /// Every drag, as the core planned it (test hook).
    public private(set) var drags: [DragPlan] = []
    /// How the layer waits for idle (see the type's comment).
    public enum LayerWait: Sendable { case xctest, fixedSleep }
    public var layerWait = LayerWait.xctest
    /// Milliseconds after each input event until the app is idle (nil: the scene's own).
    public var idleAfterMs: Int?
    private var busyUntil = Date.distantPast
    /// What each snapshot waited for idle, in ms (test hook: captures must not wait).
    public private(set) var captureWaits: [Int] = []
    /// The app each input went to, and how often the layer was asked for the running apps and
    /// for each application's snapshot (test hooks: the cost of a capture).
    public private(set) var inputApps: [String] = []
    public private(set) var runningAppsCalls = 0
    public private(set) var snapshotCalls: [String: Int] = [:]
    private var inputApp: String?
    private var pasteboardText = ""

    public struct NotInFront: Error, CustomStringConvertible {
        public let description: String
    }

    /// False: behave as a runner where XCTest's private snapshot parameters are missing — the
    /// snapshot is taken unlimited (a tree deeper than `axDepthCeiling` fails) and cut after,
    /// and every capture warns, as `XCUIPrimitives` does on such a device.
    public let privateSnapshotParameters: Bool
    public static let depthWarning = "snapshot depth cannot be limited: XCAXClient_iOS.defaultParameters missing; using the public snapshot"
    /// What a runner without XCTest's private entry points reports from its start-up probe
    /// (issue 34: every fallback before any input), the same sentences `XCUIPrimitives` uses.
    public static let privateApiWarnings = [
        depthWarning,
        "idle waits cannot be bounded: XCUIApplicationProcess.waitForQuiescenceIncludingAnimationsIdle: missing; XCTest's own wait is used",
        "apps in front unknown: XCAXClient_iOS.activeApplications missing; only known bundle ids are checked",
        "keyboard focus unknown: hasKeyboardFocus missing on snapshots; hasFocus is used",
    ]

    public init(deviceId: String = "ios-host-fake", ticking: Bool = true, scene: String = "login",
                privateSnapshotParameters: Bool = true) {
        self.privateSnapshotParameters = privateSnapshotParameters
        deviceInfo = DeviceInfo(id: deviceId, model: "mobridge iOS host fake", osVersion: "host",
                                width: Int(ScriptedApp.width * ScriptedApp.scale),
                                height: Int(ScriptedApp.height * ScriptedApp.scale))
        app = ScriptedApp(scene: scene)
        self.ticking = ticking
        app.onChange = { [unowned self] in pending = true }
    }

    /// Runs `body` on the app under the lock, then delivers one change event if it changed.
    private func withApp<T>(_ body: (ScriptedApp) throws -> T) rethrows -> T {
        lock.lock()
        let result: T
        do {
            result = try body(app)
        } catch {
            pending = false
            lock.unlock()
            throw error
        }
        let fire = pending ? listener : nil
        pending = false
        lock.unlock()
        fire?()
        return result
    }

    // MARK: test hooks

    public var screenName: String { withApp { $0.scene?.name ?? ($0.inFront ? $0.screen.rawValue : "springboard") } }
    public func setHealthProblem(_ p: String?) { withApp { _ in problem = p } }

    // MARK: DevicePrimitives

    public func screen() throws -> ScreenGeometry {
        withApp { ScreenGeometry(scale: $0.scale, rotation: $0.rotation, nativeScale: $0.nativeScale, widthPoints: $0.widthPoints) }
    }

    public func runningApps() throws -> [RunningApp] {
        withApp { app in
            runningAppsCalls += 1
            return app.runningApps()
        }
    }

    public func setInputApp(_ bundleId: String) { withApp { _ in inputApp = bundleId } }

    public func systemAlertShown() -> Bool? { withApp { $0.systemAlertShown } }

    public func pasteboard(set: String?) throws -> Outcome {
        withApp { _ in
            if let v = set {
                pasteboardText = String(v.prefix(1 << 16))
                return .success
            }
            var o = Outcome.success
            o.text = pasteboardText
            return o
        }
    }

    /// Before an input: the app it goes to must be in front (XCTest cannot touch another).
    private func checkInputApp() throws {
        try withApp { app in
            let to = inputApp ?? ScriptedApp.bundleId
            inputApps.append(to)
            if inputApps.count > 256 { inputApps.removeFirst(128) }
            guard app.runningApps().contains(where: { $0.bundleId == to && $0.foreground }) else {
                throw NotInFront(description: "\(to) is not in the foreground: XCTest cannot send it input")
            }
        }
    }

    public struct SnapshotFailed: Error, CustomStringConvertible {
        public let description: String
    }

    /// What XCTest does with the snapshot parameters: an unlimited (or over-the-ceiling) request
    /// for a tree deeper than `axDepthCeiling` fails; a limited one returns the elements at the
    /// limit without children.
    public func snapshot(of bundleId: String, limits: SnapshotLimits) throws -> ElementSnapshot {
        let waited = idleCost()  // the idle wait in effect carries into a snapshot
        withApp { _ in
            captureWaits.append(waited)
            if captureWaits.count > 256 { captureWaits.removeFirst(128) }
            snapshotCalls[bundleId, default: 0] += 1
        }
        if waited > 0 { Thread.sleep(forTimeInterval: Double(waited) / 1000) }
        guard let tree = withApp({ $0.tree(of: bundleId) }) else {
            throw SnapshotFailed(description: "no running application \(bundleId)")
        }
        let asked = privateSnapshotParameters ? limits.maxDepth : Int.max
        if asked > Self.axDepthCeiling && Self.depth(tree) > Self.axDepthCeiling {
            throw SnapshotFailed(description: "kAXErrorIllegalArgument getting snapshot (tree deeper than \(Self.axDepthCeiling))")
        }
        return Self.cut(tree, at: limits.maxDepth)
    }

    static func depth(_ e: ElementSnapshot) -> Int {
        var deepest = 0
        var stack = [(e, 0)]
        while let (n, d) = stack.popLast() {
            deepest = max(deepest, d)
            for c in n.children { stack.append((c, d + 1)) }
        }
        return deepest
    }

    static func cut(_ e: ElementSnapshot, at limit: Int, depth: Int = 0) -> ElementSnapshot {
        var n = e
        n.children = depth >= limit ? [] : e.children.map { cut($0, at: limit, depth: depth + 1) }
        return n
    }

    public func setQuiescence(_ wait: Quiescence) { withApp { _ in quiescence = wait } }

    /// What the idle wait in effect costs now (ms), by `layerWait`.
    private func idleCost() -> Int {
        withApp { app in
            switch layerWait {
            case .fixedSleep:
                if case .bounded(let ms) = quiescence { return ms }
                return 0
            case .xctest:
                let idleIn: Int? = app.neverIdle ? nil : max(0, Int((busyUntil.timeIntervalSinceNow * 1000).rounded(.up)))
                return IdleWait.cost(quiescence, idleInMs: idleIn)
            }
        }
    }

    /// XCTest's idle wait before an event (see the type's comment); then the event starts the
    /// app's animation of `idleAfterMs`.
    private func waitForIdle() throws {
        try checkInputApp()
        let ms = idleCost()
        if case .bounded = withApp({ _ in quiescence }) { withApp { _ in idleWaits.append(ms) } }
        if ms > 0 { Thread.sleep(forTimeInterval: Double(ms) / 1000) }
    }

    private func animate() {
        withApp { app in
            let ms = idleAfterMs ?? app.idleAfterMs
            busyUntil = Date().addingTimeInterval(Double(ms) / 1000)
        }
    }

    public func tap(x: Double, y: Double) throws {
        try waitForIdle()
        withApp { $0.tap(x: x, y: y) }
        animate()
    }

    public func longPress(x: Double, y: Double, seconds: Double) throws {
        try waitForIdle()
        animate()
    }

    public func drag(_ plan: DragPlan) throws {
        try waitForIdle()
        withApp { app in
            drags.append(plan)
            if drags.count > 256 { drags.removeFirst(128) }
            app.drag(plan)
        }
        animate()
    }

    public func typeText(_ text: String) throws {
        try waitForIdle()
        try withApp { try $0.type(text) }
        animate()
    }

    public func typeKey(_ key: KeyName) throws {
        switch key {
        case .enter: try typeText("\r")
        case .delete: try typeText(KeyText.delete)
        case .tab: try typeText("\t")
        case .space: try typeText(" ")
        case .escape: try typeText(KeyText.escape)
        case .forwardDelete: try typeText(KeyText.forwardDelete)
        }
    }

    public func pressHome() throws { withApp { $0.home() } }

    public var volume: Int { withApp { $0.volume } }

    public func pressButton(_ button: DeviceButton) throws -> Outcome {
        withApp { $0.volume(up: button == .volumeUp) }
        return .success
    }

    public func terminate(bundleId: String) throws -> Outcome { withApp { $0.terminate(bundleId) } }

    public func setOrientation(_ orientation: Orientation) throws -> Outcome {
        withApp { $0.turn(landscape: orientation == .landscape) }
        return .success
    }

    public func installedApps() throws -> Outcome { withApp { .listed($0.apps) } }

    /// Host mode's device layer is this machine: the package is read where the path says.
    public func install(path: String, sha256: String?) throws -> Outcome {
        guard let data = FileManager.default.contents(atPath: path) else { return .failed("no package at \(path)") }
        if let want = sha256, Digest.hex(Digest.sha256([UInt8](data))) != want {
            return .failed("the package does not have the sha256 the hub sent")
        }
        return withApp { $0.install(package: data) }
    }

    public func uninstall(bundleId: String) throws -> Outcome { withApp { $0.uninstall(bundleId) } }

    public func app(_ action: AppAction, bundleId: String?, url: String?) throws -> Outcome {
        withApp { app in
            switch action {
            case .open, .bringToFront:
                guard bundleId == ScriptedApp.bundleId else {
                    return .notFound("no app \(bundleId ?? "(none)") is installed")
                }
                app.bringToFront()
                return .success
            case .closeUI:
                app.home()
                return .success
            case .deepLink:
                if let b = bundleId, b != ScriptedApp.bundleId { return .notFound("no app \(b) is installed") }
                return app.open(url ?? "") ? .success : .notFound("no app handles \(url ?? "the link")")
            }
        }
    }

    /// Grey outlines of the elements at a third of a point per pixel, or, on a scene with a
    /// native pixel ratio (`plus`), at that ratio: a Plus model's screenshot is 1080 pixels
    /// wide for 414 points.
    public func screenshotPNG() throws -> [UInt8] {
        let (roots, native, wp, hp) = withApp { ($0.roots(), $0.nativeScale, $0.widthPoints, $0.heightPoints) }
        if let n = native {
            let w = Int((wp * n).rounded()), h = Int((hp * n).rounded())
            var px = [UInt8](repeating: 0xF0, count: w * h)
            func fill(_ e: ElementSnapshot) {
                if e.type == .button {
                    let l = max(0, Int(e.frame.x * n)), t = max(0, Int(e.frame.y * n))
                    let r = min(w, Int(e.frame.maxX * n)), b = min(h, Int(e.frame.maxY * n))
                    if r > l && b > t { for y in t..<b { for x in l..<r { px[y * w + x] = 0x40 } } }
                }
                e.children.forEach(fill)
            }
            roots.forEach { fill($0.tree) }
            return PNGWriter.grey(width: w, height: h, pixels: px)
        }
        let w = Int(ScriptedApp.width) / 3, h = Int(ScriptedApp.height) / 3
        var px = [UInt8](repeating: 0xF0, count: w * h)
        func outline(_ e: ElementSnapshot) {
            let l = max(0, Int(e.frame.x / 3)), t = max(0, Int(e.frame.y / 3))
            let r = min(w - 1, Int((e.frame.x + e.frame.width) / 3) - 1)
            let b = min(h - 1, Int((e.frame.y + e.frame.height) / 3) - 1)
            if r >= l && b >= t {
                for x in l...r { px[t * w + x] = 0x40; px[b * w + x] = 0x40 }
                for y in t...b { px[y * w + l] = 0x40; px[y * w + r] = 0x40 }
            }
            e.children.forEach(outline)
        }
        roots.forEach { outline($0.tree) }
        return PNGWriter.grey(width: w, height: h, pixels: px)
    }

    public func setChangeListener(_ l: (@Sendable () -> Void)?) {
        lock.lock()
        listener = l
        let start = l != nil && ticking && !clockStarted  // one clock thread per process
        if start { clockStarted = true }
        lock.unlock()
        if start {
            let t = Thread { [weak self] in self?.tickLoop() }
            t.name = "host-clock"
            t.start()
        }
    }

    private func tickLoop() {
        if withApp({ $0.neverIdle }) {  // busy: "Tick N" changes every 100 ms, for ever
            while true {
                Thread.sleep(forTimeInterval: 0.1)
                lock.lock()
                let l = listener
                lock.unlock()
                l?()
            }
        }
        while true {
            let ms = Date().timeIntervalSince1970 * 1000
            Thread.sleep(forTimeInterval: (1000 - ms.truncatingRemainder(dividingBy: 1000) + 5) / 1000)
            lock.lock()
            let onHome = app.inFront && app.screen == .home
            let l = listener
            lock.unlock()
            if onHome { l?() }
        }
    }

    public func health() -> String? { withApp { _ in problem } }
    public func captureWarnings() -> [String] { privateSnapshotParameters ? [] : Self.privateApiWarnings }
}

/// A recorded snapshot served as a static screen (`--replay FILE`): the converter and the hub
/// see exactly the elements of the file; input is accepted and changes nothing.
public final class ReplayPrimitives: DevicePrimitives, @unchecked Sendable {
    public let deviceInfo: DeviceInfo
    public let capabilities = ["tree", "node_action", "gesture", "screenshot"]
    private let capture: ScreenCapture

    public init(_ capture: ScreenCapture, deviceId: String = "ios-replay") {
        self.capture = capture
        let f = capture.roots.first?.tree.frame ?? Rect(0, 0, 0, 0)
        deviceInfo = DeviceInfo(id: deviceId, model: "mobridge iOS replay", osVersion: "host",
                                width: Int(f.width * capture.scale), height: Int(f.height * capture.scale))
    }

    public func screen() throws -> ScreenGeometry { ScreenGeometry(scale: capture.scale, rotation: capture.rotation) }
    /// The first application root is in front; a system root is SpringBoard's.
    public func runningApps() throws -> [RunningApp] {
        capture.roots.map { RunningApp(bundleId: $0.system ? ForegroundPicker.springboard : $0.bundleId, foreground: true) }
    }
    public func snapshot(of bundleId: String, limits: SnapshotLimits) throws -> ElementSnapshot {
        guard let root = capture.roots.first(where: { ($0.system ? ForegroundPicker.springboard : $0.bundleId) == bundleId }) else {
            throw JsonError("the replay has no root \(bundleId)")
        }
        if root.system && root.tree.type != .application {  // a recorded alert: SpringBoard's window holding it
            let w = ElementSnapshot(type: .window, frame: root.tree.frame, children: [root.tree])
            return ElementSnapshot(type: .application, frame: root.tree.frame, children: [w])
        }
        return root.tree
    }
    public func tap(x: Double, y: Double) throws {}
    public func longPress(x: Double, y: Double, seconds: Double) throws {}
    public func drag(_ plan: DragPlan) throws {}
    public func typeText(_ text: String) throws {}
    public func typeKey(_ key: KeyName) throws {}
    public func pressHome() throws {}
    public func app(_ action: AppAction, bundleId: String?, url: String?) throws -> Outcome {
        .unsupported("a replayed screen has no apps")
    }
    public func screenshotPNG() throws -> [UInt8] { PNGWriter.grey(width: 1, height: 1, pixels: [0xF0]) }
    public func setChangeListener(_ listener: (@Sendable () -> Void)?) {}
    public func health() -> String? { nil }
}
