// swift-tools-version:6.0
// The iOS agent of mobridge. No dependencies outside this package: Foundation (and the
// platform's C library for BSD sockets), plus XCTest for the tests.
//
//   AgentCore      Foundation only; builds on Linux and iOS; `swift test` here
//   XCUITestStubs  the XCTest/XCUITest API the runner uses, declared for compiling off Apple
//   BridgeRunner   the XCUITest layer (never-ending test, XCUI primitives); on Linux it compiles
//                  against XCUITestStubs, on iOS (Xcode project, agents/ios/xcode) against XCTest
//   HostMode       the scripted login/home app and the host primitives
//   HostAgent      `mobridge-ios-host`: the core + HostMode on 127.0.0.1 (scripts/run-ios-agent-host)
import PackageDescription

let package = Package(
    name: "MobridgeIOSAgent",
    products: [
        .executable(name: "mobridge-ios-host", targets: ["HostAgent"]),
    ],
    targets: [
        .target(name: "AgentCore"),
        .target(name: "XCUITestStubs"),
        .target(name: "BridgeRunner", dependencies: ["AgentCore", "XCUITestStubs"]),
        .target(name: "HostMode", dependencies: ["AgentCore"]),
        .executableTarget(name: "HostAgent", dependencies: ["AgentCore", "HostMode"]),
        .testTarget(name: "AgentCoreTests", dependencies: ["AgentCore"]),
        .testTarget(name: "HostModeTests", dependencies: ["AgentCore", "HostMode"]),
    ]
)
