import AgentCore
import Foundation
#if os(iOS)
import XCTest
#else
import XCUITestStubs
#endif

/// The XCTest runner's one test: it hosts the agent server for as long as the runner lives.
///
/// - XCTest failures (snapshot errors and the like) are logged and never end the test: a
///   recorded issue would otherwise tear the test down after a few and restart the runner;
/// - `testBridge` never returns while the server runs: it spins the main run loop, which is what
///   executes the commands the agent core posts to the main queue;
/// - the readiness line (`MOBRIDGE_READY port=P protocol=1 version=V`) is printed once the
///   loopback listener accepts connections.
open class BridgeUITests: XCTestCase {
    open override func setUp() {
        super.setUp()
        continueAfterFailure = true
    }

    open override func record(_ issue: XCTIssue) {
        BridgeRunner.log.warn("XCTest issue (logged, not failing the runner): \(issue.compactDescription)")
    }

    public func testBridge() {
        BridgeRunner.serveForever(ProcessInfo.processInfo.environment)
    }
}

public enum BridgeRunner {
    static let log = StderrLog(prefix: "mobridge-runner")

    /// Serves until the process ends; returns only when the server cannot start.
    public static func serveForever(_ environment: [String: String]) {
        let env: RunnerEnvironment
        do {
            env = try RunnerEnvironment(environment)
        } catch {
            log.warn("not starting: \(error)")
            return
        }
        var config = AgentConfig()
        config.agentName = "mobridge-ios-runner"
        let backend = PrimitiveBackend(primitives: XCUIPrimitives(environment: env), pace: .device)
        backend.targetApp = env.bundleId
        if let q = env.quiescenceMs { backend.quiescence = .uniform(q) }
        let server: AgentServer
        let listener: LoopbackListener
        do {
            server = AgentServer(backend: backend, tokens: try TokenCheck(env.token), config: config,
                                 uiThread: MainQueueThread(), platform: .ios, log: log)
            listener = try LoopbackListener(port: env.port, ipv6: env.ipv6)
        } catch {
            log.warn("not starting: \(error)")
            return
        }
        listener.start { server.serve($0) }
        DeviceFacts.announce(Readiness.line(port: listener.port, version: config.agentVersion))
        while true {
            _ = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: 1))
        }
    }
}
