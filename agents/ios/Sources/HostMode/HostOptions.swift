import AgentCore
import Foundation

/// Command line of `mobridge-ios-host` (scripts/run-ios-agent-host):
///
///     --port P            loopback port, 0 picks a free one (required)
///     --token T           the hub's bearer token (or env MOBRIDGE_AGENT_TOKEN)
///     --device-id ID      device id announced in hello (default ios-host-fake)
///     --replay FILE       serve a recorded snapshot (SnapshotFile) instead of the scripted app
///     --type-cps N        type at most N characters a second, paced like the device (default 0:
///                         no pacing; the scripted app drops nothing)
///     --no-live-check     act on the handle's capture without re-reading the screen first
///     --scene NAME        a pathology scene instead of the login app (PathologyScene.names;
///                         default login)
///     --quiescence-ms N   every input waits at most N ms for the app to go idle (0: never)
///     --idle-after-ms N   the app animates N ms after each input event before XCTest's
///                         idle wait ends (the modelled quiescence; default: the scene's own)
///     --fixed-idle-sleep  wait the whole bound on every event, as the layer did before issue 34
///     --without-private-api  act as a runner without XCTest's private snapshot parameters:
///                         snapshots are cut after they are taken and each capture warns
public struct HostOptions: Equatable {
    public var port: Int
    public var token: String
    public var deviceId = "ios-host-fake"
    public var replay: String?
    public var typeCps = 0.0
    public var liveCheck = true
    public var scene = "login"
    public var quiescenceMs: Int?
    public var privateApi = true
    public var idleAfterMs: Int?
    public var fixedIdleSleep = false

    public static let usage = "usage: run-ios-agent-host --port P --token T [--device-id ID] [--replay FILE] [--type-cps N] [--no-live-check] [--scene NAME] [--quiescence-ms N] [--idle-after-ms N] [--fixed-idle-sleep] [--without-private-api]"

    public static func parse(_ args: [String], environment: [String: String]) throws -> HostOptions {
        var port: Int?
        var token = environment["MOBRIDGE_AGENT_TOKEN"]
        var o = HostOptions(port: 0, token: "")
        var i = 0
        func value(_ name: String) throws -> String {
            i += 1
            guard i < args.count else { throw JsonError("\(name) needs a value") }
            return args[i]
        }
        while i < args.count {
            switch args[i] {
            case "--port":
                let v = try value("--port")
                guard let p = Int(v), (0...65535).contains(p) else { throw JsonError("bad port \(v)") }
                port = p
            case "--token": token = try value("--token")
            case "--device-id": o.deviceId = try value("--device-id")
            case "--replay": o.replay = try value("--replay")
            case "--type-cps":
                let v = try value("--type-cps")
                guard let n = Double(v), n >= 0 else { throw JsonError("bad --type-cps \(v)") }
                o.typeCps = n
            case "--no-live-check": o.liveCheck = false
            case "--without-private-api": o.privateApi = false
            case "--fixed-idle-sleep": o.fixedIdleSleep = true
            case "--idle-after-ms":
                let v = try value("--idle-after-ms")
                guard let n = Int(v), (0...60_000).contains(n) else { throw JsonError("bad --idle-after-ms \(v)") }
                o.idleAfterMs = n
            case "--scene":
                let v = try value("--scene")
                guard PathologyScene.names.contains(v) else {
                    throw JsonError("unknown scene \(v) (one of \(PathologyScene.names.joined(separator: ", ")))")
                }
                o.scene = v
            case "--quiescence-ms":
                let v = try value("--quiescence-ms")
                guard let n = Int(v), (0...QuiescencePolicy.maxMs).contains(n) else { throw JsonError("bad --quiescence-ms \(v)") }
                o.quiescenceMs = n
            default: throw JsonError("unknown argument \(args[i])")
            }
            i += 1
        }
        guard let p = port else { throw JsonError("--port is required") }
        guard let t = token, !t.isEmpty else { throw JsonError("--token (or MOBRIDGE_AGENT_TOKEN) is required") }
        o.port = p
        o.token = t
        return o
    }

    /// The backend these options describe.
    public func backend() throws -> PrimitiveBackend {
        let primitives: DevicePrimitives
        if let path = replay {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            primitives = ReplayPrimitives(try SnapshotFile.parse(text), deviceId: deviceId)
        } else {
            let h = HostPrimitives(deviceId: deviceId, scene: scene, privateSnapshotParameters: privateApi)
            h.idleAfterMs = idleAfterMs
            h.layerWait = fixedIdleSleep ? .fixedSleep : .xctest
            primitives = h
        }
        let pace = typeCps > 0 ? TypingPace(charsPerSecond: typeCps, firstPauseMs: TypingPace.device.firstPauseMs,
                                            chunk: TypingPace.device.chunk) : .unpaced
        let b = PrimitiveBackend(primitives: primitives, pace: pace)
        b.liveCheck = liveCheck
        b.targetApp = ScriptedApp.bundleId
        if let q = quiescenceMs { b.quiescence = .uniform(q) }
        return b
    }
}
