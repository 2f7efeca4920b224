/// The raw tree of the agent link (bridge/wire/raw.py): what the agent saw, before any
/// normalization.
///
/// Invariants: `nodes` is in pre-order and `parent` is the index of an earlier node or -1;
/// `handle` is agent-local and valid only for commands naming this `capture`; encoding omits
/// every field at its default and never writes a password field's `text` or `value`; text
/// fields are clipped to `RawLimits.maxRawText` and at most `RawLimits.maxRawNodes` nodes are
/// encoded. Decoding is as strict as the hub's.

public struct RawNode: Equatable, Sendable {
    public var handle: Int
    public var parent: Int
    public var window = 0
    public var className: String?
    public var text: String?
    public var label: String?
    public var value: String?
    public var hint: String?
    public var automationId: String?
    public var package: String?
    public var bounds: Bounds?
    public var clickable = false
    public var longClickable = false
    public var checkable = false
    public var checked = false
    public var enabled = true
    public var focusable = false
    public var focused = false
    public var selected = false
    public var scrollable = false
    public var editable = false
    public var password = false
    public var visible = true
    public var hittable: Bool?
    public var heading = false
    public var actions: [String] = []
    public var traits: [String] = []
    public var collectionRows: Int?
    public var collectionCols: Int?
    public var itemRow: Int?
    public var itemCol: Int?
    public var rangeValue: Double?

    public init(handle: Int, parent: Int) {
        self.handle = handle
        self.parent = parent
    }

    public func toJson() -> Json {
        var o = JsonObject()
        o["handle"] = .int(Int64(handle))
        o["parent"] = .int(Int64(parent))
        if window != 0 { o["window"] = .int(Int64(window)) }
        o.put("className", RawLimits.clip(className).map(Json.string))
        if !password { o.put("text", RawLimits.clip(text).map(Json.string)) }
        o.put("label", RawLimits.clip(label).map(Json.string))
        if !password { o.put("value", RawLimits.clip(value).map(Json.string)) }
        o.put("hint", RawLimits.clip(hint).map(Json.string))
        o.put("automationId", RawLimits.clip(automationId).map(Json.string))
        o.put("package", RawLimits.clip(package).map(Json.string))
        o.put("bounds", bounds?.json)
        func flag(_ k: String, _ v: Bool, _ dflt: Bool) { if v != dflt { o[k] = .bool(v) } }
        flag("clickable", clickable, false)
        flag("longClickable", longClickable, false)
        flag("checkable", checkable, false)
        flag("checked", checked, false)
        flag("enabled", enabled, true)
        flag("focusable", focusable, false)
        flag("focused", focused, false)
        flag("selected", selected, false)
        flag("scrollable", scrollable, false)
        flag("editable", editable, false)
        flag("password", password, false)
        flag("visible", visible, true)
        o.put("hittable", hittable.map(Json.bool))
        flag("heading", heading, false)
        if !actions.isEmpty { o["actions"] = .array(actions.map(Json.string)) }
        if !traits.isEmpty { o["traits"] = .array(traits.map(Json.string)) }
        o.put("collectionRows", collectionRows.map { .int(Int64($0)) })
        o.put("collectionCols", collectionCols.map { .int(Int64($0)) })
        o.put("itemRow", itemRow.map { .int(Int64($0)) })
        o.put("itemCol", itemCol.map { .int(Int64($0)) })
        o.put("rangeValue", rangeValue.map(Json.double))
        return .object(o)
    }

    public static func fromJson(_ v: Json, _ at: String) throws -> RawNode {
        var f = try JsonFields(v, at)
        var n = RawNode(handle: try f.reqInt("handle"), parent: try f.reqInt("parent"))
        n.window = try f.optInt("window") ?? 0
        n.className = try RawLimits.checkText(f.optString("className"), "className")
        n.text = try RawLimits.checkText(f.optString("text"), "text")
        n.label = try RawLimits.checkText(f.optString("label"), "label")
        n.value = try RawLimits.checkText(f.optString("value"), "value")
        n.hint = try RawLimits.checkText(f.optString("hint"), "hint")
        n.automationId = try RawLimits.checkText(f.optString("automationId"), "automationId")
        n.package = try RawLimits.checkText(f.optString("package"), "package")
        n.bounds = try f.optBounds("bounds")
        n.clickable = try f.optBool("clickable", false)
        n.longClickable = try f.optBool("longClickable", false)
        n.checkable = try f.optBool("checkable", false)
        n.checked = try f.optBool("checked", false)
        n.enabled = try f.optBool("enabled", true)
        n.focusable = try f.optBool("focusable", false)
        n.focused = try f.optBool("focused", false)
        n.selected = try f.optBool("selected", false)
        n.scrollable = try f.optBool("scrollable", false)
        n.editable = try f.optBool("editable", false)
        n.password = try f.optBool("password", false)
        n.visible = try f.optBool("visible", true)
        n.hittable = try f.optBoolOrNil("hittable")
        n.heading = try f.optBool("heading", false)
        n.actions = try f.optStrings("actions")
        n.traits = try f.optStrings("traits")
        n.collectionRows = try f.optInt("collectionRows")
        n.collectionCols = try f.optInt("collectionCols")
        n.itemRow = try f.optInt("itemRow")
        n.itemCol = try f.optInt("itemCol")
        n.rangeValue = try f.optDouble("rangeValue")
        try f.finish()
        return n
    }
}

