import Foundation

/// One hub connection: handshake, hello exchange, the initial tree, then commands in and
/// debounced pushes, status changes and keepalive pings out.
///
/// Invariants: every command gets exactly one reply with its id (a malformed command whose id
/// can be read gets BAD_COMMAND; one without a readable id closes the link with 1008); commands
/// run on the UI thread through the server's `UIExecutor` (deadline, `busy`) from a worker, so
/// the reader keeps answering pings; trees are numbered 1, 2, 3... in the order they are sent;
/// the same state is never pushed twice in a row; while the watchdog reports degraded no tree
/// is pushed and commands are refused, so the hub never receives a stale tree. `nextCapture`
/// and `lastFingerprint` are touched on the UI thread only; the debouncer under `pushLock`.
/// Tree deltas: when the backend keeps handles per element (it announces `tree_delta`) and the
/// hub asked for them (`options`), a push goes as its delta from the last tree sent on this link
/// — a push or a capture reply — or whole when that is as good (`RawTreeDelta`); a tree is sent
/// and recorded as the last one under `treeLock`, so a delta is always based on the tree the hub
/// received last.
final class AgentSession: @unchecked Sendable {
    /// The reason a `clear` is refused: iOS has no per-app data wipe (reinstalling is the way).
    static let cannotClear =
        "an iPhone cannot clear one app's data; reinstall the app (app uninstall + install)"
    private let server: AgentServer
    private let stream: ByteStream
    private let config: AgentConfig
    private var backend: UiBackend { server.backend }
    private let pushLock = NSCondition()
    private var debouncer: ChangeDebouncer?
    private var settles: [Int] = []
    private var conn: WsConnection?
    private let stateLock = NSLock()
    private var runningFlag = false
    private var watchdog = Watchdog()
    private var probeStarted: Int?
    private var probeResult: String??
    private let treeLock = NSLock()
    private var treeDeltas = false
    private var lastSent: RawTree?
    // UI thread only:
    private var nextCapture = 1
    private var lastFingerprint: String?

    init(server: AgentServer, stream: ByteStream) {
        self.server = server
        self.stream = stream
        config = server.config
    }

    private var running: Bool {
        get { stateLock.lock(); defer { stateLock.unlock() }; return runningFlag }
        set { stateLock.lock(); runningFlag = newValue; stateLock.unlock() }
    }

    private var now: Int { server.clock.nowMillis() }

    func run() throws {
        let reader = BufferedReader(stream)
        try stream.setReadTimeout(ms: config.handshakeTimeoutMs)
        let hs = try WsHandshake.perform(reader, tokens: server.tokens)
        if !hs.ok {
            server.log.info("handshake refused: \(hs.status) \(hs.reason)")
            return
        }
        let c = WsConnection(reader: reader, maxMessage: config.maxMessageBytes)
        conn = c
        if !server.activate(self) {
            c.close(code: CloseCode.goingAway, reason: "agent stopping")
            return
        }
        running = true
        try stream.setReadTimeout(ms: config.helloTimeoutMs)
        guard try exchangeHello(c) else { return }
        try stream.setReadTimeout(ms: config.idleTimeoutMs)
        startBackground()
        server.log.info("hub connected")
        while running {
            let text: String?
            do {
                text = try c.readMessage()
            } catch StreamError.timeout {
                c.close(code: CloseCode.goingAway, reason: "no traffic for \(config.idleTimeoutMs) ms")
                break
            }
            guard let t = text else { break }
            handle(t)
        }
        server.log.info("hub link closed: \(c.closeCode)")
    }

