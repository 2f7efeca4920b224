/// The few things a platform must do for the agent, at XCUITest's level: the screen's geometry,
/// the running applications, one depth-limited snapshot of one application, coordinate input,
/// typing, the home button, apps by bundle id and screenshots. The XCUITest layer implements
/// them on a device or Simulator as thin calls into XCTest; host mode over its scripted screens.
/// Every decision above them (which app is in front, snapshot depth and the shallower fallback,
/// the scale per capture, hit tests and scrolling into view, drag velocity, quiescence bounds,
/// keyboard focus and clearing, deadlines) is made by the core (`CaptureAssembler`,
/// `Reachability`, `NodeActionRunner`, `PrimitiveBackend`) and tested here.
///
/// Contract: called on the UI (main) thread only, one call at a time, except `deviceInfo`,
/// `capabilities` and `setChangeListener`; coordinates are in points; an error thrown means the
/// platform call failed (reported FAILED, or tried again shallower for a snapshot), expected
/// refusals are `Outcome`s.
public protocol DevicePrimitives: AnyObject, Sendable {
    var deviceInfo: DeviceInfo { get }
    var capabilities: [String] { get }
    /// The screen's scale and rotation, read fresh on every call (never cached by the layer:
    /// both change with rotation, split view or an external display).
    func screen() throws -> ScreenGeometry
    /// The applications the layer can see and whether each is in the foreground.
    func runningApps() throws -> [RunningApp]
    /// One snapshot of application `bundleId`, limited to `limits` *while it is taken* (an
    /// element at depth `limits.maxDepth` comes without children). Throws when XCTest fails it
    /// (too deep, timed out); the core then asks again shallower.
    func snapshot(of bundleId: String, limits: SnapshotLimits) throws -> ElementSnapshot
    /// How long the next input calls may wait for the app to go idle (XCTest's quiescence).
    func setQuiescence(_ wait: Quiescence)
    func tap(x: Double, y: Double) throws
    func longPress(x: Double, y: Double, seconds: Double) throws
    /// A drag with velocity: a short press (well under a long-press), a move at
    /// `plan.pixelsPerSecond`, a hold of `plan.holdSeconds`.
    func drag(_ plan: DragPlan) throws
    /// Types into the element that has keyboard focus; `KeyText.delete` deletes one character.
    func typeText(_ text: String) throws
    func typeKey(_ key: KeyName) throws
    func pressHome() throws
    func app(_ action: AppAction, bundleId: String?, url: String?) throws -> Outcome
    func screenshotPNG() throws -> [UInt8]
    /// Host mode raises change events when its scripted app changes; XCUITest has none.
    func setChangeListener(_ listener: (@Sendable () -> Void)?)
    func health() -> String?
    /// What the layer could not do as intended while capturing, as short sentences (e.g. a
    /// private XCTest entry point missing, so the public fallback was used); sent with each
    /// capture as `RawTree.warnings`. Never screen texts. Empty when all went as intended.
    func captureWarnings() -> [String]
    /// Two taps as one double tap (XCUICoordinate.doubleTap).
    func doubleTap(x: Double, y: Double) throws
    /// A hardware button other than home (volume); a platform without it says so.
    func pressButton(_ button: DeviceButton) throws -> Outcome
    /// Optional device control, each announced as a capability when implemented.
    func terminate(bundleId: String) throws -> Outcome
    func setOrientation(_ orientation: Orientation) throws -> Outcome
    func installedApps() throws -> Outcome
    func install(path: String, sha256: String?) throws -> Outcome
    func uninstall(bundleId: String) throws -> Outcome
    /// A pinch or two-finger tap on the element `plan` names (XCUIElement's own gestures);
    /// announced as the capability `multi_touch` when implemented.
    func multiTouch(_ plan: MultiTouchPlan) throws -> Outcome
    /// The application input goes to (coordinates, typing, keys): the one the core found in
    /// front. Called before every input, so a backgrounded app never receives it.
    func setInputApp(_ bundleId: String)
    /// Whether SpringBoard shows an alert now, from one cheap query (no snapshot); nil when the
    /// layer cannot tell (the core then reads SpringBoard's snapshot, as before).
    func systemAlertShown() -> Bool?
    /// The general pasteboard: read (`set` nil) or replaced; announced as `clipboard`.
    func pasteboard(set: String?) throws -> Outcome
}

