import AgentCore
import Foundation
#if os(iOS)
import UIKit
import XCTest
#else
import XCUITestStubs
#endif

/// `DevicePrimitives` over XCUITest's public API. Every method is called on the main thread by
/// the agent core's executor and enters the main actor with `MainActor.assumeIsolated` (which
/// traps if that promise is ever broken).
///
/// - the foreground application is the app under test (`MOBRIDGE_BUNDLE_ID`, or the last one
///   the hub opened) while its state is `runningForeground`, else SpringBoard (home screen);
/// - one `snapshot()` of it per capture, plus one of SpringBoard's first alert when one exists
///   (permission prompts and other system alerts live in SpringBoard);
/// - input is coordinate-based (`XCUICoordinate` from the application's origin), never an
///   element query: no element resolution per action;
/// - the scale (pixels per point) is learnt once from a screenshot's PNG width.
public final class XCUIPrimitives: DevicePrimitives, @unchecked Sendable {
    public static let springboard = "com.apple.springboard"
    public let deviceInfo: DeviceInfo
    public let capabilities = ["tree", "node_action", "gesture", "global", "key", "text", "app", "screenshot",
                               "terminate", "orientation"]
    private let maxDepth: Int
    private var target: String?
    private var lastBundle = XCUIPrimitives.springboard
    private var scale: Double?

    public init(environment: RunnerEnvironment, maxDepth: Int = 50) {
        deviceInfo = DeviceInfo(id: environment.deviceId, model: DeviceFacts.model(), osVersion: DeviceFacts.osVersion())
        target = environment.bundleId
        self.maxDepth = maxDepth
    }

    public func snapshot() throws -> ScreenCapture {
        try MainActor.assumeIsolated { try snapshotOnMain() }
    }

    @MainActor private func snapshotOnMain() throws -> ScreenCapture {
        let (app, bundle) = foreground()
        lastBundle = bundle
        let reader = SnapshotReader(maxDepth: maxDepth) { identifier in
            app.descendants(matching: .any).matching(identifier: identifier).firstMatch.isHittable
        }
        let tree = reader.read(try app.snapshot())
        var roots = [CapturedRoot(bundleId: bundle, system: bundle == Self.springboard, tree: tree)]
        if bundle != Self.springboard {
            let alert = XCUIApplication(bundleIdentifier: Self.springboard).alerts.firstMatch
            if alert.exists {
                let alertReader = SnapshotReader(maxDepth: maxDepth) { _ in nil }
                roots.append(CapturedRoot(bundleId: Self.springboard, system: true, tree: alertReader.read(try alert.snapshot())))
            }
        }
        return ScreenCapture(scale: scaleOnMain(appWidth: tree.frame.width), roots: roots)
    }

    @MainActor private func foreground() -> (XCUIApplication, String) {
        if let id = target {
            let app = XCUIApplication(bundleIdentifier: id)
            if app.state == .runningForeground { return (app, id) }
        }
        return (XCUIApplication(bundleIdentifier: Self.springboard), Self.springboard)
    }

    @MainActor private func scaleOnMain(appWidth: Double) -> Double {
        if let s = scale { return s }
        let png = [UInt8](XCUIScreen.main.screenshot().pngRepresentation)
        guard appWidth > 0, let size = PNGInfo.size(png) else { return 1 }
        let s = (Double(size.width) / appWidth * 2).rounded() / 2  // 1, 2, 3 (or a half step)
        scale = s
        return s
    }

    @MainActor private func point(_ x: Double, _ y: Double) -> XCUICoordinate {
        XCUIApplication(bundleIdentifier: lastBundle)
            .coordinate(withNormalizedOffset: CGVector(dx: 0, dy: 0))
            .withOffset(CGVector(dx: x, dy: y))
    }

    public func tap(x: Double, y: Double) throws {
        MainActor.assumeIsolated { point(x, y).tap() }
    }

    public func doubleTap(x: Double, y: Double) throws {
        MainActor.assumeIsolated { point(x, y).doubleTap() }
    }

