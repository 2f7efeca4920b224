import Foundation

/// Tunables of the agent server; defaults are the production values of the iOS runner.
public struct AgentConfig: Sendable {
    public var agentName = "mobridge-ios-runner"
    public var agentVersion = "0.1.0"
    /// A push waits for this long without events (the screen is then "stable")...
    public var quietMs = 100
    /// ... but never longer than this after the first event of a burst (as the Android agent).
    public var capMs = 500
    /// Capture this often without events, pushing only when the tree changed; 0 disables.
    /// XCUITest has no accessibility event stream: actions raise events, this catches the rest.
    public var timerMs = 2000
    /// ... backing off (doubling) to this while those captures find nothing changed.
    public var timerMaxMs = 8000
    /// After every action one more event this long after it (screens settle after animations).
    public var settleMs = 700
    /// Largest hub -> agent message accepted (bytes); larger ones close the link with 1009.
    public var maxMessageBytes = 1 << 20
    public var handshakeTimeoutMs = 10_000
    public var helloTimeoutMs = 10_000
    /// The server pings this often; a link silent for `idleTimeoutMs` is closed.
    public var keepaliveMs = 15_000
    public var idleTimeoutMs = 60_000
    public var watchdogIntervalMs = 1000
    /// The main thread not running a probe for this long marks the agent degraded.
    public var probeTimeoutMs = 30_000
    /// A command not finished on the main thread within this is answered FAILED (the hub waits
    /// 10 s); while it keeps running every new command is answered `busy` at once.
    public var commandDeadlineMs = 8000
    /// Commands waiting for or running on the main thread at once; more are answered `busy`.
    public var maxCommandsInFlight = 16
    /// Connections served at once (each has a thread until its handshake or hello times out);
    /// more are closed at once.
    public var maxConnections = 8

    public init() {}
}

/// A monotonic millisecond clock, injected so timing logic is testable without sleeping.
public protocol Clock: Sendable {
    func nowMillis() -> Int
}

public struct SystemClock: Clock {
    public init() {}
    public func nowMillis() -> Int { Int(DispatchTime.now().uptimeNanoseconds / 1_000_000) }
}

/// Where the agent says what it does. Never given a token or a typed value.
public protocol AgentLog: Sendable {
    func info(_ message: String)
    func warn(_ message: String)
}

public struct StderrLog: AgentLog {
    public let prefix: String
    public init(prefix: String = "mobridge-ios") { self.prefix = prefix }
    public func info(_ message: String) { emit("INFO", message) }
    public func warn(_ message: String) { emit("WARN", message) }
    private func emit(_ level: String, _ message: String) {
        FileHandle.standardError.write(Data("\(prefix) \(level) \(message)\n".utf8))
    }
}

/// What a backend operation did: success (with the dispatch method, text or PNG it produced) or
/// a failure code from the agent-link vocabulary. Expected failures are values, not errors.
public struct Outcome: Equatable, Sendable {
    public var ok: Bool
    public var method: ActionMethod?
    public var code: ReplyCode?
    public var message: String?
    public var text: String?
    public var pngBase64: String?
    /// The installed apps (an `apps` answer), else nil.
    public var apps: [InstalledApp]?
    /// What an install installed, when known.
    public var appId: String?
    /// The alerts on screen (an `alert list` answer), else nil.
    public var alerts: [AlertInfo]?

    public static let success = Outcome(ok: true)
    public static func listed(_ apps: [InstalledApp]) -> Outcome {
        var o = Outcome(ok: true)
        o.apps = apps
        return o
    }
    public static func installed(_ appId: String?) -> Outcome {
        var o = Outcome(ok: true)
        o.appId = appId
        return o
    }
    public static func ok(_ method: ActionMethod, note: String? = nil) -> Outcome { Outcome(ok: true, method: method, message: note) }
    public static func text(_ text: String?) -> Outcome { Outcome(ok: true, text: text) }
    public static func png(_ base64: String) -> Outcome { Outcome(ok: true, pngBase64: base64) }
    public static func fail(_ code: ReplyCode, _ message: String) -> Outcome { Outcome(ok: false, code: code, message: message) }
    public static func notFound(_ m: String) -> Outcome { fail(.notFound, m) }
    public static func unsupported(_ m: String) -> Outcome { fail(.unsupported, m) }
    public static func failed(_ m: String) -> Outcome { fail(.failed, m) }

    init(ok: Bool, method: ActionMethod? = nil, code: ReplyCode? = nil, message: String? = nil,
         text: String? = nil, pngBase64: String? = nil) {
        self.ok = ok
        self.method = method
        self.code = code
        self.message = message
        self.text = text
        self.pngBase64 = pngBase64
    }

    public func reply(_ id: Int) -> Reply {
        var r = Reply(id: id, ok: ok)
        r.method = method
        r.code = code?.rawValue
        r.message = message
        r.text = text
        r.pngBase64 = pngBase64
        r.apps = apps
        r.appId = appId
        r.alerts = alerts
        return r
    }
}