extension DevicePrimitives {
    public func setQuiescence(_ wait: Quiescence) {}
    public func setInputApp(_ bundleId: String) {}
    public func systemAlertShown() -> Bool? { nil }
    public func pasteboard(set: String?) throws -> Outcome { .unsupported("this agent does not read or set the pasteboard") }
    public func captureWarnings() -> [String] { [] }
    public func doubleTap(x: Double, y: Double) throws {
        try tap(x: x, y: y)
        try tap(x: x, y: y)
    }
    public func pressButton(_ button: DeviceButton) throws -> Outcome { .unsupported("no \(button.rawValue) button here") }
    public func terminate(bundleId: String) throws -> Outcome { .unsupported("this device cannot stop apps") }
    public func setOrientation(_ orientation: Orientation) throws -> Outcome { .unsupported("this device cannot turn its screen") }
    public func installedApps() throws -> Outcome { .unsupported("XCUITest cannot list installed apps") }
    public func install(path: String, sha256: String?) throws -> Outcome { .unsupported("XCUITest cannot install apps") }
    public func uninstall(bundleId: String) throws -> Outcome { .unsupported("XCUITest cannot uninstall apps") }
    public func multiTouch(_ plan: MultiTouchPlan) throws -> Outcome {
        .unsupported("this agent cannot inject several fingers at once")
    }
}

public enum KeyName: String, Sendable {
    case enter, delete, tab, space, escape, forwardDelete
}

public enum DeviceButton: String, Sendable {
    case volumeUp, volumeDown
}

/// Characters XCUITest's `typeText` treats as keys (`XCUIKeyboardKey` raw values).
public enum KeyText {
    public static let delete = "\u{8}"
    public static let enter = "\n"
    public static let tab = "\t"
    public static let escape = "\u{1B}"
    public static let forwardDelete = "\u{7F}"
}

/// How fast text is typed: the first character alone, a pause (XCUITest drops the characters
/// right after the first one when typing fast into a field that just got focus), then chunks
/// with pauses so the average stays at or under `charsPerSecond`. 0 types everything at once.
public struct TypingPace: Equatable, Sendable {
    public var charsPerSecond: Double
    public var firstPauseMs: Int
    public var chunk: Int

    public init(charsPerSecond: Double, firstPauseMs: Int, chunk: Int) {
        self.charsPerSecond = charsPerSecond
        self.firstPauseMs = firstPauseMs
        self.chunk = max(1, chunk)
    }

    /// The device default: 40 characters a second in chunks of 8, 300 ms after the first.
    public static let device = TypingPace(charsPerSecond: 40, firstPauseMs: 300, chunk: 8)
    public static let unpaced = TypingPace(charsPerSecond: 0, firstPauseMs: 0, chunk: 1)

    /// The text cut into (chunk, pause after it in ms); concatenated, the chunks are the text.
    public func plan(_ text: String) -> [(String, Int)] {
        if text.isEmpty { return [] }
        if charsPerSecond <= 0 { return [(text, 0)] }
        let chars = Array(text)
        var out: [(String, Int)] = [(String(chars[0]), chars.count > 1 ? firstPauseMs : 0)]
        var i = 1
        while i < chars.count {
            let n = min(chunk, chars.count - i)
            let last = i + n >= chars.count
            out.append((String(chars[i..<i + n]), last ? 0 : Int((Double(n) * 1000 / charsPerSecond).rounded(.up))))
            i += n
        }
        return out
    }

    /// How long typing `text` pauses in total (deadlines add it).
    public func pauseMs(_ text: String) -> Int { plan(text).reduce(0) { $0 + $1.1 } }
}

/// Width and height of a PNG from its IHDR chunk, without decoding it (the device layer learns
/// the screen scale from a screenshot's pixel width and the application frame in points).
public enum PNGInfo {
    public static func size(_ png: [UInt8]) -> (width: Int, height: Int)? {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard png.count >= 24, Array(png[0..<8]) == signature, Array(png[12..<16]) == Array("IHDR".utf8) else {
            return nil
        }
        func be(_ i: Int) -> Int { Int(png[i]) << 24 | Int(png[i + 1]) << 16 | Int(png[i + 2]) << 8 | Int(png[i + 3]) }
        return (be(16), be(20))
    }
}
