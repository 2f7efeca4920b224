import Foundation

/// What a `multi_touch` command asks XCUITest to do (pure): XCUITest pinches and two-finger
/// taps an *element* (`XCUIElement.pinch(withScale:velocity:)`, `twoFingerTap()`, at the
/// element's centre), not a point, so the core picks the element from a capture. The target is
/// the smallest element whose bounds contain the command's centre and whose identifier is
/// unique in the capture (so the layer's identifier query finds that element and no other);
/// without one, the foreground application itself.
///
/// Velocity is in scale factor per second, as XCUITest takes it: positive when the pinch opens
/// (scale > 1, zoom in), negative when it closes (scale < 1, zoom out); its size is the scale
/// change over the command's duration (`defaultSeconds` when it gives none), at least
/// `minSpeed` so a tiny change still moves.
public struct MultiTouchPlan: Equatable, Sendable {
    public enum Gesture: Equatable, Sendable {
        case pinch(scale: Double, velocity: Double)
        case twoFingerTap
    }

    public var gesture: Gesture
    /// The application the element is in (the capture's foreground package); nil when unknown.
    public var bundleId: String?
    /// The target's accessibility identifier, or nil for the application element itself.
    public var identifier: String?

    public static let defaultSeconds = 0.5
    public static let minSpeed = 0.5

    public init(gesture: Gesture, bundleId: String?, identifier: String?) {
        self.gesture = gesture
        self.bundleId = bundleId
        self.identifier = identifier
    }

    /// The plan of `kind` (`pinch` or `two_finger_tap`) around `center` (pixels, as the tree's
    /// bounds) on capture `tree`. The caller runs it on the UI thread and reports its outcome.
    public static func plan(_ tree: RawTree, kind: String, center: Point, scale: Double, durationMs: Int)
        -> MultiTouchPlan
    {
        let gesture: Gesture = kind == "pinch"
            ? .pinch(scale: scale, velocity: velocity(scale: scale, durationMs: durationMs))
            : .twoFingerTap
        return MultiTouchPlan(gesture: gesture, bundleId: tree.package, identifier: target(tree, center))
    }

    /// Why a multi-touch command has no element to act on.
    public struct NoTarget: Error, Equatable { public let message: String }

    /// Like `plan`, but refused when no element under `center` can be named and `center` is
    /// not the application's own centre: XCUITest pinches an element at its centre, so acting
    /// on the application would move the gesture elsewhere and report success for it (issue 34).
    public static func planned(_ tree: RawTree, kind: String, center: Point, scale: Double, durationMs: Int)
        -> Result<MultiTouchPlan, NoTarget>
    {
        let p = plan(tree, kind: kind, center: center, scale: scale, durationMs: durationMs)
        if p.identifier != nil { return .success(p) }
        if let b = tree.nodes.first?.bounds {
            let cx = (b.left + b.right) / 2, cy = (b.top + b.bottom) / 2
            let tolerance = max(8, (b.right - b.left) / 20)
            if abs(center.x - cx) <= tolerance && abs(center.y - cy) <= tolerance { return .success(p) }
        }
        return .failure(NoTarget(message: "no element with a unique identifier is under (\(center.x), \(center.y)); XCUITest pinches an element at its centre, so the gesture would land elsewhere; recovery: aim at an element with an accessibility identifier, or at the screen's centre"))
    }

    /// Signed scale factor per second: > 0 opens (zoom in), < 0 closes (zoom out).
    public static func velocity(scale: Double, durationMs: Int) -> Double {
        let seconds = durationMs > 0 ? Double(durationMs) / 1000 : defaultSeconds
        let speed = max(abs(scale - 1) / seconds, minSpeed)
        return scale >= 1 ? speed : -speed
    }

    /// The identifier of the smallest element under `center` whose identifier is unique.
    public static func target(_ tree: RawTree, _ center: Point) -> String? {
        var counts: [String: Int] = [:]
        for n in tree.nodes {
            if let id = n.automationId, !id.isEmpty { counts[id, default: 0] += 1 }
        }
        var best: (area: Int, id: String)?
        for n in tree.nodes {
            guard let id = n.automationId, counts[id] == 1, let b = n.bounds, n.visible else { continue }
            guard center.x >= b.left, center.x < b.right, center.y >= b.top, center.y < b.bottom else { continue }
            let area = (b.right - b.left) * (b.bottom - b.top)
            if area > 0, best == nil || area < best!.area { best = (area, id) }
        }
        return best?.id
    }
}