    private func exchangeHello(_ c: WsConnection) throws -> Bool {
        let text: String?
        do {
            text = try c.readMessage()
        } catch StreamError.timeout {
            c.close(code: CloseCode.policyViolation, reason: "no hello")
            return false
        }
        guard let t = text else { return false }
        let first: HubMessage
        do {
            first = try HubMessage.decode(t)
        } catch {
            c.close(code: CloseCode.policyViolation, reason: "bad hello: \(error)")
            return false
        }
        guard case .hello(let p, _, let token) = first else {
            c.close(code: CloseCode.policyViolation, reason: "hello must come first")
            return false
        }
        if p != AgentProtocol.version {
            c.close(code: CloseCode.policyViolation, reason: "protocol mismatch: agent speaks \(AgentProtocol.version)")
            return false
        }
        if token != nil && !server.tokens.matches(token) {
            c.close(code: CloseCode.policyViolation, reason: "wrong token in hello")
            return false
        }
        pushLock.lock()
        debouncer = ChangeDebouncer(quietMs: config.quietMs, capMs: config.capMs, timerMs: config.timerMs,
                                    maxTimerMs: config.timerMaxMs, now: now)
        pushLock.unlock()
        send(.hello(protocolVersion: AgentProtocol.version, platform: server.platform, agentName: config.agentName,
                    agentVersion: config.agentVersion, device: backend.deviceInfo, capabilities: backend.capabilities))
        do {
            try server.executor.run("initial capture", deadlineMs: max(config.commandDeadlineMs, 30_000)) { [self] in
                backend.reset()
                backend.setChangeListener { [weak self] in self?.onUiEvent() }
                if let problem = backend.health() {
                    stateLock.lock()
                    _ = watchdog.observe(problem)
                    stateLock.unlock()
                    send(.status(state: Watchdog.degraded, reason: problem))
                    return
                }
                push(ChangeDebouncer.Fire(reason: "initial", stable: true, quietMs: 0))
            }
        } catch {
            server.log.warn("initial capture failed: \(error)")
        }
        return running
    }

    private func startBackground() {
        let timers = Thread { [self] in timerLoop() }
        timers.name = "mobridge-timers"
        timers.start()
        let pusher = Thread { [self] in pushLoop() }
        pusher.name = "mobridge-pusher"
        pusher.start()
    }

    private func handle(_ text: String) {
        let msg: HubMessage
        do {
            msg = try HubMessage.decode(text)
        } catch {
            if let id = HubMessage.peekId(text) {
                send(.reply(.failure(id, .badCommand, "\(error)")))
            } else {
                conn?.close(code: CloseCode.policyViolation, reason: "malformed message without an id")
                running = false
            }
            return
        }
        guard let id = msg.commandId else {
            conn?.close(code: CloseCode.policyViolation, reason: "hello sent twice")
            running = false
            return
        }
        if case .ping = msg {
            send(.reply(Reply(id: id, ok: true)))
            return
        }
        if case .options(_, let wanted) = msg {
            treeLock.lock()
            treeDeltas = wanted && backend.capabilities.contains(RawTreeDelta.capability)
            treeLock.unlock()
            send(.reply(Reply(id: id, ok: true)))
            return
        }
        DispatchQueue.global().async { [self] in
            let reply = dispatch(msg, id)
            if let tree = reply.tree {
                treeLock.lock()
                send(.reply(reply))
                lastSent = tree
                treeLock.unlock()
            } else {
                send(.reply(reply))
            }
        }
    }

    /// Runs one command on the UI thread (deadline, busy) and builds its reply; worker thread.
    func dispatch(_ msg: HubMessage, _ id: Int) -> Reply {
        stateLock.lock()
        let degraded = watchdog.isDegraded ? watchdog.reason : nil
        stateLock.unlock()
        if let why = degraded { return .failure(id, .failed, "agent degraded: \(why)") }
        let deadline = config.commandDeadlineMs + max(0, backend.extraDeadlineMs(msg))
        do {
            return try server.executor.run(msg.type, deadlineMs: deadline) { [self] in execute(msg, id) }
        } catch let f as UIExecutor.Failure {
            return .failure(id, .failed, f.description)
        } catch {
            return .failure(id, .failed, describe(error))
        }
    }

    /// The alerts on screen, or the top one answered by a tap at the chosen button (UI thread).
    private func answerAlert(_ action: String, _ button: String?) throws -> Outcome {
        let found = DeviceCapabilities.alerts(try backend.capture(nextCapture))
        nextCapture += 1
        if action == "list" {
            var o = Outcome.success
            o.alerts = Array(found.map(\.info).prefix(Reply.maxAlerts))
            return o
        }
        guard let top = found.first else { return .notFound("no alert is on screen") }
        switch DeviceCapabilities.choose(top, action, button) {
        case .failure(let why):
            return .notFound(why.message)
        case .success(let node):
            guard let at = DeviceCapabilities.centre(node) else { return .failed("the button has no bounds") }
            return try backend.gesture(kind: "tap", points: [at], durationMs: 0)
        }
    }

    /// Hides the keyboard and checks it left (`KeyboardHide.perform`; UI thread).
    private func hideKeyboard() throws -> Outcome {
        try KeyboardHide.perform(backend, nextCapture: { [self] in
            defer { nextCapture += 1 }
            return nextCapture
        }, acted: { [self] in acted() })
    }

