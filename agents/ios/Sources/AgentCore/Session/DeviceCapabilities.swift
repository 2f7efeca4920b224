import Foundation

/// The device capabilities of issue 21 that the core answers from a capture (pure): system
/// alerts and hiding the keyboard (element types compared without the `XCUIElementType`
/// prefix). An alert is an `Alert` element (XCUIElementTypeAlert; in a
/// SpringBoard window when the system asks, e.g. for a permission); its title is its label (else
/// its first static text), its buttons the `Button` elements inside it in document order.
/// Accept picks the affirmative button, dismiss the negative one, among the alert's *answer*
/// buttons (those beside its last button: a control above them, like the iOS 17 location
/// prompt's "Precise" toggle, is never an answer), by their words in English, German and
/// Japanese, else by where iOS puts them: in a row the cancel is on the left and the default on
/// the right; in a stack the default is on top and the cancel at the bottom (issue 34; WDA falls
/// back to the first/last button whatever it is). The caller taps its centre.
/// The keyboard is hidden as `KeyboardHide` plans it, and checked to be gone.
public enum DeviceCapabilities {
    public struct FoundAlert: Equatable, Sendable {
        public var info: AlertInfo
        public var buttons: [RawNode]
    }

    static let positive: Set<String> = [
        "allow", "ok", "continue", "yes", "allow while using app", "allow once", "accept", "allow all",
        "allow full access",
        // German
        "erlauben", "zulassen", "fortfahren", "weiter", "ja", "beim verwenden der app erlauben",
        "einmal erlauben", "akzeptieren", "alle erlauben",
        // Japanese
        "許可", "許可する", "続ける", "はい", "appの使用中は許可", "1度だけ許可", "一度だけ許可", "承認",
        "すべてを許可",
    ]
    static let negative: Set<String> = [
        "don't allow", "don’t allow", "cancel", "not now", "no", "deny", "close", "dismiss",
        // German
        "nicht erlauben", "abbrechen", "nicht jetzt", "nein", "ablehnen", "schließen", "nicht zulassen",
        // Japanese
        "許可しない", "キャンセル", "今はしない", "いいえ", "拒否", "閉じる", "後で",
    ]
    /// Why a permission cannot be changed by the agent (the hub names the alert route too).
    public static let noPermissions =
        "an iPhone lets no one outside the app change its permissions; answer the app's permission alert instead"
    public static let noLocation =
        "the agent does not simulate the location; the hub's device layer does (pymobiledevice3, simctl location)"

    /// The alerts of `tree`, in document order.
    public static func alerts(_ tree: RawTree) -> [FoundAlert] {
        var out: [FoundAlert] = []
        for (at, alert) in tree.nodes.enumerated() where kind(alert) == "Alert" {
            let inside = tree.nodes.filter { isInside($0, at, tree) }
            let buttons = inside.filter { kind($0) == "Button" && (name($0) ?? "").isEmpty == false }
            let texts = inside.filter { kind($0) == "StaticText" }.compactMap(name)
            let title = alert.label ?? texts.first ?? ""
            let message = texts.first { $0 != title }
            let system = tree.windows.first { $0.id == alert.window }?.package == ForegroundPicker.springboard
                || alert.package == ForegroundPicker.springboard
            let limited = Array(buttons.prefix(AlertInfo.maxButtons))
            out.append(FoundAlert(info: AlertInfo(title: title, buttons: limited.compactMap(name), message: message,
                                                  system: system), buttons: limited))
        }
        return out
    }

    /// The button `action` (accept, dismiss, press) means, or the reason there is none.
    public static func choose(_ alert: FoundAlert, _ action: String, _ button: String?) -> Result<RawNode, Why> {
        let names = alert.info.buttons.map { $0.lowercased().trimmingCharacters(in: .whitespaces) }
        if action == "press" {
            let wanted = (button ?? "").lowercased().trimmingCharacters(in: .whitespaces)
            if let k = names.firstIndex(of: wanted) { return .success(alert.buttons[k]) }
            return .failure(Why("the alert has no button '\(button ?? "")'; its buttons: \(alert.info.buttons.joined(separator: ", "))"))
        }
        let answers = answerButtons(alert.buttons)
        guard !answers.isEmpty else { return .failure(Why("the alert has no buttons")) }
        let words = action == "accept" ? positive : negative
        if let b = answers.first(where: { words.contains(normalized($0)) }) { return .success(b) }
        // No known word: where iOS puts the default and the cancel button.
        let tops = answers.compactMap { $0.bounds?.top }
        let inRow = tops.count == answers.count && (tops.max()! - tops.min()!) <= 4
        let byX = answers.sorted { ($0.bounds?.left ?? 0) < ($1.bounds?.left ?? 0) }
        let byY = answers.sorted { ($0.bounds?.top ?? 0) < ($1.bounds?.top ?? 0) }
        let pick = inRow ? (action == "accept" ? byX.last : byX.first) : (action == "accept" ? byY.first : byY.last)
        return .success(pick ?? answers[0])
    }

    static func normalized(_ n: RawNode) -> String {
        (name(n) ?? "").lowercased().trimmingCharacters(in: .whitespaces)
    }

    /// The alert's answer buttons: those with the same parent as its last button and no value
    /// (a button with a value is a toggle, like "Precise: On").
    static func answerButtons(_ buttons: [RawNode]) -> [RawNode] {
        let plain = buttons.filter { ($0.value ?? "").isEmpty }
        guard let last = plain.last else { return [] }
        return plain.filter { $0.parent == last.parent }
    }

    public struct Why: Error, Equatable { public let message: String; init(_ m: String) { message = m } }

    static func name(_ n: RawNode) -> String? { n.label ?? n.text }

    /// The element type without XCUITest's prefix (`XCUIElementTypeAlert` -> `Alert`).
    static func kind(_ n: RawNode) -> String {
        let c = n.className ?? ""
        return c.hasPrefix("XCUIElementType") ? String(c.dropFirst("XCUIElementType".count)) : c
    }

    /// Whether `n` descends from the node at index `ancestor` (`parent` is a node index).
    static func isInside(_ n: RawNode, _ ancestor: Int, _ tree: RawTree) -> Bool {
        var parent = n.parent
        var steps = 0
        while parent >= 0 && parent < tree.nodes.count && steps < 256 {
            if parent == ancestor { return true }
            parent = tree.nodes[parent].parent
            steps += 1
        }
        return false
    }

    static func centre(_ n: RawNode) -> Point? {
        guard let b = n.bounds else { return nil }
        return Point((b.left + b.right) / 2, (b.top + b.bottom) / 2)
    }
}
