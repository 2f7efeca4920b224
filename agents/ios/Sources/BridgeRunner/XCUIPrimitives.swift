import AgentCore
import Foundation
#if os(iOS)
import UIKit
import XCTest
#else
import XCUITestStubs
#endif

/// `DevicePrimitives` over XCUITest's public API: thin calls only — every decision (which app
/// is in front, depth limits and the fallback, hit tests and scrolling, drag velocity, focus,
/// clearing, deadlines) is made by the agent core. Every method is called on the main thread by
/// the core's executor and enters the main actor with `MainActor.assumeIsolated` (which traps
/// if that promise is ever broken).
///
/// - running apps: the apps in front from XCTest's private accessibility client
///   (`PrivateXCTest.activeApplications`: any app, Photos or Mail included), else
///   `XCUIApplication(bundleIdentifier:).state` of the candidates (the app under test, the apps
///   the hub opened, `MOBRIDGE_CANDIDATE_APPS`, Settings, Safari, SpringBoard);
/// - input (coordinates, typing, keys) goes to the app the core found in front
///   (`setInputApp`), never to one it last captured (issue 34);
/// - a system alert is looked for with one query (SpringBoard's first alert `exists`) before
///   the core reads SpringBoard's snapshot;
/// - one `snapshot()` per application asked for, limited while it is taken through XCTest's
///   private snapshot parameters (`maxDepth`, `PrivateXCTest`) when present; without them the
///   walk is cut at the limit instead (the public fallback);
/// - input is coordinate-based (`XCUICoordinate` from the application's origin); drags use
///   `press(forDuration:thenDragTo:withVelocity:thenHoldForDuration:)`;
/// - the scale is read per call from the runner's own screen (UIKit), never cached, with the
///   native scale and width in points so the core can match the screenshot's pixels;
/// - the pasteboard is UIKit's general pasteboard in the runner's process.
public final class XCUIPrimitives: DevicePrimitives, @unchecked Sendable {
    public static let springboard = "com.apple.springboard"
    static let knownApps = ["com.apple.Preferences", "com.apple.mobilesafari"]
    public let deviceInfo: DeviceInfo
    public let capabilities = ["tree", "node_action", "gesture", "global", "key", "text", "app", "screenshot",
                               "terminate", "orientation", "multi_touch", "clipboard"]
    private var candidates: [String]
    private var inputBundle = XCUIPrimitives.springboard
    /// What fell back to the public path, once each, in the order met (`captureWarnings`).
    private var warnings: [String] = []

    static let depthWarning = "snapshot depth cannot be limited: XCAXClient_iOS.defaultParameters missing; using the public snapshot"
    static let quiescenceWarning = "idle waits cannot be bounded: XCUIApplicationProcess.waitForQuiescenceIncludingAnimationsIdle: missing; XCTest's own wait is used"
    static let focusWarning = "keyboard focus unknown: hasKeyboardFocus missing on snapshots; hasFocus is used"
    static let appsWarning = "apps in front unknown: XCAXClient_iOS.activeApplications missing; only known bundle ids are checked"

    private func warn(_ w: String) {
        if !warnings.contains(w) { warnings.append(w) }
    }

    public func captureWarnings() -> [String] { warnings }

    public init(environment: RunnerEnvironment) {
        deviceInfo = DeviceInfo(id: environment.deviceId, model: DeviceFacts.model(), osVersion: DeviceFacts.osVersion())
        candidates = ([environment.bundleId].compactMap { $0 } + environment.candidateApps + Self.knownApps)
            .prefix(16).map { $0 }
        // Every private entry point probed now (lookups only, no input), so each fallback is
        // in the first capture's warnings, before anything acts (issue 34).
        let missing = PrivateXCTest.missingEntryPoints()
        if missing.contains(.snapshotParameters) { warn(Self.depthWarning) }
        if missing.contains(.quiescence) { warn(Self.quiescenceWarning) }
        if missing.contains(.activeApplications) { warn(Self.appsWarning) }
        if missing.contains(.keyboardFocus) { warn(Self.focusWarning) }
    }

    public func screen() throws -> ScreenGeometry {
        MainActor.assumeIsolated {
            let rotation: Int
            switch XCUIDevice.shared.orientation {
            case .landscapeLeft: rotation = 90
            case .landscapeRight: rotation = 270
            case .portraitUpsideDown: rotation = 180
            default: rotation = 0
            }
            return ScreenGeometry(scale: NativeScreen.scale, rotation: rotation, nativeScale: NativeScreen.nativeScale,
                                  widthPoints: NativeScreen.widthPoints)
        }
    }

    public func runningApps() throws -> [RunningApp] {
        if let active = PrivateXCTest.activeApplications(), !active.isEmpty {
            return active.map { RunningApp(bundleId: $0, foreground: true) }
                + (active.contains(Self.springboard) ? [] : [RunningApp(bundleId: Self.springboard, foreground: true)])
        }
        warn(Self.appsWarning)
        return MainActor.assumeIsolated {
            (candidates + [Self.springboard]).map { id in
                RunningApp(bundleId: id, foreground: XCUIApplication(bundleIdentifier: id).state == .runningForeground)
            }
        }
    }

