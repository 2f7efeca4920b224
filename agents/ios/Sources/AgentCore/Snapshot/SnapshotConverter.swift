/// A UI snapshot -> the agent link's raw tree, in one pre-order walk.
///
/// Invariants:
/// - nodes are in pre-order, `parent` is an earlier index or -1 (one root per captured root:
///   the foreground application, then SpringBoard's alert when one is up); handles are
///   `index + 1` (`PrimitiveBackend` renumbers them to keep each element's handle across
///   captures), valid only for commands naming this capture;
/// - frames (points) become pixel `bounds` at the capture's scale;
/// - at most `maxDepth` levels below a root and `maxNodes` nodes are emitted; a capture that
///   left elements out (the snapshot's depth limit reached, a shallower fallback, this walk's
///   depth or node limit) says why in `RawTree.truncated` (one reason string, at most
///   `RawLimits.maxWarningText` long), which the hub treats like its own caps — as the Android
///   agent does; nil when nothing was left out. The device layer's capture warnings go to
///   `RawTree.warnings`;
/// - a secure text field is masked on the device: `password` set, no `value` (XCUITest reports
///   its bullets there), and no `text`;
/// - every `Window` element opens a window (ids 1, 2, ... in pre-order); a window holding a
///   `Keyboard` is `input_method`, SpringBoard's are `system`;
/// - the same snapshot always gives the same tree (deterministic).
public struct SnapshotConverter: Sendable {
    /// WebDriverAgent's default; XCUITest itself breaks above about 62.
    public var maxDepth = 50
    public var maxNodes = RawLimits.maxRawNodes
    public static let markerPrefix = "__screen_"

    public init(maxDepth: Int = 50, maxNodes: Int = RawLimits.maxRawNodes) {
        self.maxDepth = maxDepth
        self.maxNodes = maxNodes
    }

    public func convert(_ capture: ScreenCapture, captureId: Int) -> (RawTree, CaptureRecord) {
        var w = Walk(scale: capture.scale, maxDepth: maxDepth, maxNodes: maxNodes)
        for (layer, root) in capture.roots.enumerated() {
            if w.nodes.count >= maxNodes {
                w.nodeLimitReached = true
                break
            }
            w.root(root, layer: layer)
        }
        var tree = RawTree(capture: captureId, platform: .ios)
        tree.nodes = w.nodes
        tree.windows = w.windows
        tree.package = capture.roots.first { !$0.system }?.bundleId ?? capture.roots.first?.bundleId
        tree.focus = w.focus
        tree.rotation = [0, 90, 180, 270].contains(capture.rotation) ? capture.rotation : 0
        tree.truncated = w.truncation(capture.roots)
        tree.warnings = RawLimits.clipWarnings(capture.warnings)
        // Screen markers are hittable unless something of another window covers their centre:
        // computed from the snapshot's own frames, no per-element XCTest query.
        for (i, r) in w.records.enumerated()
        where r.element.identifier.hasPrefix(Self.markerPrefix) && r.element.hittable == nil {
            tree.nodes[i].hittable = Reachability.coverer(x: r.element.frame.midX, y: r.element.frame.midY,
                                                          of: r, in: w.records) == nil
        }
        if let first = capture.roots.first {
            let b = first.tree.frame.pixels(capture.scale)
            if b.right > b.left && b.bottom > b.top { tree.screen = (b.right - b.left, b.bottom - b.top) }
        }
        return (tree, CaptureRecord(scale: capture.scale, elements: w.records))
    }

    private struct Walk {
        let scale: Double
        let maxDepth: Int
        let maxNodes: Int
        var nodes: [RawNode] = []
        var records: [CapturedElement] = []
        var windows: [RawWindow] = []
        var focus: Int?
        /// Elements at the snapshot's depth limit, read without children (they may have some).
        var atSnapshotLimit = 0
        /// Children left out at this walk's `maxDepth`.
        var cutBelowDepth = 0
        var nodeLimitReached = false

        init(scale: Double, maxDepth: Int, maxNodes: Int) {
            self.scale = scale
            self.maxDepth = maxDepth
            self.maxNodes = maxNodes
        }

        mutating func root(_ root: CapturedRoot, layer: Int) {
            visit(root.tree, parent: -1, depth: 0, window: 0, path: root.bundleId, root: root, layer: layer)
            // The root element (Application) belongs to its first window.
            if let first = nodes.lastIndex(where: { $0.parent == -1 }), nodes[first].window == 0,
               let w = nodes[(first + 1)...].first(where: { $0.window != 0 })?.window {
                nodes[first].window = w
            }
        }

