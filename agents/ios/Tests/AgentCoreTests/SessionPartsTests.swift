import AgentCore
import Foundation
import XCTest

final class ChangeDebouncerTests: XCTestCase {
    func testQuietPeriodGivesAStablePush() {
        var d = ChangeDebouncer(quietMs: 100, capMs: 500, timerMs: 0, now: 0)
        d.onEvent(10)
        XCTAssertEqual(d.deadline, 110)
        XCTAssertNil(d.poll(109))
        XCTAssertEqual(d.poll(110), ChangeDebouncer.Fire(reason: "event", stable: true, quietMs: 100))
        XCTAssertFalse(d.pending)
        XCTAssertEqual(d.deadline, ChangeDebouncer.never)
    }

    func testEndlessEventsArePushedAtTheCapUnstable() {
        var d = ChangeDebouncer(quietMs: 100, capMs: 500, timerMs: 0, now: 0)
        var t = 0
        var fire: ChangeDebouncer.Fire?
        while fire == nil {
            d.onEvent(t)
            t += 50
            fire = d.poll(t)
        }
        XCTAssertEqual(t, 500)
        XCTAssertEqual(fire?.stable, false)
        XCTAssertEqual(fire?.quietMs, 50)
    }

    func testTimerFiresWithoutEventsAndCaptureCommandsRestartIt() {
        var d = ChangeDebouncer(quietMs: 100, capMs: 500, timerMs: 2000, now: 0)
        XCTAssertNil(d.poll(1999))
        d.captured(1500)
        XCTAssertNil(d.poll(3000))
        XCTAssertEqual(d.poll(3500)?.reason, "timer")
        XCTAssertEqual(d.quietFor(3600), 3600)
    }

    // Issue 20 item 8: the reviewed runner took a snapshot every 2 s for as long as nothing moved.
    func testTheIdlePollBacksOffWhileNothingChangesAndComesBackOnAnEvent() {
        var d = ChangeDebouncer(quietMs: 100, capMs: 500, timerMs: 2000, maxTimerMs: 8000, now: 0)
        XCTAssertEqual(d.poll(2000)?.reason, "timer")
        d.timerUnchanged()
        XCTAssertNil(d.poll(5999))
        XCTAssertEqual(d.poll(6000)?.reason, "timer", "4 s after an unchanged one")
        d.timerUnchanged()
        d.timerUnchanged()
        XCTAssertEqual(d.timerInterval, 8000, "capped")
        XCTAssertNil(d.poll(13_999))
        XCTAssertEqual(d.poll(14_000)?.reason, "timer")
        d.onEvent(14_100)
        XCTAssertEqual(d.timerInterval, 2000, "an event brings the base interval back")
        var same = ChangeDebouncer(quietMs: 100, capMs: 500, timerMs: 2000, now: 0)
        same.timerUnchanged()
        XCTAssertEqual(same.timerInterval, 2000, "no maximum: no back-off (the Android rules)")
    }
}

final class WatchdogTests: XCTestCase {
    func testOnlyTransitionsAreReported() {
        var w = Watchdog()
        XCTAssertNil(w.observe(nil))
        XCTAssertEqual(w.observe("stuck"), Watchdog.degraded)
        XCTAssertNil(w.observe("still stuck"))
        XCTAssertEqual(w.reason, "still stuck")
        XCTAssertEqual(w.observe(nil), Watchdog.ready)
        XCTAssertNil(w.reason)
    }
}

final class UIExecutorTests: XCTestCase {
    func testRunsOnTheUiThreadInOrderAndReturnsResults() throws {
        let e = UIExecutor(thread: SerialQueueThread(label: "t-ui"), clock: SystemClock())
        XCTAssertEqual(try e.run("a", deadlineMs: 1000) { 41 + 1 }, 42)
        struct Boom: Error {}
        XCTAssertThrowsError(try e.run("b", deadlineMs: 1000) { () throws -> Int in throw Boom() }) {
            XCTAssertTrue($0 is Boom)
        }
    }

    func testOverrunIsAbandonedThenBusyUntilItEnds() throws {
        let e = UIExecutor(thread: SerialQueueThread(label: "t-ui2"), clock: SystemClock())
        let release = DispatchSemaphore(value: 0)
        XCTAssertThrowsError(try e.run("slow capture", deadlineMs: 50) { release.wait() }) { error in
            guard case .deadline(let m)? = error as? UIExecutor.Failure else { return XCTFail("\(error)") }
            XCTAssertTrue(m.contains("still running"))
        }
        XCTAssertEqual(e.overrun?.name, "slow capture")
        XCTAssertThrowsError(try e.run("tap", deadlineMs: 1000) { 1 }) { error in
            guard case .busy(let m)? = error as? UIExecutor.Failure else { return XCTFail("\(error)") }
            XCTAssertTrue(m.contains("slow capture"))
        }
        release.signal()
        let deadline = Date().addingTimeInterval(5)
        while e.overrun != nil && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertNil(e.overrun)
        XCTAssertEqual(try e.run("after", deadlineMs: 1000) { 7 }, 7)
    }

