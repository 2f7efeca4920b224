/// Tree deltas of the agent link (protocol/README.md §10, bridge/core/raw_delta.py).
///
/// `RawTreeDelta.between` writes the canonical form the hub's reference implementation writes
/// and the fixtures hold: `remove` in the old tree's order, `upsert` in the new tree's order
/// with each node's `parent` as a handle, `order` for exactly the parents whose child list
/// changed (`""`: the roots), `meta` only when a tree-level field changed. Nodes are matched by
/// handle, so the backend must keep a node's handle across captures while it is the same
/// element. It returns nil — send the whole tree — when a handle repeats in either tree, the
/// platforms differ, or more than half of the nodes changed.

/// A capture's tree-level fields (`RawTree` without capture, platform and nodes).
public struct RawMeta: Equatable, Sendable {
    public var windows: [RawWindow] = []
    public var package: String?
    public var focus: Int?
    public var rotation = 0
    public var screen: (width: Int, height: Int)?
    public var secure = false
    /// Why the agent left nodes out while capturing (nil: nothing left out).
    public var truncated: String?
    /// Capture health the agent reports (at most `RawLimits.maxWarnings`).
    public var warnings: [String] = []

    public init() {}

    public init(of tree: RawTree) {
        windows = tree.windows
        package = tree.package
        focus = tree.focus
        rotation = tree.rotation
        screen = tree.screen
        secure = tree.secure
        truncated = tree.truncated
        warnings = tree.warnings
    }

    public static func == (a: RawMeta, b: RawMeta) -> Bool { a.toJson() == b.toJson() }

    public func toJson() -> Json {
        var o = JsonObject()
        write(into: &o)
        return .object(o)
    }

    /// Adds these fields to `o` (a `RawTree` writes them after its nodes).
    func write(into o: inout JsonObject) {
        if !windows.isEmpty { o["windows"] = .array(windows.map { $0.toJson() }) }
        o.put("package", package.map(Json.string))
        o.put("focus", focus.map { .int(Int64($0)) })
        if rotation != 0 { o["rotation"] = .int(Int64(rotation)) }
        if let s = screen {
            var so = JsonObject()
            so["width"] = .int(Int64(s.width))
            so["height"] = .int(Int64(s.height))
            o["screen"] = .object(so)
        }
        if secure { o["secure"] = .bool(true) }
        o.put("truncated", truncated.map { .string(RawLimits.clipWarning($0)) })
        let ws = RawLimits.clipWarnings(warnings)
        if !ws.isEmpty { o["warnings"] = .array(ws.map(Json.string)) }
    }

    public static func fromJson(_ v: Json, _ at: String) throws -> RawMeta {
        var f = try JsonFields(v, at)
        var m = RawMeta()
        m.windows = try f.optArray("windows").enumerated().map {
            try RawWindow.fromJson($1, "\(at).windows[\($0)]")
        }
        m.package = try f.optString("package")
        m.focus = try f.optInt("focus")
        m.rotation = try f.optInt("rotation") ?? 0
        if let s = f.optValue("screen") {
            var sf = try JsonFields(s, "\(at).screen")
            m.screen = (try sf.reqInt("width"), try sf.reqInt("height"))
            try sf.finish()
        }
        m.secure = try f.optBool("secure", false)
        m.truncated = try RawLimits.checkWarning(f.optString("truncated"), "\(at).truncated")
        m.warnings = try RawLimits.checkWarnings(f.optStrings("warnings"), "\(at).warnings")
        try f.finish()
        return m
    }
}

/// A `tree_delta` push: the capture `capture` as its difference from capture `base`.
public struct TreeDelta: Equatable, Sendable {
    public var reason: String
    public var stable: Bool
    public var base: Int
    public var capture: Int
    public var remove: [Int] = []
    /// New or changed nodes in full; `parent` is the parent's handle (-1 for a root).
    public var upsert: [RawNode] = []
    /// Parent handle in decimal (`""` for the roots) -> its complete new child list.
    public var order: [(String, [Int])] = []
    public var meta: RawMeta?
    public var quietMs = 0