        mutating func visit(_ e: ElementSnapshot, parent: Int, depth: Int, window: Int, path: String,
                            root: CapturedRoot, layer: Int) {
            let index = nodes.count
            let type = e.type
            var win = window
            if type == .window {
                var rw = RawWindow(id: windows.count + 1)
                rw.type = root.system ? "system" : "application"
                rw.layer = layer
                rw.package = root.bundleId
                rw.bounds = e.frame.pixels(scale)
                rw.active = true
                rw.focused = windows.isEmpty && !root.system
                windows.append(rw)
                win = rw.id
            } else if type == .keyboard, let k = windows.firstIndex(where: { $0.id == window }) {
                windows[k].type = "input_method"
                windows[k].focused = false
            }
            var n = RawNode(handle: index + 1, parent: parent)
            n.window = win
            n.className = ElementType.className(of: e.elementType)
            n.automationId = nonEmpty(e.identifier)
            n.label = nonEmpty(e.label)
            n.text = nonEmpty(e.title)
            n.hint = nonEmpty(e.placeholder)
            n.bounds = e.frame.pixels(scale)
            n.enabled = e.enabled
            n.selected = e.selected
            let keyboardFocus = e.hasKeyboardFocus ?? e.hasFocus
            n.focused = keyboardFocus
            n.hittable = e.hittable
            if let t = type {
                n.clickable = t.isClickable
                n.editable = t.isEditable
                n.focusable = t.isEditable
                n.scrollable = t.isScrollable
                n.checkable = t.isCheckable
                n.password = t.isSecure
                n.actions = t.actionNames
                if t.isCheckable { n.checked = ["1", "true", "on"].contains((e.value ?? "").lowercased()) }
            }
            if !n.password { n.value = nonEmpty(e.value) }
            if keyboardFocus && n.editable { focus = n.handle }
            nodes.append(n)
            records.append(CapturedElement(index: index, parent: parent, path: path, element: e, window: win))
            if e.children.isEmpty {
                // At the depth the snapshot was limited to, children may exist that were not read.
                if let limit = root.depthLimit, depth >= limit { atSnapshotLimit += 1 }
                return
            }
            if depth >= maxDepth {
                cutBelowDepth += e.children.count
                return
            }
            var seen: [String: Int] = [:]
            for child in e.children {
                if nodes.count >= maxNodes {
                    nodeLimitReached = true
                    return
                }
                let key = "\(child.elementType):\(child.identifier)"
                let ordinal = seen[key, default: 0]
                seen[key] = ordinal + 1
                visit(child, parent: index, depth: depth + 1, window: win, path: path + "/" + key + "#\(ordinal)",
                      root: root, layer: layer)
            }
        }

        /// Why elements were left out, or nil (see the type's invariants).
        func truncation(_ roots: [CapturedRoot]) -> String? {
            var reasons: [String] = []
            for r in roots where r.fellBack {
                let limit = r.depthLimit.map(String.init) ?? "?"
                let failed = r.failedDepth.map { " at depth \($0)" } ?? ""
                reasons.append("the snapshot\(failed) failed; a shallower one (depth \(limit)) was taken")
            }
            if atSnapshotLimit > 0 {
                let limits = Set(roots.compactMap(\.depthLimit)).sorted().map(String.init).joined(separator: "/")
                reasons.append("snapshot depth limit \(limits) reached: \(atSnapshotLimit) elements at the limit were read without their children")
            }
            if cutBelowDepth > 0 {
                reasons.append("depth limit \(maxDepth) reached: \(cutBelowDepth) child elements (and their subtrees) not read")
            }
            if nodeLimitReached { reasons.append("node limit \(maxNodes) reached: the rest of the screen was not read") }
            return reasons.isEmpty ? nil : RawLimits.clipWarning(reasons.joined(separator: "; "))
        }

        private func nonEmpty(_ s: String?) -> String? {
            guard let s = s, !s.isEmpty else { return nil }
            return s
        }
    }
}

/// What the agent keeps of one element for later commands: its snapshot values (the secure
/// field's bullets included, they never leave the device), frame in points and a structural
/// path (`bundle/type:identifier#ordinal/...`) to find it again in a fresh snapshot.
public struct CapturedElement: Equatable, Sendable {
    public let index: Int
    public let parent: Int
    public let path: String
    public let element: ElementSnapshot
    public let window: Int

    public init(index: Int, parent: Int, path: String, element: ElementSnapshot, window: Int) {
        self.index = index
        self.parent = parent
        self.path = path
        var e = element
        e.children = []  // the record holds one element, not its subtree
        self.element = e
        self.window = window
    }

    public var type: ElementType? { element.type }
    public var className: String { ElementType.className(of: element.elementType) }
    public var automationId: String? { element.identifier.isEmpty ? nil : element.identifier }
    public var label: String? { element.label.isEmpty ? nil : element.label }
    /// The text the hub saw (`text` is XCUITest's title; nothing for a secure field).
    public var text: String? { type?.isSecure == true || element.title.isEmpty ? nil : element.title }
}

/// One retained capture: its elements (by index), the handle of each, and the scale it was
/// taken at. Handles are `index + 1` as converted; a backend that keeps handles across captures
/// renumbers them (`renumbered`).
public struct CaptureRecord: Equatable, Sendable {
    public let scale: Double
    public let elements: [CapturedElement]
    public let handles: [Int]
    private let indexOf: [Int: Int]

    public init(scale: Double, elements: [CapturedElement], handles: [Int]? = nil) {
        self.scale = scale
        self.elements = elements
        let hs = handles ?? elements.indices.map { $0 + 1 }
        self.handles = hs
        indexOf = Dictionary(hs.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The same record with element `i` answering to `handles[i]`.
    public func renumbered(_ handles: [Int]) -> CaptureRecord {
        CaptureRecord(scale: scale, elements: elements, handles: handles)
    }

    public func element(handle: Int) -> CapturedElement? {
        guard let i = indexOf[handle], i < elements.count else { return nil }
        return elements[i]
    }

    public func find(path: String) -> CapturedElement? {
        elements.first { $0.path == path }
    }

    /// Identifiers of the screen markers (`__screen_<id>`) in document order, once each.
    public var markerIdentifiers: [String] {
        var out: [String] = []
        for e in elements where e.element.identifier.hasPrefix(SnapshotConverter.markerPrefix) {
            if !out.contains(e.element.identifier) { out.append(e.element.identifier) }
        }
        return out
    }
}
