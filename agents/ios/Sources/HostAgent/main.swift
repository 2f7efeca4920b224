// Host mode of the iOS agent: the real agent core (websocket server, agent link, executor on the
// main queue, debounce, watchdog, converter, node actions) with the scripted demo app instead of
// XCUITest. Listens on 127.0.0.1 (and ::1) only and prints `READY ws://127.0.0.1:PORT`, then the
// runner's readiness line, once it accepts connections.
import AgentCore
import Foundation
import HostMode
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func fail(_ why: String) -> Never {
    FileHandle.standardError.write(Data("run-ios-agent-host: \(why)\n\(HostOptions.usage)\n".utf8))
    exit(2)
}

let options: HostOptions
do {
    options = try HostOptions.parse(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
} catch {
    fail("\(error)")
}

var config = AgentConfig()
config.agentName = "mobridge-ios-agent-host"
let server: AgentServer
let listener: LoopbackListener
do {
    server = AgentServer(backend: try options.backend(), tokens: try TokenCheck(options.token), config: config,
                         uiThread: MainQueueThread(), platform: .ios, log: StderrLog(prefix: "mobridge-ios-host"))
    listener = try LoopbackListener(port: options.port)
} catch {
    fail("\(error)")
}

var signalSources: [DispatchSourceSignal] = []
for sig in [SIGTERM, SIGINT] {
    signal(sig, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
    source.setEventHandler {
        server.stop(reason: "host agent shutting down")
        listener.stop()
        exit(0)
    }
    source.resume()
    signalSources.append(source)
}

listener.start { server.serve($0) }
DeviceFacts.announce("READY ws://127.0.0.1:\(listener.port)")
DeviceFacts.announce(Readiness.line(port: listener.port, version: config.agentVersion))
dispatchMain()
