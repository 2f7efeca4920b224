/// One element of a UI snapshot, as XCUITest's `XCUIElementSnapshot` reports it: the device
/// layer copies one `snapshot()` of the foreground application into these values in a single
/// walk; host mode builds them from its scripted screens. Frames are in points.
///
/// `hittable` is set only where the device layer asked XCUITest (screen markers
/// `__screen_<id>`); every other element leaves it nil, because a per-element `isHittable`
/// costs an accessibility round trip per node.
public struct ElementSnapshot: Equatable, Sendable {
    public var elementType: UInt
    public var identifier: String
    public var label: String
    /// XCUITest's `value`, as text (numbers and booleans as XCUITest prints them); for an empty
    /// text field XCUITest reports the placeholder here.
    public var value: String?
    public var title: String
    public var placeholder: String?
    public var frame: Rect
    public var enabled: Bool
    public var selected: Bool
    public var hasFocus: Bool
    /// XCTest's `hasKeyboardFocus` (read at run time where the snapshot has it; nil when the
    /// layer could not read it). On iPhone `hasFocus` is not keyboard focus: this is.
    public var hasKeyboardFocus: Bool?
    public var hittable: Bool?
    public var children: [ElementSnapshot]

    public init(type: ElementType, identifier: String = "", label: String = "", value: String? = nil,
                title: String = "", placeholder: String? = nil, frame: Rect, enabled: Bool = true,
                selected: Bool = false, hasFocus: Bool = false, hasKeyboardFocus: Bool? = nil,
                children: [ElementSnapshot] = []) {
        self.init(elementType: type.rawValue, identifier: identifier, label: label, value: value, title: title,
                  placeholder: placeholder, frame: frame, enabled: enabled, selected: selected,
                  hasFocus: hasFocus, children: children)
        self.hasKeyboardFocus = hasKeyboardFocus
    }

    public init(elementType: UInt, identifier: String, label: String, value: String?, title: String,
                placeholder: String?, frame: Rect, enabled: Bool, selected: Bool, hasFocus: Bool,
                children: [ElementSnapshot]) {
        self.elementType = elementType
        self.identifier = identifier
        self.label = label
        self.value = value
        self.title = title
        self.placeholder = placeholder
        self.frame = frame
        self.enabled = enabled
        self.selected = selected
        self.hasFocus = hasFocus
        self.children = children
    }

    public var type: ElementType? { ElementType(rawValue: elementType) }
}

/// A rectangle in points (XCUITest's `CGRect`, without CoreGraphics).
public struct Rect: Equatable, Sendable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(_ x: Double, _ y: Double, _ width: Double, _ height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var midX: Double { x + width / 2 }
    public var midY: Double { y + height / 2 }
    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
    public var hasArea: Bool { width > 0 && height > 0 }

    /// The overlap of two rectangles (zero-sized at the origin when they do not overlap).
    public func intersection(_ o: Rect) -> Rect {
        let l = max(x, o.x), t = max(y, o.y), r = min(maxX, o.maxX), b = min(maxY, o.maxY)
        return r > l && b > t ? Rect(l, t, r - l, b - t) : Rect(0, 0, 0, 0)
    }

    public func contains(x px: Double, y py: Double) -> Bool {
        px >= x && py >= y && px < x + width && py < y + height
    }

    /// `[left, top, right, bottom]` in pixels at `scale`, rounded to the nearest pixel.
    public func pixels(_ scale: Double) -> Bounds {
        func px(_ v: Double) -> Int {
            let p = (v * scale).rounded()
            if !p.isFinite { return 0 }
            return Int(max(-1e9, min(1e9, p)))
        }
        return Bounds(px(x), px(y), px(x + width), px(y + height))
    }
}

/// One root of a capture: the foreground application, or SpringBoard while it shows a system
/// alert (then it comes after the application, as the window above it).
public struct CapturedRoot: Equatable, Sendable {
    public var bundleId: String
    public var system: Bool
    public var tree: ElementSnapshot
    /// The depth the snapshot was limited to while it was taken (elements at that depth came
    /// without children: the capture says `truncated`); nil when not limited.
    public var depthLimit: Int?
    /// A deeper snapshot failed and this one is a shallower fallback (the capture says
    /// `truncated`).
    public var fellBack = false
    /// The depth of the first snapshot asked for, when this one is a fallback.
    public var failedDepth: Int?

    public init(bundleId: String, system: Bool, tree: ElementSnapshot) {
        self.bundleId = bundleId
        self.system = system
        self.tree = tree
    }
}

/// Everything one capture needs from the device layer.
public struct ScreenCapture: Equatable, Sendable {
    /// Pixels per point.
    public var scale: Double
    /// The interface rotation in degrees (0, 90, 180, 270).
    public var rotation = 0
    public var roots: [CapturedRoot]
    /// The device layer's capture warnings (`DevicePrimitives.captureWarnings`).
    public var warnings: [String] = []

    public init(scale: Double, roots: [CapturedRoot]) {
        self.scale = scale
        self.roots = roots
    }
}