    public func snapshot(of bundleId: String, limits: SnapshotLimits) throws -> ElementSnapshot {
        try MainActor.assumeIsolated {
            // false: the public path, cut below, and said in the capture's warnings
            if !PrivateXCTest.setSnapshotMaxDepth(limits.maxDepth) { warn(Self.depthWarning) }
            let snap = try XCUIApplication(bundleIdentifier: bundleId).snapshot()
            let tree = SnapshotReader(maxDepth: limits.maxDepth).read(snap)
            if tree.hasKeyboardFocus == nil { warn(Self.focusWarning) }
            return tree
        }
    }

    public func setQuiescence(_ wait: Quiescence) {
        switch wait {
        case .skip: PrivateXCTest.quiescenceBoundMs = 0
        case .bounded(let ms): PrivateXCTest.quiescenceBoundMs = ms
        }
        if !PrivateXCTest.installQuiescenceBound() { warn(Self.quiescenceWarning) }
    }

    public func setInputApp(_ bundleId: String) { inputBundle = bundleId }

    /// One query, no snapshot: whether SpringBoard's first alert exists.
    public func systemAlertShown() -> Bool? {
        MainActor.assumeIsolated {
            XCUIApplication(bundleIdentifier: Self.springboard).descendants(matching: .alert).firstMatch.exists
        }
    }

    public func pasteboard(set: String?) throws -> Outcome {
        MainActor.assumeIsolated {
            if let text = set {
                return Pasteboard.write(text) ? .success : .unsupported("no pasteboard on this platform")
            }
            guard let read = Pasteboard.read() else { return .unsupported("no pasteboard on this platform") }
            return .text(read ?? "")
        }
    }

    @MainActor private func point(_ x: Double, _ y: Double) -> XCUICoordinate {
        XCUIApplication(bundleIdentifier: inputBundle)
            .coordinate(withNormalizedOffset: CGVector(dx: 0, dy: 0))
            .withOffset(CGVector(dx: x, dy: y))
    }

    public func tap(x: Double, y: Double) throws {
        MainActor.assumeIsolated { point(x, y).tap() }
    }

    public func longPress(x: Double, y: Double, seconds: Double) throws {
        MainActor.assumeIsolated { point(x, y).press(forDuration: seconds) }
    }

    public func drag(_ plan: DragPlan) throws {
        MainActor.assumeIsolated {
            point(plan.fromX, plan.fromY).press(forDuration: plan.pressSeconds, thenDragTo: point(plan.toX, plan.toY),
                                                withVelocity: XCUIGestureVelocity(CGFloat(plan.pixelsPerSecond)),
                                                thenHoldForDuration: plan.holdSeconds)
        }
    }

    public func typeText(_ text: String) throws {
        MainActor.assumeIsolated { XCUIApplication(bundleIdentifier: inputBundle).typeText(text) }
    }

    /// XCUIElement's own two-finger gestures on the element the core picked: the one with the
    /// plan's identifier in the plan's app (the first match; the core picks only identifiers
    /// unique in the capture), else the app element itself.
    public func multiTouch(_ plan: MultiTouchPlan) throws -> Outcome {
        MainActor.assumeIsolated {
            let app = XCUIApplication(bundleIdentifier: plan.bundleId ?? inputBundle)
            let target: XCUIElement
            if let id = plan.identifier {
                target = app.descendants(matching: .any).matching(identifier: id).firstMatch
                // Gone since the capture: XCTest would fail the gesture; say so, never "done".
                guard target.exists else { return Outcome.notFound("the element \(id) is gone; find it again") }
            } else {
                target = app
            }
            switch plan.gesture {
            case .pinch(let scale, let velocity):
                target.pinch(withScale: CGFloat(scale), velocity: CGFloat(velocity))
            case .twoFingerTap:
                target.twoFingerTap()
            }
            return Outcome.success
        }
    }

    public func doubleTap(x: Double, y: Double) throws {
        MainActor.assumeIsolated { point(x, y).doubleTap() }
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
            XCUIApplication(bundleIdentifier: inputBundle).typeText(text)
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
            remember(id)
            return .success
        case .closeUI:
            XCUIDevice.shared.press(.home)
            return .success
        case .deepLink:
            guard let text = url, let link = URL(string: text) else { return .fail(.badCommand, "APP_DEEP_LINK needs a uri") }
            guard let id = bundleId ?? candidates.first else { return .fail(.badCommand, "APP_DEEP_LINK needs an appId on iOS") }
            if #available(iOS 16.4, *) {
                XCUIApplication(bundleIdentifier: id).open(link)
                remember(id)
                return .success
            }
            return .unsupported("opening a link needs iOS 16.4 or later")
        }
    }

    /// An app the hub opened becomes a candidate (first: preferred while in front).
    private func remember(_ id: String) {
        candidates.removeAll { $0 == id }
        candidates.insert(id, at: 0)
        if candidates.count > 16 { candidates.removeLast(candidates.count - 16) }
    }

    public func screenshotPNG() throws -> [UInt8] {
        MainActor.assumeIsolated { [UInt8](XCUIScreen.main.screenshot().pngRepresentation) }
    }

    public func setChangeListener(_ listener: (@Sendable () -> Void)?) {}

    public func health() -> String? { nil }
}