    /// UI thread.
    private func execute(_ msg: HubMessage, _ id: Int) -> Reply {
        do {
            let outcome: Outcome
            switch msg {
            case .capture:
                let tree = try backend.capture(nextCapture)
                nextCapture += 1
                lastFingerprint = fingerprint(tree)
                pushLock.lock()
                debouncer?.captured(now)
                pushLock.unlock()
                var r = Reply(id: id, ok: true)
                r.tree = tree
                return r
            case .nodeAction(let c):
                outcome = try backend.nodeAction(c)
                acted()
            case .gesture(_, let kind, let points, let duration):
                if kind == "swipe" && points.count < 2 {
                    outcome = .fail(.badCommand, "swipe needs at least two points")
                } else if kind != "swipe" && points.count != 1 {
                    outcome = .fail(.badCommand, "\(kind) takes exactly one point")
                } else {
                    outcome = try backend.gesture(kind: kind, points: points, durationMs: duration)
                    acted()
                }
            case .global(_, let action):
                outcome = try backend.globalAction(action)
                acted()
            case .key(_, let key):
                outcome = try backend.key(key)
                acted()
            case .text(_, let text):
                outcome = try backend.typeText(text)
                acted()
            case .app(_, let action, let appId, let uri):
                outcome = try backend.app(action, appId: appId, uri: uri)
                acted()
            case .screenshot:
                outcome = try backend.screenshot()
            case .clipboard(_, let set):
                outcome = try backend.clipboard(set: set)
            case .apps:
                outcome = try backend.apps()
            case .terminate(_, let appId):
                outcome = try backend.terminate(appId: appId)
                acted()
            case .clear:
                outcome = .unsupported(AgentSession.cannotClear)
            case .install(_, let path, let sha256):
                outcome = try backend.install(path: path, sha256: sha256)
            case .uninstall(_, let appId):
                outcome = try backend.uninstall(appId: appId)
            case .orientation(_, let orientation):
                outcome = try backend.orientation(orientation)
            case .alert(_, let action, let button):
                outcome = try answerAlert(action, button)
            case .keyboard:
                outcome = try hideKeyboard()
            case .permission:
                outcome = .unsupported(DeviceCapabilities.noPermissions)
            case .location:
                outcome = .unsupported(DeviceCapabilities.noLocation)
            case .network:
                outcome = .unsupported("an iPhone's runner cannot switch airplane mode, Wi-Fi or data")
            case .multiTouch(_, let kind, let center, let scale, _, let durationMs):
                outcome = try backend.multiTouch(kind: kind, center: center, scale: scale, durationMs: durationMs)
                acted()
            case .hello, .ping, .options:
                outcome = .unsupported("command \(msg.type) is not supported here")
            }
            return outcome.reply(id)
        } catch {
            server.log.warn("command \(msg.type) failed: \(describe(error))")
            return .failure(id, .failed, describe(error))
        }
    }

    /// An action may have changed the screen: capture soon, and once more after it settled
    /// (XCUITest reports no accessibility events).
    private func acted() {
        pushLock.lock()
        let t = now
        debouncer?.onEvent(t)
        if settles.count < 8 { settles.append(t + config.settleMs) }
        pushLock.broadcast()
        pushLock.unlock()
    }

    func onUiEvent() {
        pushLock.lock()
        debouncer?.onEvent(now)
        pushLock.broadcast()
        pushLock.unlock()
    }

    private func pushLoop() {
        while running {
            pushLock.lock()
            let t = now
            settles.removeAll { s in
                if s <= t { debouncer?.onEvent(s); return true }
                return false
            }
            guard let fire = debouncer?.poll(t) else {
                let wake = min(debouncer?.deadline ?? ChangeDebouncer.never, settles.min() ?? ChangeDebouncer.never)
                if wake == ChangeDebouncer.never {
                    _ = pushLock.wait(until: Date().addingTimeInterval(1))
                } else if wake > t {
                    _ = pushLock.wait(until: Date().addingTimeInterval(Double(wake - t) / 1000))
                }
                pushLock.unlock()
                continue
            }
            pushLock.unlock()
            do {
                try server.executor.run("push", deadlineMs: config.commandDeadlineMs) { [self] in push(fire) }
            } catch {
                // Busy or over the deadline: the next event or timer tick tries again.
            }
        }
    }