/// Everything the agent needs from a UI: capture, actions, app control, screenshot and change
/// events. Implementations: `PrimitiveBackend` (over the XCUITest layer on a device, or over the
/// scripted app in host mode) and test doubles.
///
/// Contract: the core calls every method except `setChangeListener` on the UI (main) thread,
/// one at a time; handles in a capture stay valid for node actions until `reset` or until the
/// backend drops that capture (it keeps at least the newest `retainedCaptures`); password values
/// never appear in a capture; expected failures are `Outcome`s, and any error thrown is reported
/// to the hub as FAILED.
public protocol UiBackend: AnyObject, Sendable {
    var deviceInfo: DeviceInfo { get }
    /// Capability names announced in hello (tree, node_action, gesture, ...).
    var capabilities: [String] { get }
    /// Installs (or, with nil, removes) the listener for UI change events; any thread.
    func setChangeListener(_ listener: (@Sendable () -> Void)?)
    /// Forgets every capture and its handles (a new hub connection starts numbering at 1).
    func reset()
    /// A full capture numbered `captureId`; handles refer to this capture.
    func capture(_ captureId: Int) throws -> RawTree
    func nodeAction(_ command: NodeActionCommand) throws -> Outcome
    func gesture(kind: String, points: [Point], durationMs: Int) throws -> Outcome
    func globalAction(_ action: GlobalAction) throws -> Outcome
    func key(_ name: String) throws -> Outcome
    func typeText(_ text: String) throws -> Outcome
    func app(_ action: AppAction, appId: String?, uri: String?) throws -> Outcome
    /// A PNG (base64) of the screen.
    func screenshot() throws -> Outcome
    /// Reads the clipboard (`set` nil) or sets it.
    func clipboard(set: String?) throws -> Outcome
    /// Nil while healthy, else why the UI source cannot be trusted (watchdog probe).
    func health() -> String?
    /// The installed apps (`Outcome.listed`); optional, like the four below (announced as
    /// capabilities `apps`, `terminate`, `install`, `uninstall`, `orientation`).
    func apps() throws -> Outcome
    func terminate(appId: String) throws -> Outcome
    func install(path: String, sha256: String?) throws -> Outcome
    func uninstall(appId: String) throws -> Outcome
    func orientation(_ orientation: Orientation) throws -> Outcome
    /// A pinch (`kind` "pinch", `scale` the span's factor) or two-finger tap around `center`
    /// (pixels); optional (capability `multi_touch`).
    func multiTouch(kind: String, center: Point, scale: Double, durationMs: Int) throws -> Outcome
    /// How much longer than `commandDeadlineMs` this command may run (typing scales with the
    /// text); called on a worker thread.
    func extraDeadlineMs(_ msg: HubMessage) -> Int
}

extension UiBackend {
    public func apps() throws -> Outcome { .unsupported("this device cannot list its apps") }
    public func terminate(appId: String) throws -> Outcome { .unsupported("this device cannot stop apps") }
    public func install(path: String, sha256: String?) throws -> Outcome { .unsupported("this device cannot install apps") }
    public func uninstall(appId: String) throws -> Outcome { .unsupported("this device cannot uninstall apps") }
    public func orientation(_ orientation: Orientation) throws -> Outcome { .unsupported("this device cannot turn its screen") }
    public func multiTouch(kind: String, center: Point, scale: Double, durationMs: Int) throws -> Outcome {
        .unsupported("this agent cannot inject several fingers at once")
    }
    public func extraDeadlineMs(_ msg: HubMessage) -> Int {
        switch msg {
        case .text(_, let t): return CommandBudget.typingMs(t.count, pace: .device)
        case .nodeAction(let c): return 2 * CommandBudget.typingMs(c.text?.count ?? 0, pace: .device)
        default: return 0
        }
    }
}

/// Deadlines that scale with the work: typing takes the pace's pauses plus XCTest's own typing
/// time (it types at most about `xctestCharsPerSecond`; WebDriverAgent's default maximum
/// typing frequency is 60), deleting an old value one key per character.
public enum CommandBudget {
    public static let xctestCharsPerSecond = 60.0
    /// One scroll-into-view step: a drag and a fresh snapshot.
    public static let scrollStepMs = 1500

    public static func typingMs(_ count: Int, pace: TypingPace) -> Int {
        guard count > 0 else { return 0 }
        let paced = pace.charsPerSecond > 0 ? Double(count) * 1000 / pace.charsPerSecond + Double(pace.firstPauseMs) : 0
        return Int((paced + Double(count) * 1000 / xctestCharsPerSecond).rounded(.up))
    }
}

public let retainedCaptures = 4

/// The readiness line the runner and host mode print once they accept connections; the hub's
/// simulator driver and the tests look for it.
public enum Readiness {
    public static let prefix = "MOBRIDGE_READY"

    public static func line(port: Int, version: String) -> String {
        "\(prefix) port=\(port) protocol=\(AgentProtocol.version) version=\(version)"
    }
}

func describe(_ error: Error) -> String {
    let s = "\(type(of: error)): \(error)"
    return s.count > 300 ? String(s.prefix(300)) : s
}
