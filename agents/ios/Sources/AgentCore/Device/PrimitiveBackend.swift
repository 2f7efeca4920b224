import Foundation

/// The agent's `UiBackend` on iOS, over `DevicePrimitives`: captures with handles, node actions
/// with a live check, gestures in pixels, keys, paced typing, apps and screenshots.
///
/// Invariants: every method runs on the UI thread (the session's executor guarantees it), so the
/// retained captures need no lock; at most `retainedCaptures` captures are kept (oldest
/// dropped); a node action re-reads the screen first (one snapshot) and acts only on the element
/// found at the same structural path with the same identity — a stale handle never acts on
/// another element; pixels from the hub are divided by the scale read from the device at that moment; password
/// values never reach a capture (`SnapshotConverter`).
public final class PrimitiveBackend: UiBackend, @unchecked Sendable {
    public let primitives: DevicePrimitives
    public var converter: SnapshotConverter
    public var assembler = CaptureAssembler()
    public var pace: TypingPace
    public var quiescence = QuiescencePolicy()
    /// The pixel ratio of captures and gestures (screenshot-measured once known).
    public private(set) var pixelRatio = PixelRatio()
    /// The application in front for the command running now (picked once per command: its
    /// re-reads after scrolls and typing reuse it); nil between commands.
    private var pinnedFront: String?
    /// The idle wait the current input asked for; captures run with none and restore it.
    private var activeWait = Quiescence.skip
    /// Re-read the screen before each node action unless the retained capture is younger than
    /// `freshMs` with no input since. 0 (the default) always re-reads: a screen can change by
    /// itself between a capture and the action, and a stale handle must never act; the re-read
    /// is also the snapshot the hit test and the action use (one per action, not two).
    public var liveCheck = true
    public var freshMs = 0
    /// The app under test (`MOBRIDGE_BUNDLE_ID`), preferred when several are in front.
    public var targetApp: String?
    private var lastOpened: String?
    private let lock = NSLock()
    private var captures: [(Int, CaptureRecord)] = []
    private var takenAt: [Int: (ms: Int, inputs: Int)] = [:]
    private var inputs = 0
    /// The handle of each element (by structural path) in the last capture, kept for the next.
    private var handleOf: [String: Int] = [:]
    private var nextHandle = 1
    private let clock: Clock

    public init(primitives: DevicePrimitives, converter: SnapshotConverter = SnapshotConverter(),
                pace: TypingPace = .device, clock: Clock = SystemClock()) {
        self.primitives = primitives
        self.converter = converter
        self.pace = pace
        self.clock = clock
    }

    public var deviceInfo: DeviceInfo { primitives.deviceInfo }
    /// The primitives' capabilities, and `tree_delta`: handles are kept across captures.
    /// ... plus `alerts` and `keyboard`, which the core answers from a capture and a tap.
    public var capabilities: [String] {
        var own = primitives.capabilities
        if !own.contains(RawTreeDelta.capability) { own.append(RawTreeDelta.capability) }
        for c in ["alerts", "keyboard"] where !own.contains(c) { own.append(c) }
        return own
    }

    public func setChangeListener(_ listener: (@Sendable () -> Void)?) { primitives.setChangeListener(listener) }

    public func reset() {
        lock.lock()
        captures.removeAll()
        takenAt.removeAll()
        lock.unlock()
        handleOf.removeAll()
        nextHandle = 1
    }

    /// One capture as the assembler builds it (front app, depth ladder, alerts, fresh scale).
    /// It runs with no idle wait (the input's bound never carries over into a capture) and
    /// points the layer's input at the front application it found.
    public func screenCapture() throws -> ScreenCapture {
        primitives.setQuiescence(.skip)
        defer { primitives.setQuiescence(activeWait) }
        let front = try pinnedFront ?? pickFront()
        return try assembler.capture(primitives, preferred: [], front: front, ratio: pixelRatio)
    }

    /// The application in front now (one app-state query), which input then goes to.
    @discardableResult
    public func pickFront() throws -> String {
        let front = ForegroundPicker.pick(try primitives.runningApps(), preferred: [lastOpened, targetApp].compactMap { $0 })
        primitives.setInputApp(front)
        return front
    }

    /// Runs `body` with the front application picked once for all its captures and input.
    private func pinned<T>(_ body: () throws -> T) throws -> T {
        if pinnedFront != nil { return try body() }
        pinnedFront = try pickFront()
        defer { pinnedFront = nil }
        return try body()
    }

