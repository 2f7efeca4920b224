// Compile-only declarations of exactly the XCTest / XCUITest API that agents/ios/Sources/BridgeRunner
// uses, with the signatures of Apple's SDK (Swift names of XCTest.framework), so the runner
// compiles on a machine without Xcode: a misspelt member or a wrong signature fails the build.
// Every body traps; nothing here ever runs, and nothing here is part of the iOS runner (the
// Xcode project compiles BridgeRunner against the real XCTest). The UI classes are declared
// @MainActor as in Xcode 16's SDK, so the runner is checked to call them on the main actor.
//
// `agents/ios/tools/stub_surface.py` (run by scripts/check) lists this surface and fails when
// the runner uses an XC* type declared nowhere here, when a member here is used nowhere, or
// when a member's declaration or availability differs from the official API listing kept in
// agents/ios/tools/xctest-api (or the runner uses one newer than iOS 16 without #available).
import Foundation

private func stub(_ name: String = #function) -> Never {
    fatalError("XCUITest stub \(name): only the iOS SDK implements it")
}

// MARK: - CoreGraphics (Foundation on Linux has CGRect, CGPoint, CGSize and CGFloat)

public struct CGVector: Sendable {
    public init(dx: CGFloat, dy: CGFloat) { stub() }
}

// MARK: - XCTest

public struct XCTIssue {
    public var compactDescription: String { stub() }
}

open class XCTestCase {
    open func setUp() { stub() }
    open var continueAfterFailure: Bool {
        get { stub() }
        set { stub() }
    }
    open func record(_ issue: XCTIssue) { stub() }
}

// MARK: - XCUIElement and its snapshot

@MainActor
public protocol XCUIElementAttributes {
    var identifier: String { get }
    var frame: CGRect { get }
    var value: Any? { get }
    var title: String { get }
    var label: String { get }
    var elementType: XCUIElement.ElementType { get }
    var isEnabled: Bool { get }
    var placeholderValue: String? { get }
    var isSelected: Bool { get }
    var hasFocus: Bool { get }
}

@MainActor
public protocol XCUIElementSnapshot: XCUIElementAttributes {
    var children: [XCUIElementSnapshot] { get }
}

@MainActor
open class XCUIElement {
    public enum ElementType: UInt, Sendable {
        case any = 0
        case alert = 7
    }

    public var exists: Bool { stub() }

    public func snapshot() throws -> XCUIElementSnapshot { stub() }
    public func coordinate(withNormalizedOffset normalizedOffset: CGVector) -> XCUICoordinate { stub() }
    public func typeText(_ text: String) { stub() }
    public func descendants(matching type: XCUIElement.ElementType) -> XCUIElementQuery { stub() }
    public func pinch(withScale scale: CGFloat, velocity: CGFloat) { stub() }
    public func twoFingerTap() { stub() }
}

@MainActor
open class XCUIElementQuery {
    public func matching(identifier: String) -> XCUIElementQuery { stub() }
    public var firstMatch: XCUIElement { stub() }
}

// MARK: - XCUIApplication

@MainActor
open class XCUIApplication: XCUIElement {
    public enum State: UInt, Sendable {
        case runningForeground = 4
    }

    public init(bundleIdentifier: String) { stub() }
    public var state: XCUIApplication.State { stub() }
    public func activate() { stub() }
    public func terminate() { stub() }
    @available(iOS 16.4, *)
    public func open(_ url: URL) { stub() }
}

// MARK: - Input, device, screen

@MainActor
open class XCUICoordinate {
    public func withOffset(_ offsetVector: CGVector) -> XCUICoordinate { stub() }
    public func tap() { stub() }
    public func doubleTap() { stub() }
    public func press(forDuration duration: TimeInterval) { stub() }
    public func press(forDuration duration: TimeInterval, thenDragTo otherCoordinate: XCUICoordinate,
                      withVelocity velocity: XCUIGestureVelocity, thenHoldForDuration holdDuration: TimeInterval) { stub() }
}

/// Pixels per second (`typedef CGFloat XCUIGestureVelocity NS_TYPED_EXTENSIBLE_ENUM`).
public struct XCUIGestureVelocity: Hashable, Sendable {
    public init(_ rawValue: CGFloat) { stub() }
}

public struct XCUIKeyboardKey: Hashable, Sendable {
    public var rawValue: String { stub() }
    public static var delete: XCUIKeyboardKey { stub() }
    public static var `return`: XCUIKeyboardKey { stub() }
    public static var tab: XCUIKeyboardKey { stub() }
    public static var space: XCUIKeyboardKey { stub() }
    public static var escape: XCUIKeyboardKey { stub() }
    public static var forwardDelete: XCUIKeyboardKey { stub() }
}

// UIKit's device orientation, as XCUIDevice.orientation takes it.
public enum UIDeviceOrientation: Int, Sendable {
    case portrait = 1
    case portraitUpsideDown = 2
    case landscapeLeft = 3
    case landscapeRight = 4
}

@MainActor
open class XCUIDevice {
    public enum Button: Int, Sendable {
        case home = 1
        case volumeUp = 2
        case volumeDown = 3
    }

    public class var shared: XCUIDevice { stub() }
    public var orientation: UIDeviceOrientation {
        get { stub() }
        set { stub() }
    }
    public func press(_ button: XCUIDevice.Button) { stub() }
}

@MainActor
open class XCUIScreen {
    public class var main: XCUIScreen { stub() }
    public func screenshot() -> XCUIScreenshot { stub() }
}

@MainActor
open class XCUIScreenshot {
    public var pngRepresentation: Data { stub() }
}
