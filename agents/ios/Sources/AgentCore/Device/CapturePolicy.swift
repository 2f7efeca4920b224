import Foundation

/// The screen as the device layer reads it on every call: pixels per point and the rotation of
/// the interface (0, 90, 180, 270 degrees, as the agent link's `rotation`).
public struct ScreenGeometry: Equatable, Sendable {
    public var scale: Double
    public var rotation: Int
    /// Pixels per point of the screen as rendered (`UIScreen.nativeScale`): differs from
    /// `scale` on Plus models (2.608 for 3) and with Display Zoom; nil when unknown.
    public var nativeScale: Double?
    /// The screen's width in points as the interface is turned; nil when unknown.
    public var widthPoints: Double?

    public init(scale: Double, rotation: Int = 0, nativeScale: Double? = nil, widthPoints: Double? = nil) {
        self.scale = scale
        self.rotation = rotation
        self.nativeScale = nativeScale
        self.widthPoints = widthPoints
    }
}

/// The pixel ratio the hub's coordinates use: the screenshot's (pixels of a screenshot over
/// the screen's width in points) once one was measured for this width and rotation, else the
/// native scale, else the nominal scale. `UIScreen.scale` alone is wrong on Plus models and
/// with Display Zoom (issue 34), where screenshots are 1080 pixels for 414 points.
public struct PixelRatio: Equatable, Sendable {
    private var measured: [String: Double] = [:]

    public init() {}

    private static func key(_ g: ScreenGeometry) -> String? {
        guard let w = g.widthPoints, w > 0 else { return nil }
        return "\(Int(w.rounded()))@\(g.rotation)"
    }

    /// Remembers the ratio of a screenshot `pixelWidth` wide taken at geometry `g` (at most 8
    /// geometries; a ratio outside 1...4 is ignored).
    public mutating func measured(pixelWidth: Int, at g: ScreenGeometry) {
        guard let k = Self.key(g), let w = g.widthPoints else { return }
        let r = Double(pixelWidth) / w
        guard r >= 1, r <= 4 else { return }
        if measured.count >= 8 && measured[k] == nil { measured.removeAll() }
        measured[k] = r
    }

    public func ratio(_ g: ScreenGeometry) -> Double {
        if let k = Self.key(g), let r = measured[k] { return r }
        if let n = g.nativeScale, n > 0 { return n }
        return g.scale
    }
}

/// One application the device layer can see. `atProbePoint` is true for the application that
/// owns the element at the active-app detection point, when the layer could ask (nil: unknown).
public struct RunningApp: Equatable, Sendable {
    public var bundleId: String
    public var foreground: Bool
    public var atProbePoint: Bool?

    public init(bundleId: String, foreground: Bool, atProbePoint: Bool? = nil) {
        self.bundleId = bundleId
        self.foreground = foreground
        self.atProbePoint = atProbePoint
    }
}

/// Limits XCTest applies while it takes one snapshot (its snapshot parameters `maxDepth` and
/// the accessibility timeout, where the layer can set them; see docs/ios.md).
public struct SnapshotLimits: Equatable, Sendable {
    public var maxDepth: Int
    public var timeoutMs: Int

    public init(maxDepth: Int, timeoutMs: Int) {
        self.maxDepth = maxDepth
        self.timeoutMs = timeoutMs
    }
}

/// How long an input call may wait for the application to go idle before it acts.
public enum Quiescence: Equatable, Sendable {
    /// Act at once (no idle wait).
    case skip
    /// Wait for idle at most this long, then act anyway.
    case bounded(ms: Int)
}

/// Which idle wait each kind of command gets: bounded always (an animated screen never goes
/// idle; the hub's own settle detection decides when a screen is stable), off for typing and
/// gestures, and switchable per command kind. Every value is capped at `maxMs`.
public struct QuiescencePolicy: Equatable, Sendable {
    public static let maxMs = 5000
    public var nodeActionMs: Int
    public var gestureMs: Int
    public var typingMs: Int
    public var appMs: Int