    /// Captures and sends a tree unless degraded, stopped or unchanged (UI thread).
    private func push(_ fire: ChangeDebouncer.Fire) {
        stateLock.lock()
        let skip = watchdog.isDegraded || !runningFlag
        stateLock.unlock()
        if skip { return }
        let tree: RawTree
        do {
            tree = try backend.capture(nextCapture)
        } catch {
            server.log.warn("capture for a push failed: \(describe(error))")
            return
        }
        let fp = fingerprint(tree)
        pushLock.lock()
        if fp == lastFingerprint {
            if fire.reason == "timer" { debouncer?.timerUnchanged() }
        } else {
            debouncer?.changed()
        }
        pushLock.unlock()
        if fp == lastFingerprint { return }
        nextCapture += 1
        lastFingerprint = fp
        let quiet = max(0, fire.quietMs)
        treeLock.lock()
        var message = AgentMessage.tree(reason: fire.reason, stable: fire.stable, tree: tree, quietMs: quiet)
        if treeDeltas, let base = lastSent,
           let delta = RawTreeDelta.between(base, tree, reason: fire.reason, stable: fire.stable, quietMs: quiet) {
            message = .treeDelta(delta)
        }
        send(message)
        lastSent = tree
        treeLock.unlock()
    }

    /// The tree's content without its capture number.
    private func fingerprint(_ tree: RawTree) -> String {
        var t = tree
        t.capture = 0
        return t.toJson().encoded()
    }

    private func timerLoop() {
        var nextWatch = now + config.watchdogIntervalMs
        var nextPing = now + config.keepaliveMs
        while running {
            let t = now
            if t >= nextWatch {
                watchdogTick()
                nextWatch = t + config.watchdogIntervalMs
            }
            if t >= nextPing {
                do { try conn?.sendPing() } catch { closeTransport() }
                nextPing = t + config.keepaliveMs
            }
            Thread.sleep(forTimeInterval: Double(max(1, min(nextWatch, nextPing) - now)) / 1000)
        }
    }

    private func watchdogTick() {
        let t = now
        var transition: String?
        stateLock.lock()
        if let started = probeStarted {
            if let result = probeResult {
                probeStarted = nil
                probeResult = nil
                transition = watchdog.observe(result)
            } else if t - started > config.probeTimeoutMs {
                transition = watchdog.observe("the main thread has not answered for \(t - started) ms")
            }
            stateLock.unlock()
        } else {
            probeStarted = t
            probeResult = nil
            stateLock.unlock()
            server.executor.thread.post { [self] in
                let h = backend.health()
                stateLock.lock()
                if probeStarted != nil { probeResult = .some(h) }
                stateLock.unlock()
            }
        }
        guard let state = transition else { return }
        stateLock.lock()
        let reason = watchdog.reason
        stateLock.unlock()
        if state == Watchdog.degraded {
            server.log.info("degraded: \(reason ?? "")")
            send(.status(state: Watchdog.degraded, reason: reason))
        } else {
            server.log.info("ready again")
            send(.status(state: Watchdog.ready, reason: nil))
            _ = try? server.executor.run("resync", deadlineMs: config.commandDeadlineMs) { [self] in
                lastFingerprint = nil
                pushLock.lock()
                let quiet = debouncer?.quietFor(now) ?? 0
                pushLock.unlock()
                push(ChangeDebouncer.Fire(reason: "event", stable: true, quietMs: quiet))
            }
        }
    }

    private func send(_ m: AgentMessage) {
        guard let c = conn else { return }
        do {
            try c.sendText(m.encode())
        } catch {
            if running { server.log.info("send failed; closing the link") }
            running = false
            closeTransport()
        }
    }

    /// A newer hub connection took over. The close frame goes first: once `running` is
    /// false the session's own thread may end and close the link itself (1000), and the
    /// hub must be told it was superseded (1001), not that the link simply ended.
    func supersede() {
        conn?.close(code: CloseCode.goingAway, reason: "superseded by a newer hub connection")
        running = false
        closeTransport()
    }

    /// The agent is shutting down: say so, then close.
    func stop(reason: String) {
        if let c = conn, c.isOpen {
            send(.status(state: "stopping", reason: reason))
            c.close(code: CloseCode.goingAway, reason: "agent stopping")
        }
        running = false
        closeTransport()
    }

    func shutdown() {
        running = false
        pushLock.lock()
        pushLock.broadcast()
        pushLock.unlock()
        if server.isCurrent(self) { backend.setChangeListener(nil) }
        if let c = conn, c.isOpen { c.close(code: CloseCode.normal, reason: "") }
        closeTransport()
    }

    private func closeTransport() { stream.close() }
}