    public init(reason: String, stable: Bool, base: Int, capture: Int) {
        self.reason = reason
        self.stable = stable
        self.base = base
        self.capture = capture
    }

    public static func == (a: TreeDelta, b: TreeDelta) -> Bool { a.toJson() == b.toJson() }

    public func toJson() -> Json {
        var o = JsonObject()
        o["type"] = .string("tree_delta")
        o["reason"] = .string(reason)
        o["stable"] = .bool(stable)
        o["base"] = .int(Int64(base))
        o["capture"] = .int(Int64(capture))
        if !remove.isEmpty { o["remove"] = .array(remove.map { .int(Int64($0)) }) }
        if !upsert.isEmpty { o["upsert"] = .array(upsert.map { $0.toJson() }) }
        if !order.isEmpty {
            var ord = JsonObject()
            for (key, kids) in order { ord[key] = .array(kids.map { .int(Int64($0)) }) }
            o["order"] = .object(ord)
        }
        o.put("meta", meta?.toJson())
        if quietMs != 0 { o["quietMs"] = .int(Int64(quietMs)) }
        return .object(o)
    }
}

public enum RawTreeDelta {
    /// The capability of a backend that keeps node handles across captures.
    public static let capability = "tree_delta"
    /// More than this share of changed nodes: the whole tree is as good.
    public static let fullShare = 0.5

    public static func between(_ prev: RawTree, _ next: RawTree, reason: String, stable: Bool,
                               quietMs: Int = 0) -> TreeDelta? {
        guard prev.platform == next.platform,
              let oldIndex = index(prev), let newIndex = index(next) else { return nil }
        let oldParents = parentHandles(prev)
        let newParents = parentHandles(next)
        var d = TreeDelta(reason: reason, stable: stable, base: prev.capture, capture: next.capture)
        d.quietMs = quietMs
        d.remove = prev.nodes.map(\.handle).filter { newIndex[$0] == nil }
        for (i, node) in next.nodes.enumerated() {
            let parent = newParents[i]
            if let j = oldIndex[node.handle], oldParents[j] == parent,
               sameContent(prev.nodes[j], node) {
                continue
            }
            var copy = node
            copy.parent = parent
            d.upsert.append(copy)
        }
        if Double(d.upsert.count) > fullShare * Double(max(1, next.nodes.count)) { return nil }
        let oldKids = childLists(prev, oldParents)
        let newKids = childLists(next, newParents)
        for parent in [-1] + next.nodes.map(\.handle) {
            let kids = newKids[parent] ?? []
            if kids != (oldKids[parent] ?? []) {
                d.order.append((parent == -1 ? "" : String(parent), kids))
            }
        }
        let meta = RawMeta(of: next)
        d.meta = meta == RawMeta(of: prev) ? nil : meta
        return d
    }

    /// Handle -> index, or nil when a handle repeats.
    private static func index(_ tree: RawTree) -> [Int: Int]? {
        var out: [Int: Int] = [:]
        for (i, n) in tree.nodes.enumerated() {
            if out.updateValue(i, forKey: n.handle) != nil { return nil }
        }
        return out
    }

    private static func parentHandles(_ tree: RawTree) -> [Int] {
        tree.nodes.map { $0.parent >= 0 ? tree.nodes[$0.parent].handle : -1 }
    }

    private static func childLists(_ tree: RawTree, _ parents: [Int]) -> [Int: [Int]] {
        var out: [Int: [Int]] = [-1: []]
        for (i, p) in parents.enumerated() { out[p, default: []].append(tree.nodes[i].handle) }
        return out
    }

    /// Every field but the parent index equal (what the hub would read).
    static func sameContent(_ a: RawNode, _ b: RawNode) -> Bool {
        var x = a
        var y = b
        x.parent = 0
        y.parent = 0
        return x.toJson() == y.toJson()
    }
}
