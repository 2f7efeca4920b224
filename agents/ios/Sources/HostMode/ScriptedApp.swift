import AgentCore
import Foundation

/// The demo app (`dev.mobridge.demo`) as XCUITest would see it, for host mode: the same login
/// and home screens as the simulated device and the Java agent's host mode.
///
/// Screens: `login` (marker `__screen_login`; "Welcome", text field `username`, secure field
/// `password`, button `login` "Sign in"; user `demo` with any password opens home, anyone else
/// gets "Invalid credentials"), `home` (marker `__screen_home`; "Home", a clock `clock` whose
/// label changes every second, a table `entries` with cells "Alert" and "Sign out"), and
/// SpringBoard (the home screen with the app's icon) when the app is not in front. "Alert"
/// raises a SpringBoard permission alert over the app. While a text field has focus the app
/// shows a keyboard window with a Return key.
///
/// As XCUITest reports them: an empty field's value is its placeholder, a secure field's value is
/// one bullet per character, the focused field has `hasFocus`. Frames are in points on a
/// 393 x 852 screen (scale 3). State changes call `onChange`. Not thread-safe: `HostPrimitives`
/// holds the lock around every use.
public final class ScriptedApp {
    public static let bundleId = "dev.mobridge.demo"
    public static let springboard = "com.apple.springboard"
    public static let width = 393.0
    public static let height = 852.0
    public static let scale = 3.0

    public enum Screen: String, Sendable { case login, home }

    public private(set) var screen = Screen.login
    public private(set) var inFront = true
    public private(set) var alertShown = false
    public private(set) var username = ""
    public private(set) var password = ""
    public private(set) var focus: String?
    public private(set) var showError = false
    public private(set) var landscape = false
    public private(set) var volume = 7
    /// Installed apps: the demo app (a user app) and the system's own, plus host packages.
    public private(set) var apps: [InstalledApp] = [
        InstalledApp(appId: ScriptedApp.bundleId, name: "Mobridge Demo"),
        InstalledApp(appId: ScriptedApp.springboard, name: "SpringBoard", system: true),
        InstalledApp(appId: "com.apple.Preferences", name: "Settings", system: true),
    ]
    public static let maxPackage = 4096
    public var clock: () -> Date = Date.init
    public var onChange: () -> Void = {}
    /// Pixels per point, read per capture (the landscape scene changes it).
    public var scale: Double { scene?.scale ?? Self.scale }
    public var rotation: Int { (scene?.landscape ?? landscape) ? 90 : 0 }
    /// A pathology scene (`--scene NAME`) instead of the login/home app; nil: the login scene.
    public private(set) var scene: PathologyScene?

    public init(scene name: String = "login") {
        if name != "login" { scene = PathologyScene(name) }
        scene?.onChange = { [unowned self] in onChange() }
    }

    /// The scene never goes idle (XCTest's quiescence wait would never end).
    public var neverIdle: Bool { scene?.neverIdle ?? false }
    /// How long the app animates after each input event before it is idle (ms).
    public var idleAfterMs: Int { scene?.idleAfterMs ?? 0 }
    /// The screen's pixels per point as rendered (`UIScreen.nativeScale`) when it is not the
    /// nominal scale (the `plus` scene), else nil.
    public var nativeScale: Double? { scene?.nativeScale }
    public var widthPoints: Double { scene?.widthPoints ?? (landscape ? Self.height : Self.width) }
    public var heightPoints: Double { scene?.heightPoints ?? (landscape ? Self.width : Self.height) }
    /// Whether SpringBoard shows an alert (what the layer's cheap alert query answers).
    public var systemAlertShown: Bool { scene.map { $0.alertShown } ?? (inFront && alertShown) }

    /// A drag (XCTest's press-drag-hold); the scripted login/home screens do not scroll.
    public func drag(_ plan: DragPlan) { scene?.drag(plan) }

    // MARK: the element trees

    /// The roots a capture sees: the app (or SpringBoard), then the alert when one is up.
    public func roots() -> [CapturedRoot] {
        if let sc = scene { return sc.roots() }
        var out: [CapturedRoot] = []
        if inFront {
            out.append(CapturedRoot(bundleId: Self.bundleId, system: false, tree: appTree()))
            if alertShown { out.append(CapturedRoot(bundleId: Self.springboard, system: true, tree: springboardTree())) }
        } else {
            out.append(CapturedRoot(bundleId: Self.springboard, system: true, tree: springboardTree()))
        }
        return out
    }

    /// The applications XCUITest would report, with their state (SpringBoard always runs in
    /// the foreground, as on a device).
    public func runningApps() -> [RunningApp] {
        if let sc = scene { return sc.runningApps() }
        return [RunningApp(bundleId: Self.bundleId, foreground: inFront),
                RunningApp(bundleId: Self.springboard, foreground: true)]
    }

    /// The whole element tree of one application, as an unlimited XCUITest snapshot would
    /// return it (HostPrimitives applies the limits XCTest applies).
    public func tree(of bundleId: String) -> ElementSnapshot? {
        if let sc = scene { return sc.tree(of: bundleId) }
        switch bundleId {
        case Self.bundleId: return appTree()
        case Self.springboard: return springboardTree()
        default: return nil
        }
    }