/// A window of a capture. `type`: application, input_method, system, accessibility_overlay,
/// split_screen_divider or unknown.
public struct RawWindow: Equatable, Sendable {
    public var id: Int
    public var type = "application"
    public var layer = 0
    public var package: String?
    public var title: String?
    public var active = false
    public var focused = false
    public var bounds: Bounds?

    public init(id: Int) { self.id = id }

    public func toJson() -> Json {
        var o = JsonObject()
        o["id"] = .int(Int64(id))
        if type != "application" { o["type"] = .string(type) }
        if layer != 0 { o["layer"] = .int(Int64(layer)) }
        o.put("package", package.map(Json.string))
        o.put("title", title.map(Json.string))
        if active { o["active"] = .bool(true) }
        if focused { o["focused"] = .bool(true) }
        o.put("bounds", bounds?.json)
        return .object(o)
    }

    public static func fromJson(_ v: Json, _ at: String) throws -> RawWindow {
        var f = try JsonFields(v, at)
        var w = RawWindow(id: try f.reqInt("id"))
        w.type = try f.optString("type") ?? "application"
        w.layer = try f.optInt("layer") ?? 0
        w.package = try f.optString("package")
        w.title = try f.optString("title")
        w.active = try f.optBool("active", false)
        w.focused = try f.optBool("focused", false)
        w.bounds = try f.optBounds("bounds")
        try f.finish()
        return w
    }
}

/// A whole capture. `capture` increases by one per capture sent on one agent connection.
public struct RawTree: Equatable, Sendable {
    public var capture: Int
    public var platform: Platform
    public var nodes: [RawNode] = []
    public var windows: [RawWindow] = []
    public var package: String?
    public var focus: Int?
    public var rotation = 0
    public var screen: (width: Int, height: Int)?
    public var secure = false
    /// Why the agent itself left nodes out while capturing (a depth limit, a shallower
    /// fallback, the node limit); the hub then marks the snapshot truncated. nil: nothing left out.
    public var truncated: String?
    /// Capture health the agent reports (e.g. a private API missing, so a public fallback was
    /// used); at most `RawLimits.maxWarnings`, each at most `RawLimits.maxWarningText` long.
    public var warnings: [String] = []

    public init(capture: Int, platform: Platform) {
        self.capture = capture
        self.platform = platform
    }

    public static func == (a: RawTree, b: RawTree) -> Bool {
        a.toJson() == b.toJson()
    }

    public func toJson() -> Json {
        var o = JsonObject()
        o["capture"] = .int(Int64(capture))
        o["platform"] = .string(platform.rawValue)
        o["nodes"] = .array(nodes.prefix(RawLimits.maxRawNodes).map { $0.toJson() })
        RawMeta(of: self).write(into: &o)
        return .object(o)
    }

    public static func fromJson(_ v: Json, _ at: String) throws -> RawTree {
        var f = try JsonFields(v, at)
        var t = RawTree(capture: try f.reqInt("capture"), platform: try f.reqEnum("platform", Platform.self))
        let ns = try f.reqArray("nodes")
        if ns.count > RawLimits.maxRawNodes {
            throw JsonError("\(at).nodes: more than \(RawLimits.maxRawNodes)")
        }
        t.nodes = try ns.enumerated().map { try RawNode.fromJson($1, "\(at).nodes[\($0)]") }
        t.windows = try f.optArray("windows").enumerated().map {
            try RawWindow.fromJson($1, "\(at).windows[\($0)]")
        }
        t.package = try f.optString("package")
        t.focus = try f.optInt("focus")
        t.rotation = try f.optInt("rotation") ?? 0
        if let s = f.optValue("screen") {
            var sf = try JsonFields(s, "\(at).screen")
            t.screen = (try sf.reqInt("width"), try sf.reqInt("height"))
            try sf.finish()
        }
        t.secure = try f.optBool("secure", false)
        t.truncated = try RawLimits.checkWarning(f.optString("truncated"), "\(at).truncated")
        t.warnings = try RawLimits.checkWarnings(f.optStrings("warnings"), "\(at).warnings")
        try f.finish()
        return t
    }
}