    public init(nodeActionMs: Int = 1000, gestureMs: Int = 0, typingMs: Int = 0, appMs: Int = 2000) {
        self.nodeActionMs = nodeActionMs
        self.gestureMs = gestureMs
        self.typingMs = typingMs
        self.appMs = appMs
    }

    public enum Kind: Sendable { case nodeAction, gesture, typing, app }

    public func wait(for kind: Kind) -> Quiescence {
        let ms: Int
        switch kind {
        case .nodeAction: ms = nodeActionMs
        case .gesture: ms = gestureMs
        case .typing: ms = typingMs
        case .app: ms = appMs
        }
        return ms <= 0 ? .skip : .bounded(ms: min(ms, Self.maxMs))
    }

    /// Every wait set to `ms` (0 turns them all off), e.g. from `MOBRIDGE_QUIESCENCE_MS`.
    public static func uniform(_ ms: Int) -> QuiescencePolicy {
        let v = max(0, min(ms, maxMs))
        return QuiescencePolicy(nodeActionMs: v, gestureMs: v, typingMs: v, appMs: v)
    }
}

/// A drag as XCTest's `press(forDuration:thenDragTo:withVelocity:thenHoldForDuration:)` takes
/// it: points, a short press, a velocity in pixels per second and a final hold.
public struct DragPlan: Equatable, Sendable {
    public var fromX: Double
    public var fromY: Double
    public var toX: Double
    public var toY: Double
    public var pressSeconds: Double
    public var pixelsPerSecond: Double
    public var holdSeconds: Double

    /// The initial press: long enough to start a drag, far under the 0.5 s that opens context
    /// menus.
    public static let pressSeconds = 0.05
    public static let minPixelsPerSecond = 200.0
    public static let maxPixelsPerSecond = 20_000.0

    public init(fromX: Double, fromY: Double, toX: Double, toY: Double, pressSeconds: Double,
                pixelsPerSecond: Double, holdSeconds: Double) {
        self.fromX = fromX
        self.fromY = fromY
        self.toX = toX
        self.toY = toY
        self.pressSeconds = pressSeconds
        self.pixelsPerSecond = pixelsPerSecond
        self.holdSeconds = holdSeconds
    }

    /// The drag from one point to another (points) that takes about `seconds` to move at `scale`
    /// pixels per point: the velocity is the distance over the time, clamped, never a hold.
    public static func between(fromX: Double, fromY: Double, toX: Double, toY: Double, seconds: Double,
                               scale: Double) -> DragPlan {
        let distancePx = ((toX - fromX) * (toX - fromX) + (toY - fromY) * (toY - fromY)).squareRoot() * max(scale, 0.1)
        let t = max(0.05, min(seconds.isFinite ? seconds : 0.3, 10))
        let v = max(minPixelsPerSecond, min(maxPixelsPerSecond, distancePx / t))
        return DragPlan(fromX: fromX, fromY: fromY, toX: toX, toY: toY, pressSeconds: pressSeconds,
                        pixelsPerSecond: v, holdSeconds: 0)
    }
}

/// The depth ladder of a capture: XCTest fails a snapshot of a deep tree (above about 62
/// levels) or one that overruns its timeout, so the snapshot is limited while it is taken and,
/// when it still fails, taken again shallower. A capture that needed a fallback, or whose
/// deepest elements sit at the limit, says why in `RawTree.truncated` (`SnapshotConverter`); it
/// never fails while a shallower rung works.
public struct SnapshotLadder: Equatable, Sendable {
    public var depths: [Int]
    public var timeoutMs: Int

    /// WebDriverAgent's default depth (50), then shallower rungs.
    public init(depths: [Int] = [50, 25, 10], timeoutMs: Int = 10_000) {
        self.depths = depths.isEmpty ? [50] : depths
        self.timeoutMs = timeoutMs
    }

    public struct Taken {
        public var tree: ElementSnapshot
        public var limits: SnapshotLimits
        /// How many rungs failed before this one.
        public var fallbacks: Int
        public var errors: [String]
    }