    /// A capture whose elements keep the handles they had in the previous capture (an element
    /// is the same while its structural path is: `CapturedElement.path`), so the agent can send
    /// tree deltas; a new element gets a fresh handle, never one used before on this link.
    public func capture(_ captureId: Int) throws -> RawTree {
        let (converted, converted_record) = converter.convert(try screenCapture(), captureId: captureId)
        var handles: [Int] = []
        var kept: [String: Int] = [:]
        for e in converted_record.elements {
            let h = handleOf[e.path] ?? nextHandle
            if h == nextHandle { nextHandle += 1 }
            handles.append(h)
            kept[e.path] = h
        }
        handleOf = kept
        var tree = converted
        for i in tree.nodes.indices where i < handles.count { tree.nodes[i].handle = handles[i] }
        if let f = tree.focus, f >= 1, f <= handles.count { tree.focus = handles[f - 1] }
        let record = converted_record.renumbered(handles)
        lock.lock()
        captures.removeAll { $0.0 == captureId }
        captures.append((captureId, record))
        if captures.count > retainedCaptures { captures.removeFirst(captures.count - retainedCaptures) }
        takenAt = takenAt.filter { k, _ in captures.contains { $0.0 == k } }
        takenAt[captureId] = (clock.nowMillis(), inputs)
        lock.unlock()
        return tree
    }

    public func record(_ captureId: Int) -> CaptureRecord? {
        lock.lock()
        defer { lock.unlock() }
        return captures.first { $0.0 == captureId }?.1
    }

    /// A fresh record of the screen (no handles kept: found again by path).
    private func freshRecord() throws -> CaptureRecord {
        converter.convert(try screenCapture(), captureId: 0).1
    }

    private func isFresh(_ captureId: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let t = takenAt[captureId] else { return false }
        return freshMs > 0 && t.inputs == inputs && clock.nowMillis() - t.ms <= freshMs
    }

    private func input(_ kind: QuiescencePolicy.Kind) {
        activeWait = quiescence.wait(for: kind)
        primitives.setQuiescence(activeWait)
        lock.lock()
        inputs += 1
        lock.unlock()
    }

    public func nodeAction(_ cmd: NodeActionCommand) throws -> Outcome {
        try pinned { try nodeActionPinned(cmd) }
    }

    private func nodeActionPinned(_ cmd: NodeActionCommand) throws -> Outcome {
        let at = "handle \(cmd.handle) of capture \(cmd.capture)"
        guard let record = record(cmd.capture) else { return .notFound("capture \(cmd.capture) is not held any more") }
        guard let seen = record.element(handle: cmd.handle) else { return .notFound("capture \(cmd.capture) has no handle \(cmd.handle)") }
        if let why = mismatch(cmd.identity, seen) { return .fail(.identityMismatch, "\(at): \(why)") }
        var liveRecord = record
        var live = seen
        if liveCheck && !isFresh(cmd.capture) {
            let fresh = try freshRecord()
            guard let found = fresh.find(path: seen.path) else { return .notFound("\(at) is no longer on screen") }
            if let why = mismatch(cmd.identity, found) { return .fail(.identityMismatch, "\(at): \(why)") }
            liveRecord = fresh
            live = found
        }
        input(.nodeAction)
        var context = NodeActionRunner.Context(primitives: primitives, pace: pace, scale: liveRecord.scale) { [self] in
            try freshRecord()
        }
        context.waitFor = { [self] kind in input(kind) }
        return try NodeActionRunner.run(cmd, live: live, in: liveRecord, context: context)
    }

    /// How much longer than the base deadline a command may take: typing scales with the text
    /// (the pace's pauses and XCTest's own typing rate), SET_TEXT with the old value to delete,
    /// both twice (the verified retry).
    public func extraDeadlineMs(_ msg: HubMessage) -> Int {
        switch msg {
        case .text(_, let t):
            return CommandBudget.typingMs(t.count, pace: pace) + IdleWait.budgetMs(quiescence, .typing, events: pace.plan(t).count)
        case .nodeAction(let c):
            let old = record(c.capture)?.element(handle: c.handle).map { NodeActionRunner.content($0).count } ?? 0
            let typed = c.text?.count ?? 0
            let scrolls = NodeActionRunner.maxScrollSteps * CommandBudget.scrollStepMs
            // Idle waits: the taps (a retry included) and every scroll step at the node-action
            // bound, every typing call (a delete run, the pace's chunks, twice) at the typing one.
            let waits = IdleWait.budgetMs(quiescence, .nodeAction, events: 2 + NodeActionRunner.maxScrollSteps)
                + IdleWait.budgetMs(quiescence, .typing, events: 2 * (1 + pace.plan(c.text ?? "").count))
            return 2 * (CommandBudget.typingMs(typed, pace: pace) + CommandBudget.typingMs(old, pace: .unpaced)) + scrolls + waits
        case .gesture:
            return IdleWait.budgetMs(quiescence, .gesture, events: 2)
        case .app:
            return IdleWait.budgetMs(quiescence, .app, events: 1)
        default:
            return 0
        }
    }

    private func mismatch(_ identity: NodeIdentity, _ e: CapturedElement) -> String? {
        identity.mismatch(className: e.className, automationId: e.automationId, text: e.text, label: e.label)
    }

