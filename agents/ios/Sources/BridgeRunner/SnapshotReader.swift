import AgentCore
import Foundation
#if os(iOS)
import XCTest
#else
import XCUITestStubs
#endif

/// Copies one `XCUIElementSnapshot` into `ElementSnapshot` values in a single walk.
///
/// Invariants: reads only the public snapshot attributes (type, identifier, label, value, title,
/// placeholder, frame, enabled, selected, hasFocus, children), which XCUITest fetched with the
/// one `snapshot()` call — never `dictionaryRepresentation` (it serializes the whole subtree per
/// node) and never `isHittable`/`isVisible` per element (one accessibility round trip each),
/// except `isHittable` for screen markers `__screen_<id>`; reads at most `maxDepth + 1` levels,
/// so the converter can mark the frontier of a deeper tree.
@MainActor
struct SnapshotReader {
    let maxDepth: Int
    /// `isHittable` of the first element with this identifier (markers only).
    let markerHittable: (String) -> Bool?

    func read(_ s: XCUIElementSnapshot, depth: Int = 0) -> ElementSnapshot {
        let f = s.frame
        var e = ElementSnapshot(
            elementType: s.elementType.rawValue, identifier: s.identifier, label: s.label, value: text(s.value),
            title: s.title, placeholder: s.placeholderValue,
            frame: Rect(Double(f.origin.x), Double(f.origin.y), Double(f.size.width), Double(f.size.height)),
            enabled: s.isEnabled, selected: s.isSelected, hasFocus: s.hasFocus, children: [])
        if s.identifier.hasPrefix(SnapshotConverter.markerPrefix) { e.hittable = markerHittable(s.identifier) }
        if depth <= maxDepth {
            e.children = s.children.map { read($0, depth: depth + 1) }
        }
        return e
    }

    private func text(_ value: Any?) -> String? {
        switch value {
        case nil: return nil
        case let s as String: return s
        case let n as NSNumber: return n.stringValue
        case let v?: return "\(v)"
        }
    }
}