    func testAJobWhoseCallerGaveUpBeforeItStartedNeverRuns() throws {
        let thread = SerialQueueThread(label: "t-ui3")
        let e = UIExecutor(thread: thread, clock: SystemClock())
        let block = DispatchSemaphore(value: 0)
        thread.post { block.wait() }  // the UI thread is busy with something else
        let ran = NSLock()
        nonisolated(unsafe) var tapped = false
        XCTAssertThrowsError(try e.run("tap", deadlineMs: 50) { ran.lock(); tapped = true; ran.unlock() }) { error in
            guard case .deadline(let m)? = error as? UIExecutor.Failure else { return XCTFail("\(error)") }
            XCTAssertTrue(m.contains("did not start"))
        }
        block.signal()
        XCTAssertEqual(try e.run("later", deadlineMs: 1000) { 1 }, 1)
        ran.lock()
        XCTAssertFalse(tapped, "a tap the hub was told failed must never happen")
        ran.unlock()
    }

    func testInFlightIsBounded() throws {
        let thread = SerialQueueThread(label: "t-ui4")
        let e = UIExecutor(thread: thread, clock: SystemClock(), maxInFlight: 2)
        let block = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for _ in 0..<2 {
            DispatchQueue.global().async(group: group) { _ = try? e.run("wait", deadlineMs: 2000) { block.wait() } }
        }
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertThrowsError(try e.run("third", deadlineMs: 1000) { 1 }) { error in
            guard case .busy? = error as? UIExecutor.Failure else { return XCTFail("\(error)") }
        }
        block.signal()
        block.signal()
        group.wait()
    }
}

final class TypingPaceTests: XCTestCase {
    func testFirstCharacterAloneThenChunksAtTheRate() {
        let plan = TypingPace(charsPerSecond: 40, firstPauseMs: 300, chunk: 8).plan("abcdefghijklmnop")
        XCTAssertEqual(plan.map(\.0), ["a", "bcdefghi", "jklmnop"])
        XCTAssertEqual(plan.map(\.1), [300, 200, 0])
        XCTAssertEqual(plan.map(\.0).joined(), "abcdefghijklmnop")
        XCTAssertEqual(TypingPace.unpaced.plan("abc").map(\.0), ["abc"])
        XCTAssertTrue(TypingPace.device.plan("").isEmpty)
        XCTAssertEqual(TypingPace.device.plan("é👍🏽x").map(\.0).joined(), "é👍🏽x")
    }
}

final class RunnerEnvironmentTests: XCTestCase {
    func testReadsTheHubsVariablesAndRequiresAToken() throws {
        let env = try RunnerEnvironment(["MOBRIDGE_TOKEN": "t", "MOBRIDGE_PORT": "8300", "MOBRIDGE_DEVICE_ID": "00008120-X",
                                         "MOBRIDGE_BUNDLE_ID": "com.example.Shop-Beta"])
        XCTAssertEqual(env.port, 8300)
        XCTAssertEqual(env.deviceId, "00008120-X")
        XCTAssertEqual(env.bundleId, "com.example.Shop-Beta")
        XCTAssertFalse(env.ipv6)
        XCTAssertTrue(try RunnerEnvironment(["MOBRIDGE_TOKEN": "t", "MOBRIDGE_LISTEN_IPV6": "1"]).ipv6)
        XCTAssertEqual(try RunnerEnvironment(["MOBRIDGE_TOKEN": "t"]).port, RunnerEnvironment.defaultPort)
        XCTAssertThrowsError(try RunnerEnvironment([:]))
        XCTAssertThrowsError(try RunnerEnvironment(["MOBRIDGE_TOKEN": "t", "MOBRIDGE_PORT": "99999"]))
        XCTAssertEqual(Readiness.line(port: 8300, version: "0.1.0"), "MOBRIDGE_READY port=8300 protocol=1 version=0.1.0")
        let tuned = try RunnerEnvironment(["MOBRIDGE_TOKEN": "t", "MOBRIDGE_CANDIDATE_APPS": "com.a, ,com.b",
                                           "MOBRIDGE_QUIESCENCE_MS": "0"])
        XCTAssertEqual(tuned.candidateApps, ["com.a", "com.b"])
        XCTAssertEqual(tuned.quiescenceMs, 0)
        XCTAssertThrowsError(try RunnerEnvironment(["MOBRIDGE_TOKEN": "t", "MOBRIDGE_QUIESCENCE_MS": "60000"]),
                             "an idle wait is capped")
    }

    func testPngSizeComesFromTheHeader() {
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
        png += Array("IHDR".utf8) + [0, 0, 4, 0x9B, 0, 0, 0x09, 0xFC]
        XCTAssertEqual(PNGInfo.size(png)?.width, 1179)
        XCTAssertEqual(PNGInfo.size(png)?.height, 2556)
        XCTAssertNil(PNGInfo.size(Array(png.prefix(20))))
    }
}