    public func gesture(kind: String, points: [Point], durationMs: Int) throws -> Outcome {
        let s = pixelRatio.ratio(try primitives.screen())  // read now: the scale changes with the screen
        try pickFront()  // input goes to the app in front now, never one sent to the background
        input(.gesture)
        guard s > 0, let first = points.first else { return .fail(.badCommand, "no point") }
        let x = Double(first.x) / s, y = Double(first.y) / s
        switch kind {
        case "tap":
            try primitives.tap(x: x, y: y)
        case "double_tap":
            try primitives.doubleTap(x: x, y: y)
        case "long_press":
            try primitives.longPress(x: x, y: y, seconds: max(0.5, Double(durationMs) / 1000))
        case "swipe":
            guard let last = points.last, points.count >= 2 else { return .fail(.badCommand, "swipe needs at least two points") }
            try primitives.drag(DragPlan.between(fromX: x, fromY: y, toX: Double(last.x) / s, toY: Double(last.y) / s,
                                                 seconds: Double(durationMs) / 1000, scale: s))
        default:
            return .unsupported("gesture kind \(kind)")
        }
        return .success
    }

    /// The element under `center` in a fresh capture (`MultiTouchPlan`), then XCUITest's pinch
    /// or two-finger tap on it.
    public func multiTouch(kind: String, center: Point, scale: Double, durationMs: Int) throws -> Outcome {
        guard primitives.capabilities.contains("multi_touch") else {
            return .unsupported("this agent cannot inject several fingers at once")
        }
        return try pinned {
            let tree = converter.convert(try screenCapture(), captureId: 0).0  // handles untouched
            input(.gesture)
            switch MultiTouchPlan.planned(tree, kind: kind, center: center, scale: scale, durationMs: durationMs) {
            case .failure(let why): return .fail(.notFound, why.message)
            case .success(let plan): return try primitives.multiTouch(plan)
            }
        }
    }

    public func globalAction(_ action: GlobalAction) throws -> Outcome {
        switch action {
        case .home:
            try primitives.pressHome()
            primitives.setInputApp(ForegroundPicker.springboard)
            return .success
        case .back:
            return .unsupported("iOS has no system BACK; tap the screen's own back button")
        case .recents, .notificationShade:
            return .unsupported("\(action.rawValue) is not available through XCUITest here")
        }
    }

    public func key(_ name: String) throws -> Outcome {
        if name != "VOLUME_UP" && name != "VOLUME_DOWN" && name != "HOME" { try pickFront() }
        input(.typing)
        switch name {
        case "ENTER": try primitives.typeKey(.enter)
        case "DEL": try primitives.typeKey(.delete)
        case "TAB": try primitives.typeKey(.tab)
        case "SPACE": try primitives.typeKey(.space)
        case "ESCAPE": try primitives.typeKey(.escape)
        case "FORWARD_DEL": try primitives.typeKey(.forwardDelete)
        case "HOME":
            try primitives.pressHome()
            primitives.setInputApp(ForegroundPicker.springboard)
        case "VOLUME_UP": return try primitives.pressButton(.volumeUp)
        case "VOLUME_DOWN": return try primitives.pressButton(.volumeDown)
        default: return .unsupported("key \(name) is not available on iOS (no such key or button)")
        }
        return .success
    }

    public func typeText(_ text: String) throws -> Outcome {
        try pickFront()
        input(.typing)
        for (chunk, pause) in pace.plan(text) {
            try primitives.typeText(chunk)
            if pause > 0 { Thread.sleep(forTimeInterval: Double(pause) / 1000) }
        }
        return .success
    }

    public func app(_ action: AppAction, appId: String?, uri: String?) throws -> Outcome {
        input(.app)
        let done = try primitives.app(action, bundleId: appId, url: uri)
        if done.ok, let id = appId, action == .open || action == .bringToFront || action == .deepLink {
            lastOpened = id
            primitives.setInputApp(id)
        }
        if done.ok && action == .closeUI { primitives.setInputApp(ForegroundPicker.springboard) }
        return done
    }

    /// A screenshot; its pixel width over the screen's width in points is the pixel ratio of
    /// the captures and gestures that follow at this geometry (`PixelRatio`).
    public func screenshot() throws -> Outcome {
        let g = try primitives.screen()
        let png = try primitives.screenshotPNG()
        if let size = PNGInfo.size(png) { pixelRatio.measured(pixelWidth: size.width, at: g) }
        return .png(Base64.encode(png))
    }

    /// The pasteboard through the layer (UIPasteboard in the runner; host mode's own).
    public func clipboard(set: String?) throws -> Outcome {
        try primitives.pasteboard(set: set)
    }

    public func health() -> String? { primitives.health() }

    public func apps() throws -> Outcome { try primitives.installedApps() }
    public func terminate(appId: String) throws -> Outcome { try primitives.terminate(bundleId: appId) }
    public func install(path: String, sha256: String?) throws -> Outcome { try primitives.install(path: path, sha256: sha256) }
    public func uninstall(appId: String) throws -> Outcome { try primitives.uninstall(bundleId: appId) }
    public func orientation(_ orientation: Orientation) throws -> Outcome {
        try primitives.setOrientation(orientation)  // the next capture reads the new geometry
    }
}
