/// Decides when UI change events become a tree push. A pure state machine over caller-supplied
/// times (the same rules as the Android agent's `ChangeDebouncer`).
///
/// After the first event of a burst a capture is due once no event arrived for `quietMs`
/// (stable) or, while events keep coming, `capMs` after the burst began (not stable), so a
/// screen that never settles is still pushed at least every `capMs`. With no events a "timer"
/// capture is due `timerMs` after the previous capture (0 disables it); the pusher drops it when
/// unchanged. `quietMs` of a decision is the time since the last event when it was taken.
/// With `maxTimerMs` above `timerMs` the timer backs off: each timer capture the pusher reports
/// unchanged (`timerUnchanged`) doubles the interval up to `maxTimerMs`; any event or change
/// brings it back to `timerMs` (XCUITest has no event stream, and an idle screen should not cost
/// a snapshot every 2 s for ever).
public struct ChangeDebouncer: Sendable {
    public struct Fire: Equatable, Sendable {
        public let reason: String
        public let stable: Bool
        public let quietMs: Int

        public init(reason: String, stable: Bool, quietMs: Int) {
            self.reason = reason
            self.stable = stable
            self.quietMs = quietMs
        }
    }

    public static let never = Int.max

    private let quiet: Int
    private let cap: Int
    private let timer: Int
    private let maxTimer: Int
    private var backoff = 0
    private var burstStart = -1
    private var lastEvent = -1
    private var lastCapture: Int

    /// Needs 0 < quiet <= cap and timer >= 0.
    public init(quietMs: Int, capMs: Int, timerMs: Int, maxTimerMs: Int? = nil, now: Int) {
        precondition(quietMs > 0 && capMs >= quietMs && timerMs >= 0, "need 0 < quiet <= cap and timer >= 0")
        quiet = quietMs
        cap = capMs
        timer = timerMs
        maxTimer = max(timerMs, maxTimerMs ?? timerMs)
        lastCapture = now
    }

    /// The timer's interval now (`timerMs`, or more after unchanged timer captures).
    public var timerInterval: Int { timer == 0 ? 0 : min(maxTimer, timer << min(backoff, 16)) }

    public mutating func onEvent(_ now: Int) {
        if burstStart < 0 { burstStart = now }
        lastEvent = now
        backoff = 0
    }

    /// The timer capture found the screen unchanged: wait longer before the next one.
    public mutating func timerUnchanged() {
        if timerInterval < maxTimer { backoff += 1 }
    }

    /// A capture found the screen changed: back to the base interval.
    public mutating func changed() { backoff = 0 }

    /// Whether events are waiting to be captured.
    public var pending: Bool { burstStart >= 0 }

    /// When `poll` will next return a decision, absent new events.
    public var deadline: Int {
        if burstStart >= 0 { return min(lastEvent + quiet, burstStart + cap) }
        return timer == 0 ? Self.never : lastCapture + timerInterval
    }

    /// A decision when one is due at `now`, else nil. A decision resets the burst.
    public mutating func poll(_ now: Int) -> Fire? {
        if burstStart >= 0 {
            let q = now - lastEvent
            if q >= quiet || now - burstStart >= cap {
                burstStart = -1
                lastCapture = now
                return Fire(reason: "event", stable: q >= quiet, quietMs: q)
            }
            return nil
        }
        if timer > 0 && now - lastCapture >= timerInterval {
            lastCapture = now
            let q = lastEvent < 0 ? now : now - lastEvent
            return Fire(reason: "timer", stable: q >= quiet, quietMs: q)
        }
        return nil
    }

    /// Records a capture made for another reason (a capture command), restarting the timer.
    public mutating func captured(_ now: Int) { lastCapture = now }

    /// Milliseconds since the last event at `now`; `now` itself when none yet.
    public func quietFor(_ now: Int) -> Int { lastEvent < 0 ? now : now - lastEvent }
}

/// Turns health probes into state transitions: ready -> degraded when a probe reports a reason
/// (or does not answer), degraded -> ready when a probe succeeds again. Only transitions are
/// reported, so the hub gets one status message per change, never a stream of them.
public struct Watchdog: Sendable {
    public static let ready = "ready"
    public static let degraded = "degraded"

    public private(set) var state = Watchdog.ready
    public private(set) var reason: String?

    public init() {}

    /// Feeds one probe result (nil = healthy); the new state when it changed, else nil.
    public mutating func observe(_ probe: String?) -> String? {
        guard let why = probe else {
            if state == Self.degraded {
                state = Self.ready
                reason = nil
                return state
            }
            return nil
        }
        reason = why
        if state == Self.ready {
            state = Self.degraded
            return state
        }
        return nil
    }

    public var isDegraded: Bool { state == Self.degraded }
}