    /// The whole screen in points, turned with the orientation (the app's frame on XCUITest).
    private var full: Rect { landscape ? Rect(0, 0, Self.height, Self.width) : Rect(0, 0, Self.width, Self.height) }

    public func appTree() -> ElementSnapshot {
        var windows = [ElementSnapshot(type: .window, frame: full, children: [screen == .login ? loginScreen() : homeScreen()])]
        if focus != nil {
            let kb = Rect(0, 552, Self.width, 300)
            let key = ElementSnapshot(type: .key, identifier: "Return", label: "return", frame: Rect(290, 790, 100, 50))
            windows.append(ElementSnapshot(type: .window, frame: kb, children: [
                ElementSnapshot(type: .keyboard, frame: kb, children: [key]),
            ]))
        }
        return ElementSnapshot(type: .application, label: "Mobridge Demo", frame: full, children: windows)
    }

    private func marker(_ name: String, _ children: [ElementSnapshot]) -> ElementSnapshot {
        // No `hittable` here: XCUITest's snapshot has none; the core computes it from frames.
        ElementSnapshot(type: .other, identifier: "__screen_\(name)", frame: Rect(0, 59, Self.width, 759),
                        children: children)
    }

    private func loginScreen() -> ElementSnapshot {
        var items = [
            ElementSnapshot(type: .staticText, identifier: "title", label: "Welcome", frame: Rect(21, 75, 351, 34)),
            ElementSnapshot(type: .textField, identifier: "username", value: username.isEmpty ? "Username" : username,
                            placeholder: "Username", frame: Rect(21, 130, 351, 47), hasFocus: focus == "username",
                            hasKeyboardFocus: focus == "username"),
            ElementSnapshot(type: .secureTextField, identifier: "password",
                            value: password.isEmpty ? "Password" : String(repeating: "•", count: password.count),
                            placeholder: "Password", frame: Rect(21, 190, 351, 47), hasFocus: focus == "password",
                            hasKeyboardFocus: focus == "password"),
            ElementSnapshot(type: .button, identifier: "login", label: "Sign in", frame: Rect(21, 250, 351, 47)),
        ]
        if showError {
            items.append(ElementSnapshot(type: .staticText, identifier: "error", label: "Invalid credentials",
                                         frame: Rect(21, 310, 351, 27)))
        }
        return marker("login", items)
    }

    private func homeScreen() -> ElementSnapshot {
        let f = DateFormatter()
        f.dateFormat = "HH:mm:ss"
        f.timeZone = TimeZone(identifier: "UTC")
        let cells = ["Alert", "Sign out"].enumerated().map { i, name in
            let top = 220 + Double(i) * 54
            return ElementSnapshot(type: .cell, identifier: "entry.\(i)", frame: Rect(0, top, Self.width, 54), children: [
                ElementSnapshot(type: .staticText, label: name, frame: Rect(21, top + 15, 351, 24)),
            ])
        }
        return marker("home", [
            ElementSnapshot(type: .staticText, identifier: "title", label: "Home", frame: Rect(21, 75, 351, 34)),
            ElementSnapshot(type: .staticText, identifier: "clock", label: f.string(from: clock()), frame: Rect(21, 120, 351, 27)),
            ElementSnapshot(type: .table, identifier: "entries", frame: Rect(0, 210, Self.width, 608), children: cells),
        ])
    }

    func alertTree() -> ElementSnapshot {
        let box = Rect(66, 330, 270, 190)
        return ElementSnapshot(type: .alert, label: "“Mobridge Demo” Would Like to Send You Notifications", frame: box, children: [
            ElementSnapshot(type: .staticText, label: "“Mobridge Demo” Would Like to Send You Notifications",
                            frame: Rect(82, 346, 238, 60)),
            ElementSnapshot(type: .button, label: "Don’t Allow", frame: Rect(66, 476, 135, 44)),
            ElementSnapshot(type: .button, label: "Allow", frame: Rect(201, 476, 135, 44)),
        ])
    }

    /// SpringBoard: its home screen (the app's icon) and, while one is up, the alert's window.
    func springboardTree() -> ElementSnapshot {
        let icon = ElementSnapshot(type: .icon, identifier: "Mobridge Demo", label: "Mobridge Demo", frame: Rect(27, 120, 64, 80))
        var windows: [ElementSnapshot] = []
        if !inFront { windows.append(ElementSnapshot(type: .window, frame: full, children: [icon])) }
        if alertShown && inFront { windows.append(ElementSnapshot(type: .window, frame: full, children: [alertTree()])) }
        return ElementSnapshot(type: .application, label: "SpringBoard", frame: full, children: windows)
    }

    // MARK: input

