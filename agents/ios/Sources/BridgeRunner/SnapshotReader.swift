import AgentCore
import Foundation
#if os(iOS)
import XCTest
#else
import XCUITestStubs
#endif

/// Copies one `XCUIElementSnapshot` into `ElementSnapshot` values in a single walk.
///
/// Invariants: reads only the snapshot's own attributes (type, identifier, label, value, title,
/// placeholder, frame, enabled, selected, hasFocus, children; `hasKeyboardFocus` where the
/// snapshot object answers it, `PrivateXCTest`), which XCUITest fetched with the one
/// `snapshot()` call — never `dictionaryRepresentation` (it serializes the whole subtree per
/// node) and never `isHittable`/`isVisible` (one accessibility round trip each: the core computes
/// hittability from frames); reads at most `maxDepth` levels (the public fallback when XCTest's
/// own depth limit could not be set).
@MainActor
struct SnapshotReader {
    let maxDepth: Int

    func read(_ s: XCUIElementSnapshot, depth: Int = 0) -> ElementSnapshot {
        let f = s.frame
        var e = ElementSnapshot(
            elementType: s.elementType.rawValue, identifier: s.identifier, label: s.label, value: text(s.value),
            title: s.title, placeholder: s.placeholderValue,
            frame: Rect(Double(f.origin.x), Double(f.origin.y), Double(f.size.width), Double(f.size.height)),
            enabled: s.isEnabled, selected: s.isSelected, hasFocus: s.hasFocus, children: [])
        e.hasKeyboardFocus = PrivateXCTest.hasKeyboardFocus(s)
        if depth < maxDepth {
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