    public func longPress(x: Double, y: Double, seconds: Double) throws {
        MainActor.assumeIsolated { point(x, y).press(forDuration: seconds) }
    }

    public func drag(fromX: Double, fromY: Double, toX: Double, toY: Double, seconds: Double) throws {
        MainActor.assumeIsolated { point(fromX, fromY).press(forDuration: seconds, thenDragTo: point(toX, toY)) }
    }

    public func typeText(_ text: String) throws {
        MainActor.assumeIsolated { XCUIApplication(bundleIdentifier: lastBundle).typeText(text) }
    }

    public func typeKey(_ key: KeyName) throws {
        MainActor.assumeIsolated {
            let text: String
            switch key {
            case .enter: text = XCUIKeyboardKey.return.rawValue
            case .delete: text = XCUIKeyboardKey.delete.rawValue
            case .tab: text = XCUIKeyboardKey.tab.rawValue
            case .space: text = XCUIKeyboardKey.space.rawValue
            case .escape: text = XCUIKeyboardKey.escape.rawValue
            case .forwardDelete: text = XCUIKeyboardKey.forwardDelete.rawValue
            }
            XCUIApplication(bundleIdentifier: lastBundle).typeText(text)
        }
    }

    public func pressHome() throws {
        MainActor.assumeIsolated { XCUIDevice.shared.press(.home) }
    }

    public func pressButton(_ button: DeviceButton) throws -> Outcome {
        #if targetEnvironment(simulator)
        return .unsupported("the Simulator has no volume buttons")
        #else
        MainActor.assumeIsolated {
            XCUIDevice.shared.press(button == .volumeUp ? .volumeUp : .volumeDown)
        }
        return .success
        #endif
    }

    /// Stops an app's process (`XCUIApplication.terminate`); SpringBoard and this runner are
    /// never stopped.
    public func terminate(bundleId: String) throws -> Outcome {
        if bundleId == Self.springboard || bundleId == Bundle.main.bundleIdentifier {
            return .fail(.badCommand, "\(bundleId) is never stopped by the agent")
        }
        MainActor.assumeIsolated { XCUIApplication(bundleIdentifier: bundleId).terminate() }
        return .success
    }

    /// Turns the device (`XCUIDevice.orientation`): landscape is home button / bottom edge
    /// on the right (`landscapeLeft`).
    public func setOrientation(_ orientation: Orientation) throws -> Outcome {
        MainActor.assumeIsolated {
            XCUIDevice.shared.orientation = orientation == .landscape ? .landscapeLeft : .portrait
        }
        return .success
    }

    public func app(_ action: AppAction, bundleId: String?, url: String?) throws -> Outcome {
        try MainActor.assumeIsolated { try appOnMain(action, bundleId, url) }
    }

    @MainActor private func appOnMain(_ action: AppAction, _ bundleId: String?, _ url: String?) throws -> Outcome {
        switch action {
        case .open, .bringToFront:
            guard let id = bundleId, !id.isEmpty else { return .fail(.badCommand, "\(action.rawValue) needs an appId (bundle id)") }
            XCUIApplication(bundleIdentifier: id).activate()
            target = id
            return .success
        case .closeUI:
            XCUIDevice.shared.press(.home)
            return .success
        case .deepLink:
            guard let text = url, let link = URL(string: text) else { return .fail(.badCommand, "APP_DEEP_LINK needs a uri") }
            guard let id = bundleId ?? target else { return .fail(.badCommand, "APP_DEEP_LINK needs an appId on iOS") }
            if #available(iOS 16.4, *) {
                XCUIApplication(bundleIdentifier: id).open(link)
                target = id
                return .success
            }
            return .unsupported("opening a link needs iOS 16.4 or later")
        }
    }

    public func screenshotPNG() throws -> [UInt8] {
        MainActor.assumeIsolated { [UInt8](XCUIScreen.main.screenshot().pngRepresentation) }
    }

    public func setChangeListener(_ listener: (@Sendable () -> Void)?) {}

    public func health() -> String? { nil }
}
