/// The agent link's enumerations, spelled exactly as on the wire (bridge/wire/enums.py).

public enum Platform: String, Sendable, CaseIterable {
    case android = "ANDROID"
    case ios = "IOS"
}

public enum ActionVerb: String, Sendable, CaseIterable {
    case click = "CLICK"
    case longClick = "LONG_CLICK"
    case setText = "SET_TEXT"
    case clearText = "CLEAR_TEXT"
    case focus = "FOCUS"
    case scrollForward = "SCROLL_FORWARD"
    case scrollBackward = "SCROLL_BACKWARD"
    case select = "SELECT"
    case expand = "EXPAND"
    case collapse = "COLLAPSE"
    case dismiss = "DISMISS"
    case copy = "COPY"
    case paste = "PASTE"
}

public enum GlobalAction: String, Sendable, CaseIterable {
    case back = "BACK"
    case home = "HOME"
    case recents = "RECENTS"
    case notificationShade = "NOTIFICATION_SHADE"
}

public enum AppAction: String, Sendable, CaseIterable {
    case open = "APP_OPEN"
    case deepLink = "APP_DEEP_LINK"
    case bringToFront = "APP_BRING_TO_FRONT"
    case closeUI = "APP_CLOSE_UI"
}

/// The screen's orientation (`orientation` command).
public enum Orientation: String, Sendable, CaseIterable {
    case portrait
    case landscape
}

public enum ActionMethod: String, Sendable, CaseIterable {
    case accessibilityAction = "ACCESSIBILITY_ACTION"
    case ancestor = "ACCESSIBILITY_ACTION_ANCESTOR"
    case gestureFallback = "GESTURE_FALLBACK"
}

/// Failure codes of a `reply` (protocol/README.md §10).
public enum ReplyCode: String, Sendable, CaseIterable {
    case notFound = "NOT_FOUND"
    case identityMismatch = "IDENTITY_MISMATCH"
    case unsupported = "UNSUPPORTED"
    case failed = "FAILED"
    case secure = "SECURE"
    case badCommand = "BAD_COMMAND"
    /// The element is off screen or covered (keyboard, alert) and could not be scrolled into
    /// view; the message says what covers it and how to recover. Nothing was tapped.
    case notVisible = "NOT_VISIBLE"
}

/// `[left, top, right, bottom]` in device pixels.
public struct Bounds: Equatable, Hashable, Sendable {
    public var left: Int
    public var top: Int
    public var right: Int
    public var bottom: Int

    public init(_ left: Int, _ top: Int, _ right: Int, _ bottom: Int) {
        self.left = left
        self.top = top
        self.right = right
        self.bottom = bottom
    }

    public var json: Json { .array([.int(Int64(left)), .int(Int64(top)), .int(Int64(right)), .int(Int64(bottom))]) }

    public func contains(_ other: Bounds) -> Bool {
        left <= other.left && top <= other.top && right >= other.right && bottom >= other.bottom
    }
}

extension JsonFields {
    mutating func reqEnum<E: RawRepresentable>(_ key: String, _: E.Type) throws -> E where E.RawValue == String {
        let s = try reqString(key)
        guard let e = E(rawValue: s) else { throw JsonError("\(key): unknown value '\(s)'") }
        return e
    }

    mutating func optEnum<E: RawRepresentable>(_ key: String, _: E.Type) throws -> E? where E.RawValue == String {
        guard let s = try optString(key) else { return nil }
        guard let e = E(rawValue: s) else { throw JsonError("\(key): unknown value '\(s)'") }
        return e
    }
}

/// Caps shared with the hub (bridge/wire/raw.py): nodes per tree and characters per raw text.
public enum RawLimits {
    public static let maxRawNodes = 20_000
    public static let maxRawText = 8192

    /// At most `maxRawText` characters (Unicode scalars, as Python counts them).
    public static func clip(_ s: String?) -> String? {
        guard let s = s else { return nil }
        let scalars = s.unicodeScalars
        if scalars.count <= maxRawText { return s }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars.prefix(maxRawText))
        return String(out)
    }

    /// Capture health (`RawTree.truncated`, each of `warnings`): at most this many characters,
    /// at most `maxWarnings` warnings (bridge/wire/raw.py MAX_WARNING_TEXT / MAX_CAPTURE_WARNINGS).
    public static let maxWarningText = 300
    public static let maxWarnings = 8

    /// `s` cut to `maxWarningText` scalars (what the agent sends).
    public static func clipWarning(_ s: String) -> String {
        let scalars = s.unicodeScalars
        if scalars.count <= maxWarningText { return s }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars.prefix(maxWarningText))
        return String(out)
    }

    /// The warnings the agent sends: the first `maxWarnings`, each clipped.
    public static func clipWarnings(_ ws: [String]) -> [String] {
        ws.prefix(maxWarnings).map(clipWarning)
    }

    /// Decoding is as strict as the hub's: a longer text or more warnings is an error.
    static func checkWarning(_ s: String?, _ key: String) throws -> String? {
        if let s = s, s.unicodeScalars.count > maxWarningText {
            throw JsonError("\(key): longer than \(maxWarningText)")
        }
        return s
    }

    static func checkWarnings(_ ws: [String], _ key: String) throws -> [String] {
        if ws.count > maxWarnings { throw JsonError("\(key): more than \(maxWarnings)") }
        return try ws.enumerated().map { try checkWarning($1, "\(key)[\($0)]") ?? "" }
    }

    static func checkText(_ s: String?, _ key: String) throws -> String? {
        if let s = s, s.unicodeScalars.count > maxRawText {
            throw JsonError("\(key): longer than \(maxRawText)")
        }
        return s
    }
}
