import AgentCore

/// The replay file host mode serves with `--replay FILE`: a recorded UI snapshot in the shape of
/// XCUITest's snapshot attributes, so real dumps (tests convert WebDriverAgent page sources into
/// it) go through the agent's own converter.
///
/// ```
/// {"scale": 1, "roots": [{"bundleId": "com.example", "system": false, "tree": ELEMENT}]}
/// ELEMENT = {"type": "XCUIElementTypeButton", "frame": [x, y, w, h],
///            "identifier"?, "label"?, "value"?, "title"?, "placeholder"?, "enabled"?,
///            "selected"?, "hasFocus"?, "hasKeyboardFocus"?, "hittable"?, "children"?: [ELEMENT]}
/// ```
/// Strict like every decoder here: unknown fields and unknown type names are errors.
public enum SnapshotFile {
    public static let maxDepth = 600

    public static func parse(_ text: String) throws -> ScreenCapture {
        var f = try JsonFields(try Json.parse(text, maxDepth: maxDepth), "replay")
        let scale = try f.optDouble("scale") ?? 1
        guard scale > 0 && scale <= 10 else { throw JsonError("replay.scale must be in (0, 10]") }
        let roots = try f.reqArray("roots").enumerated().map { k, r -> CapturedRoot in
            var rf = try JsonFields(r, "replay.roots[\(k)]")
            let root = CapturedRoot(bundleId: try rf.reqString("bundleId"), system: try rf.optBool("system", false),
                                    tree: try element(try rf.reqValue("tree"), "replay.roots[\(k)].tree"))
            try rf.finish()
            return root
        }
        try f.finish()
        return ScreenCapture(scale: scale, roots: roots)
    }

    private static let types: [String: UInt] = Dictionary(uniqueKeysWithValues: ElementType.allCases.map { ($0.className, $0.rawValue) })

    static func element(_ v: Json, _ at: String) throws -> ElementSnapshot {
        var f = try JsonFields(v, at)
        let name = try f.reqString("type")
        guard let raw = types[name] else { throw JsonError("\(at).type: unknown element type '\(name)'") }
        let frame = try f.reqArray("frame")
        guard frame.count == 4 else { throw JsonError("\(at).frame: expected [x, y, width, height]") }
        let n = try frame.map { item -> Double in
            switch item {
            case .int(let i): return Double(i)
            case .double(let d): return d
            default: throw JsonError("\(at).frame: expected numbers")
            }
        }
        var e = ElementSnapshot(elementType: raw, identifier: try f.optString("identifier") ?? "",
                                label: try f.optString("label") ?? "", value: try f.optString("value"),
                                title: try f.optString("title") ?? "", placeholder: try f.optString("placeholder"),
                                frame: Rect(n[0], n[1], n[2], n[3]), enabled: try f.optBool("enabled", true),
                                selected: try f.optBool("selected", false), hasFocus: try f.optBool("hasFocus", false),
                                children: [])
        e.hittable = try f.optBoolOrNil("hittable")
        e.hasKeyboardFocus = try f.optBoolOrNil("hasKeyboardFocus")
        e.children = try f.optArray("children").enumerated().map { try element($1, "\(at).children[\($0)]") }
        try f.finish()
        return e
    }
}