    /// A touch at (x, y) points: whatever the scripted screen puts there reacts.
    public func tap(x: Double, y: Double) {
        if let sc = scene { sc.tap(x: x, y: y); return }
        if !inFront {
            if Rect(27, 120, 64, 80).contains(x: x, y: y) { bringToFront() }
            return
        }
        if alertShown {
            if Rect(66, 476, 270, 44).contains(x: x, y: y) {
                alertShown = false
                changed()
            }
            return  // the alert is modal
        }
        if focus != nil, Rect(290, 790, 100, 50).contains(x: x, y: y) {
            submit()
            return
        }
        switch screen {
        case .login:
            if Rect(21, 130, 351, 47).contains(x: x, y: y) { setFocus("username") }
            else if Rect(21, 190, 351, 47).contains(x: x, y: y) { setFocus("password") }
            else if Rect(21, 250, 351, 47).contains(x: x, y: y) { signIn() }
        case .home:
            if Rect(0, 220, Self.width, 54).contains(x: x, y: y) {
                alertShown = true
                changed()
            } else if Rect(0, 274, Self.width, 54).contains(x: x, y: y) {
                go(.login)
            }
        }
    }

    public struct NoFocus: Error, CustomStringConvertible {
        public var description: String { "neither the application nor any descendant has keyboard focus" }
    }

    /// Types into the focused field (XCUITest's `typeText`): `\u{8}` deletes, `\n`/`\r` submit,
    /// `\t` moves to the next field.
    public func type(_ text: String) throws {
        if let sc = scene { try sc.type(text); return }
        guard inFront, !alertShown, focus != nil else { throw NoFocus() }
        for c in text {
            guard let f = focus else { break }
            switch c {
            case "\u{8}":
                if f == "username" { if !username.isEmpty { username.removeLast() } }
                else if !password.isEmpty { password.removeLast() }
            case "\n", "\r", "\r\n":
                submit()
            case "\t":
                focus = f == "username" ? "password" : "username"
            case "\u{1B}":
                focus = nil
            case "\u{7F}":
                break  // forward delete: the cursor is always at the end here
            default:
                if f == "username" { username.append(c) } else { password.append(c) }
            }
        }
        changed()
    }

    public func home() {
        inFront = false
        focus = nil
        changed()
    }

    public func bringToFront() {
        inFront = true
        changed()
    }

    /// A deep link `mobridge-demo://login|home|alert`; false when nothing handles it.
    public func open(_ url: String) -> Bool {
        switch url {
        case "mobridge-demo://login": inFront = true; go(.login)
        case "mobridge-demo://home": inFront = true; go(.home)
        case "mobridge-demo://alert": inFront = true; alertShown = true; changed()
        default: return false
        }
        return true
    }

    // MARK: device control

    public func turn(landscape wanted: Bool) {
        if let sc = scene {
            if sc.landscape != wanted { sc.landscape = wanted; changed() }
            return
        }
        if wanted != landscape {
            landscape = wanted
            changed()
        }
    }

    public func volume(up: Bool) {
        volume = up ? min(16, volume + 1) : max(0, volume - 1)
    }

    /// Stops an app: the demo app's process dies (its state is gone, SpringBoard shows).
    public func terminate(_ bundleId: String) -> Outcome {
        guard apps.contains(where: { $0.appId == bundleId }) else { return .notFound("app \(bundleId) is not installed") }
        if bundleId == Self.bundleId {
            screen = .login
            username = ""
            password = ""
            showError = false
            alertShown = false
            focus = nil
            inFront = false
            changed()
        }
        return .success
    }

    /// Installs a host-mode package: JSON `{"appId", "name"}` of at most `maxPackage` bytes.
    public func install(package data: Data) -> Outcome {
        guard data.count <= Self.maxPackage,
              let doc = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              Set(doc.keys).isSubset(of: ["appId", "name"]),
              let id = doc["appId"] as? String, id.contains("."), id.count <= 255,
              doc["name"] == nil || doc["name"] is String else {
            return .failed("not a host-mode package: expected JSON {\"appId\", \"name\"} of at most \(Self.maxPackage) bytes")
        }
        if let known = apps.first(where: { $0.appId == id }), known.system {
            return .failed("\(id) is a system app; it cannot be replaced")
        }
        apps.removeAll { $0.appId == id }
        apps.append(InstalledApp(appId: id, name: doc["name"] as? String))
        return .installed(id)
    }

    public func uninstall(_ bundleId: String) -> Outcome {
        guard let known = apps.first(where: { $0.appId == bundleId }) else { return .notFound("app \(bundleId) is not installed") }
        if known.system { return .failed("\(bundleId) is a system app; it cannot be removed") }
        apps.removeAll { $0.appId == bundleId }
        return .success
    }

    private func setFocus(_ name: String) {
        focus = name
        changed()
    }

    private func submit() {
        if screen == .login { signIn() } else { focus = nil; changed() }
    }

    private func signIn() {
        if username == "demo" {
            password = ""
            showError = false
            go(.home)
        } else {
            showError = true
            changed()
        }
    }

    private func go(_ s: Screen) {
        screen = s
        focus = nil
        if s == .login { username = ""; password = "" }
        changed()
    }

    private func changed() { onChange() }
}