    /// The first rung that works; rethrows the last rung's error when none does.
    public func take(_ snapshot: (SnapshotLimits) throws -> ElementSnapshot) throws -> Taken {
        var errors: [String] = []
        var last: Error?
        for (i, d) in depths.enumerated() {
            let limits = SnapshotLimits(maxDepth: d, timeoutMs: timeoutMs)
            do {
                return Taken(tree: try snapshot(limits), limits: limits, fallbacks: i, errors: errors)
            } catch {
                errors.append("depth \(d): \(describe(error))")
                last = error
            }
        }
        throw last ?? JsonError("no snapshot")
    }
}

/// Which application is in front, from what the device layer reports (WebDriverAgent's
/// active-application detection, decided here): the foreground application that owns the
/// element at the detection point when the layer knows it; else, among foreground applications
/// other than SpringBoard, the one the hub opened last, then the app under test, then the first;
/// else SpringBoard (the home screen).
public enum ForegroundPicker {
    public static let springboard = "com.apple.springboard"

    public static func pick(_ apps: [RunningApp], preferred: [String]) -> String {
        let front = apps.filter { $0.foreground }
        if let probed = front.first(where: { $0.atProbePoint == true }) { return probed.bundleId }
        let candidates = front.filter { $0.bundleId != springboard }
        for want in preferred where candidates.contains(where: { $0.bundleId == want }) { return want }
        return candidates.first?.bundleId ?? springboard
    }
}

/// SpringBoard's windows that hold a system alert (permission prompts live there): from one
/// SpringBoard snapshot, the application element with only those windows, or nil when none.
public enum SystemAlerts {
    static let alertTypes: Set<ElementType> = [.alert, .sheet]

    public static func windows(in springboard: ElementSnapshot) -> ElementSnapshot? {
        func holdsAlert(_ e: ElementSnapshot) -> Bool {
            if let t = e.type, alertTypes.contains(t) { return true }
            return e.children.contains(where: holdsAlert)
        }
        let kept = springboard.children.filter(holdsAlert)
        if kept.isEmpty { return nil }
        var root = springboard
        root.children = kept
        return root
    }
}

/// Builds one capture from the primitives: geometry read fresh, the front application picked
/// from the running ones, one depth-limited snapshot of it (with the shallower fallback), and —
/// when another app is in front of SpringBoard — one of SpringBoard, kept only for the windows
/// that hold a system alert.
public struct CaptureAssembler: Sendable {
    public var ladder = SnapshotLadder()
    /// SpringBoard is read for alerts only: a shallower limit, no fallback past it.
    public var alertLadder = SnapshotLadder(depths: [20, 10], timeoutMs: 3000)

    public init() {}

    /// `front`: the application already picked in front for this command (no app-state query
    /// again); nil picks it from `runningApps`. SpringBoard is read only when the layer says an
    /// alert is up, or cannot tell.
    public func capture(_ p: DevicePrimitives, preferred: [String], front pinned: String? = nil,
                        ratio: PixelRatio = PixelRatio()) throws -> ScreenCapture {
        let geometry = try p.screen()
        let front = try pinned ?? ForegroundPicker.pick(try p.runningApps(), preferred: preferred)
        let taken = try ladder.take { try p.snapshot(of: front, limits: $0) }
        var root = CapturedRoot(bundleId: front, system: front == ForegroundPicker.springboard, tree: taken.tree)
        root.depthLimit = taken.limits.maxDepth
        root.fellBack = taken.fallbacks > 0
        if root.fellBack { root.failedDepth = ladder.depths.first }
        var roots = [root]
        if front != ForegroundPicker.springboard, p.systemAlertShown() != false,
           let sb = try? alertLadder.take({ try p.snapshot(of: ForegroundPicker.springboard, limits: $0) }),
           let alerts = SystemAlerts.windows(in: sb.tree) {
            var r = CapturedRoot(bundleId: ForegroundPicker.springboard, system: true, tree: alerts)
            r.depthLimit = sb.limits.maxDepth
            roots.append(r)
        }
        var capture = ScreenCapture(scale: ratio.ratio(geometry), roots: roots)
        capture.rotation = geometry.rotation
        capture.warnings = p.captureWarnings()
        return capture
    }
}
