import Foundation

/// Serves the agent link over accepted byte streams; the accept loop belongs to the platform
/// (`LoopbackListener`) and calls `serve` on a thread per connection.
///
/// Invariants: every backend call of every session runs through the one `UIExecutor` owned
/// here, so a backend never sees concurrent calls and never runs off the UI thread; at most one
/// hub session is live — a newer authenticated connection supersedes the older (a hub
/// reconnecting after a dead link must not be locked out).
public final class AgentServer: @unchecked Sendable {
    let backend: UiBackend
    let tokens: TokenCheck
    let config: AgentConfig
    let clock: Clock
    let log: AgentLog
    let platform: Platform
    public let executor: UIExecutor
    private let lock = NSLock()
    private var current: AgentSession?
    private var stopped = false
    private var connections = 0

    public init(backend: UiBackend, tokens: TokenCheck, config: AgentConfig, uiThread: UIThread,
                platform: Platform = .ios, clock: Clock = SystemClock(), log: AgentLog = StderrLog()) {
        self.backend = backend
        self.tokens = tokens
        self.config = config
        self.clock = clock
        self.log = log
        self.platform = platform
        executor = UIExecutor(thread: uiThread, clock: clock, maxInFlight: config.maxCommandsInFlight)
    }

    /// Runs one connection to its end (blocking). Never throws. Beyond `maxConnections` at once
    /// a connection is closed without a word.
    public func serve(_ stream: ByteStream) {
        lock.lock()
        if connections >= config.maxConnections {
            lock.unlock()
            log.warn("refusing a connection: \(config.maxConnections) already open")
            stream.close()
            return
        }
        connections += 1
        lock.unlock()
        defer {
            lock.lock()
            connections -= 1
            lock.unlock()
        }
        let session = AgentSession(server: self, stream: stream)
        do {
            try session.run()
        } catch StreamError.timeout {
            log.info("a connection sent no handshake or hello in time; closed")
        } catch {
            log.warn("session ended with an error: \(describe(error))")
        }
        session.shutdown()
        lock.lock()
        if current === session { current = nil }
        lock.unlock()
    }

    /// Makes `session` the live one; false when the server is stopping.
    func activate(_ session: AgentSession) -> Bool {
        lock.lock()
        if stopped {
            lock.unlock()
            return false
        }
        let previous = current
        current = session
        lock.unlock()
        previous?.supersede()
        return true
    }

    func isCurrent(_ session: AgentSession) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return current === session
    }

    /// Whether a hub is linked right now.
    public var linked: Bool {
        lock.lock()
        defer { lock.unlock() }
        return current != nil
    }

    /// Tells the live hub the agent is stopping, closes it, and refuses new sessions.
    public func stop(reason: String) {
        lock.lock()
        stopped = true
        let s = current
        current = nil
        lock.unlock()
        s?.stop(reason: reason)
        executor.stop()
    }
}
