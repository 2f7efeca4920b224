/// Whether an element can be touched, computed from one snapshot's frames (no per-element
/// XCTest query): the part of its frame inside every clipping ancestor (scroll views, windows,
/// the application) is its visible area; a keyboard, alert or sheet, a tab bar, navigation bar
/// or toolbar, a modal's dimmed background (`PopoverDismissRegion`) or a button drawn later (a
/// floating button) that is not one of its ancestors or descendants covers what it overlaps
/// (issue 34: the bars and floating buttons take the touch on a phone). A tap goes to the centre of the visible, uncovered part.
///
/// Decisions (`check`):
/// - visible and uncovered (at least partly): tap there;
/// - off screen, or covered, inside a scroll view: scroll that view by `dy` points (positive:
///   the content moves up) so the element's centre reaches the middle of the part of the scroll
///   view nothing covers, then look again;
/// - otherwise refuse with a `NOT_VISIBLE:` reason that says what covers it and how to recover —
///   never a tap on whatever covers it.
public enum Reachability {
    public enum Verdict: Equatable, Sendable {
        case visible(x: Double, y: Double)
        /// Scroll the scroll view at record index `container` by `dy` points.
        case scroll(container: Int, dy: Double, viewport: Rect)
        case refuse(String)
    }

    public static let notVisible = "NOT_VISIBLE"
    static let coverTypes: Set<ElementType> = [.keyboard, .alert, .sheet]
    /// Bars sit above the content whatever the document order.
    static let barTypes: Set<ElementType> = [.tabBar, .navigationBar, .toolbar]
    /// XCUITest's identifier of the dimmed area around a modal or popover.
    static let dimmingIds: Set<String> = ["PopoverDismissRegion", "dismiss popup"]
    static let clipTypes: Set<ElementType> = [.application, .window, .scrollView, .table, .collectionView, .webView]
    /// The least part of an element that counts as touchable (points).
    static let minSide = 4.0

    public static func ancestors(of e: CapturedElement, in record: CaptureRecord) -> [CapturedElement] {
        var out: [CapturedElement] = []
        var i = e.parent
        while i >= 0 && i < record.elements.count && out.count < 1000 {
            out.append(record.elements[i])
            i = record.elements[i].parent
        }
        return out
    }

    /// The element's frame clipped by its clipping ancestors.
    public static func visibleRect(of e: CapturedElement, in record: CaptureRecord) -> Rect {
        var r = e.element.frame
        for a in ancestors(of: e, in: record) {
            if let t = a.type, clipTypes.contains(t), a.element.frame.hasArea { r = r.intersection(a.element.frame) }
        }
        return r
    }

    /// Whether `c` covers what lies under it, for an element that is neither `c`'s ancestor
    /// nor its descendant (`later`: `c` comes after it in document order, i.e. is drawn above).
    static func covers(_ c: CapturedElement, later: Bool) -> Bool {
        if let t = c.type, coverTypes.contains(t) || barTypes.contains(t) { return true }
        if dimmingIds.contains(c.element.identifier) { return true }
        return later && c.type == .button
    }

    /// What covers (x, y) above `e` (neither `e`, one of its ancestors nor one of its
    /// descendants), if anything.
    public static func coverer(x: Double, y: Double, of e: CapturedElement, in records: [CapturedElement]) -> CapturedElement? {
        var mine = Set<Int>([e.index])
        var i = e.parent
        while i >= 0 && i < records.count && mine.count < 1000 {
            mine.insert(i)
            i = records[i].parent
        }
        func inside(_ c: CapturedElement) -> Bool {  // a descendant of e
            var j = c.parent
            var steps = 0
            while j >= 0 && j < records.count && steps < 1000 {
                if j == e.index { return true }
                j = records[j].parent
                steps += 1
            }
            return false
        }
        return records.first { c in
            guard !mine.contains(c.index), covers(c, later: c.index > e.index), c.element.frame.contains(x: x, y: y) else {
                return false
            }
            return !inside(c)
        }
    }

    private static func what(_ c: CapturedElement) -> String {
        if dimmingIds.contains(c.element.identifier) { return "a modal's dimmed background" }
        switch c.type {
        case .keyboard?: return "the keyboard"
        case .alert?: return "an alert"
        case .sheet?: return "a sheet"
        case .tabBar?: return "the tab bar"
        case .navigationBar?: return "the navigation bar"
        case .toolbar?: return "a toolbar"
        default: return "a button drawn over it (\(c.label ?? c.automationId ?? "unnamed"))"
        }
    }

    public static func check(_ e: CapturedElement, in record: CaptureRecord) -> Verdict {
        let visible = visibleRect(of: e, in: record)
        var blocker: CapturedElement?
        if visible.width >= minSide && visible.height >= minSide {
            let c = coverer(x: visible.midX, y: visible.midY, of: e, in: record.elements)
            guard let cover = c else { return .visible(x: visible.midX, y: visible.midY) }
            // The part above or below what covers it may still be touchable.
            let above = Rect(visible.x, visible.y, visible.width, max(0, cover.element.frame.y - visible.y))
            let below = Rect(visible.x, cover.element.frame.maxY, visible.width, max(0, visible.maxY - cover.element.frame.maxY))
            for part in [above, below] where part.height >= minSide {
                if coverer(x: part.midX, y: part.midY, of: e, in: record.elements) == nil {
                    return .visible(x: part.midX, y: part.midY)
                }
            }
            blocker = cover
        }
        if let s = ancestors(of: e, in: record).first(where: { $0.type?.isScrollable == true }) {
            var viewport = visibleRect(of: s, in: record)
            let around = Set(ancestors(of: s, in: record).map(\.index))
            for c in record.elements where !around.contains(c.index) && c.index != s.index
                && c.type.map({ coverTypes.contains($0) || barTypes.contains($0) }) == true
                && c.element.frame.intersection(viewport).hasArea {
                let f = c.element.frame
                if f.y > viewport.midY {  // covers the lower part: the viewport ends above it
                    viewport.height = max(0, f.y - viewport.y)
                } else if f.maxY < viewport.midY {  // a bar over the top: the viewport starts below it
                    let bottom = viewport.maxY
                    viewport.y = f.maxY
                    viewport.height = max(0, bottom - f.maxY)
                }
            }
            let dy = e.element.frame.midY - viewport.midY
            if viewport.height >= minSide && abs(dy) >= 1 {
                return .scroll(container: s.index, dy: dy, viewport: viewport)
            }
        }
        if let cover = blocker {
            let recovery: String
            switch cover.type {
            case .keyboard?: recovery = "dismiss the keyboard (key ENTER or ESCAPE, or tap outside the field) and retry"
            case .alert?, .sheet?: recovery = "answer or dismiss the \(cover.type == .alert ? "alert" : "sheet") first, then retry"
            default: recovery = "scroll it out from under \(what(cover)) or close what covers it, then retry"
            }
            return .refuse("\(notVisible): the element is under \(what(cover)); never tapped through it; recovery: \(recovery)")
        }
        return .refuse("\(notVisible): the element is off screen and no scroll view holds it; recovery: scroll or navigate until it shows, then find it again")
    }
}
