import Foundation

/// The device capabilities of issue 21 that the core answers from a capture (pure): system
/// alerts and hiding the keyboard (element types compared without the `XCUIElementType`
/// prefix). An alert is an `Alert` element (XCUIElementTypeAlert; in a
/// SpringBoard window when the system asks, e.g. for a permission); its title is its label (else
/// its first static text), its buttons the `Button` elements inside it in document order.
/// Accept picks the affirmative button (Allow, OK, Continue, ... else the last one), dismiss the
/// negative one (Don't Allow, Cancel, Not Now, ... else the first); the caller taps its centre.
/// The keyboard is hidden by tapping its hide/return key when the capture shows a `Keyboard`.
public enum DeviceCapabilities {
    public struct FoundAlert: Equatable, Sendable {
        public var info: AlertInfo
        public var buttons: [RawNode]
    }

    static let positive = ["allow", "ok", "continue", "yes", "allow while using app", "allow once", "accept"]
    static let negative = ["don't allow", "don’t allow", "cancel", "not now", "no", "deny", "close", "dismiss"]
    static let hideKeys = ["hide keyboard", "dismiss keyboard", "done", "return"]
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
        let words = action == "accept" ? positive : negative
        if let k = names.firstIndex(where: { words.contains($0) }) { return .success(alert.buttons[k]) }
        guard let fallback = action == "accept" ? alert.buttons.last : alert.buttons.first else {
            return .failure(Why("the alert has no buttons"))
        }
        return .success(fallback)
    }

    /// The key that hides the keyboard of `tree`; nil when no keyboard shows (`shown` false).
    public static func hideKey(_ tree: RawTree) -> (shown: Bool, key: RawNode?) {
        guard let keyboard = tree.nodes.firstIndex(where: { kind($0) == "Keyboard" }) else { return (false, nil) }
        let keys = tree.nodes.filter { isInside($0, keyboard, tree) && ["Button", "Key"].contains(kind($0)) }
        let key = keys.first { hideKeys.contains((name($0) ?? "").lowercased()) }
        return (true, key)
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
