import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How the runner is told where to listen and whom to trust: environment variables set by the
/// hub (pymobiledevice3's `runner_app_env` on a device; `TEST_RUNNER_<NAME>` through
/// `xcodebuild test-without-building` on a Simulator, which strips the prefix).
///
/// - `MOBRIDGE_TOKEN` (required): the bearer token the hub presents;
/// - `MOBRIDGE_PORT` (default 8200): the loopback port;
/// - `MOBRIDGE_DEVICE_ID` (default `ios-device`): the device id announced in hello (the UDID);
/// - `MOBRIDGE_BUNDLE_ID` (optional): the app under test, captured while it is in front;
/// - `MOBRIDGE_LISTEN_IPV6=1` (optional): listen on ::1 as well as 127.0.0.1;
/// - `MOBRIDGE_CANDIDATE_APPS` (optional): comma-separated bundle ids whose state is checked
///   when looking for the app in front (besides the app under test, the apps the hub opened,
///   Settings and Safari), at most 16;
/// - `MOBRIDGE_QUIESCENCE_MS` (optional, 0-5000): every idle wait at most this long (0: none).
public struct RunnerEnvironment: Equatable, Sendable {
    public static let defaultPort = 8200
    public var token: String
    public var port: Int
    public var deviceId: String
    public var bundleId: String?
    public var ipv6: Bool
    public var candidateApps: [String]
    public var quiescenceMs: Int?

    public init(_ env: [String: String]) throws {
        guard let token = env["MOBRIDGE_TOKEN"], !token.isEmpty else {
            throw JsonError("MOBRIDGE_TOKEN is not set: the hub passes it when it launches the runner")
        }
        self.token = token
        if let p = env["MOBRIDGE_PORT"] {
            guard let n = Int(p), (1...65535).contains(n) else { throw JsonError("MOBRIDGE_PORT '\(p)' is not a port") }
            port = n
        } else {
            port = Self.defaultPort
        }
        deviceId = env["MOBRIDGE_DEVICE_ID"].flatMap { $0.isEmpty ? nil : $0 } ?? "ios-device"
        bundleId = env["MOBRIDGE_BUNDLE_ID"].flatMap { $0.isEmpty ? nil : $0 }
        ipv6 = env["MOBRIDGE_LISTEN_IPV6"] == "1"
        candidateApps = (env["MOBRIDGE_CANDIDATE_APPS"] ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && $0.count <= 255 }.prefix(16).map { $0 }
        if let q = env["MOBRIDGE_QUIESCENCE_MS"] {
            guard let n = Int(q), (0...QuiescencePolicy.maxMs).contains(n) else {
                throw JsonError("MOBRIDGE_QUIESCENCE_MS '\(q)' is not 0-\(QuiescencePolicy.maxMs)")
            }
            quiescenceMs = n
        }
    }
}

/// Facts about the machine the agent runs on, from Foundation and uname only.
public enum DeviceFacts {
    /// `iPhone15,4` on a device, the simulated model on a Simulator, the CPU elsewhere.
    public static func model() -> String {
        if let sim = ProcessInfo.processInfo.environment["SIMULATOR_MODEL_IDENTIFIER"], !sim.isEmpty { return sim }
        var u = utsname()
        guard uname(&u) == 0 else { return "unknown" }
        return withUnsafeBytes(of: &u.machine) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// `17.5` style.
    public static func osVersion() -> String {
        let v = ProcessInfo.processInfo.operatingSystemVersion
        return v.patchVersion == 0 ? "\(v.majorVersion).\(v.minorVersion)" : "\(v.majorVersion).\(v.minorVersion).\(v.patchVersion)"
    }

    /// Writes the readiness line to stdout unbuffered (xcodebuild and host-mode callers read it).
    public static func announce(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
