import Foundation

/// The thread every UI call runs on: the main queue in the XCTest runner (XCUITest must be
/// called on the main thread, and the never-ending test spins the main run loop) and in host
/// mode; a private serial queue in unit tests.
public protocol UIThread: Sendable {
    /// Runs `job` on the UI thread later, in submission order.
    func post(_ job: @escaping @Sendable () -> Void)
}

public struct MainQueueThread: UIThread {
    public init() {}
    public func post(_ job: @escaping @Sendable () -> Void) { DispatchQueue.main.async(execute: job) }
}

public struct SerialQueueThread: UIThread {
    private let queue: DispatchQueue
    public init(label: String = "mobridge-ui") { queue = DispatchQueue(label: label) }
    public func post(_ job: @escaping @Sendable () -> Void) { queue.async(execute: job) }
}

/// Runs commands on the UI thread with per-command deadlines, and answers `busy` instead of
/// queueing behind work that overran its deadline.
///
/// Invariants:
/// - jobs run one at a time on the UI thread, in submission order;
/// - a caller waits at most its deadline; a job whose caller gave up before it started never
///   runs (a tap the hub was told failed must not happen later);
/// - a job still running past its deadline is *abandoned* (an XCUITest call cannot be
///   cancelled); until it ends, `run` fails at once with `busy`, so nothing piles up behind it;
/// - at most `maxInFlight` jobs are waiting or running; beyond that `run` fails with `busy`.
public final class UIExecutor: @unchecked Sendable {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case busy(String)
        case deadline(String)
        case stopped

        public var description: String {
            switch self {
            case .busy(let m): return "busy: " + m
            case .deadline(let m): return m
            case .stopped: return "agent stopping"
            }
        }
    }

    private final class Job: @unchecked Sendable {
        let serial: Int
        let name: String
        let done = DispatchSemaphore(value: 0)
        var started = false
        var cancelled = false
        var result: Result<Any, Error>?
        init(serial: Int, name: String) {
            self.serial = serial
            self.name = name
        }
    }

    public let thread: UIThread
    private let clock: Clock
    private let maxInFlight: Int
    private let lock = NSLock()
    private var inFlight = 0
    private var serial = 0
    private var abandoned: (serial: Int, name: String, since: Int)?
    private var stopped = false

    public init(thread: UIThread, clock: Clock, maxInFlight: Int = 16) {
        self.thread = thread
        self.clock = clock
        self.maxInFlight = maxInFlight
    }

    /// Runs `work` on the UI thread and returns its result, waiting at most `deadlineMs`.
    /// Throws `Failure.busy` without running anything while an abandoned job is still running
    /// or too many are in flight, `Failure.deadline` when the deadline passed (the job is then
    /// either skipped, if it had not started, or abandoned), or whatever `work` threw.
    public func run<T>(_ name: String, deadlineMs: Int, _ work: @escaping @Sendable () throws -> T) throws -> T {
        let job: Job
        lock.lock()
        if stopped {
            lock.unlock()
            throw Failure.stopped
        }
        if let a = abandoned {
            lock.unlock()
            throw Failure.busy("the main thread is still running '\(a.name)' (over its deadline for \(clock.nowMillis() - a.since) ms)")
        }
        if inFlight >= maxInFlight {
            lock.unlock()
            throw Failure.busy("\(inFlight) commands already waiting for the main thread")
        }
        inFlight += 1
        serial += 1
        job = Job(serial: serial, name: name)
        lock.unlock()

        thread.post { [self] in
            lock.lock()
            if job.cancelled {
                lock.unlock()
                finished(job)
                return
            }
            job.started = true
            lock.unlock()
            let r: Result<Any, Error>
            do { r = .success(try work()) } catch { r = .failure(error) }
            lock.lock()
            job.result = r
            lock.unlock()
            job.done.signal()
            finished(job)
        }

        let waited = job.done.wait(timeout: .now() + .milliseconds(max(0, deadlineMs)))
        lock.lock()
        if waited == .timedOut, job.result == nil {
            if !job.started {
                job.cancelled = true
                lock.unlock()
                throw Failure.deadline("'\(name)' did not start within \(deadlineMs) ms: the main thread is busy")
            }
            if abandoned == nil { abandoned = (job.serial, name, clock.nowMillis()) }
            lock.unlock()
            throw Failure.deadline("'\(name)' did not finish within \(deadlineMs) ms; it is still running on the main thread")
        }
        let result = job.result!
        lock.unlock()
        switch result {
        case .success(let v): return v as! T
        case .failure(let e): throw e
        }
    }

    private func finished(_ job: Job) {
        lock.lock()
        inFlight -= 1
        if let a = abandoned, a.serial == job.serial { abandoned = nil }
        lock.unlock()
    }

    /// The abandoned job's name and for how long it has overrun, when there is one.
    public var overrun: (name: String, ms: Int)? {
        lock.lock()
        defer { lock.unlock() }
        guard let a = abandoned else { return nil }
        return (a.name, clock.nowMillis() - a.since)
    }

    /// Refuses every later `run` (jobs already queued still end normally).
    public func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
    }
}
