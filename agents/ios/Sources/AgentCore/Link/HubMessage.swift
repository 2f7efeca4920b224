/// Hub -> agent messages (bridge/wire/agent_link.py `HubToAgent`), tagged by `type`.
///
/// Every message except `hello` is a command carrying an integer `id` >= 0 that the agent
/// answers with exactly one reply. Decoding is strict: unknown fields, unknown types, wrong
/// JSON types and out-of-range values fail with a `JsonError` naming the field.

/// What the hub believes a handle points at. Only the fields it sets are compared: the agent
/// refuses with IDENTITY_MISMATCH when a set field differs from the live element, so a stale
/// handle never acts on another element. Mismatch reasons name fields, never values.
public struct NodeIdentity: Equatable, Sendable {
    public var className: String?
    public var automationId: String?
    public var text: String?
    public var label: String?

    public init(className: String? = nil, automationId: String? = nil, text: String? = nil, label: String? = nil) {
        self.className = className
        self.automationId = automationId
        self.text = text
        self.label = label
    }

    /// Nil when the live values agree with every field this identity sets, else a reason.
    public func mismatch(className liveClass: String?, automationId liveId: String?, text liveText: String?, label liveLabel: String?) -> String? {
        var why: [String] = []
        func differs(_ name: String, _ expected: String?, _ live: String?) {
            if let e = expected, e != live { why.append(name + (live == nil ? " is absent" : " differs")) }
        }
        differs("className", className, liveClass)
        differs("automationId", automationId, liveId)
        differs("text", text, liveText)
        differs("label", label, liveLabel)
        return why.isEmpty ? nil : why.joined(separator: ", ")
    }

    public func toJson() -> Json {
        var o = JsonObject()
        o.put("className", className.map(Json.string))
        o.put("automationId", automationId.map(Json.string))
        o.put("text", text.map(Json.string))
        o.put("label", label.map(Json.string))
        return .object(o)
    }

    public static func fromJson(_ v: Json) throws -> NodeIdentity {
        var f = try JsonFields(v, "identity")
        let id = NodeIdentity(className: try f.optString("className"), automationId: try f.optString("automationId"),
                              text: try f.optString("text"), label: try f.optString("label"))
        try f.finish()
        return id
    }
}

public struct Point: Equatable, Sendable {
    public var x: Int
    public var y: Int
    public init(_ x: Int, _ y: Int) { self.x = x; self.y = y }
}

public struct NodeActionCommand: Equatable, Sendable {
    public var id: Int
    public var capture: Int
    public var handle: Int
    public var action: ActionVerb
    public var identity: NodeIdentity
    public var text: String?
    public var allowAncestor = true
    public var allowGesture = false

    public init(id: Int, capture: Int, handle: Int, action: ActionVerb, identity: NodeIdentity) {
        self.id = id
        self.capture = capture
        self.handle = handle
        self.action = action
        self.identity = identity
    }
}

/// One hub -> agent message.
public enum HubMessage: Equatable, Sendable {
    case hello(protocolVersion: Int, hub: String, token: String?)
    case capture(id: Int)
    case nodeAction(NodeActionCommand)
    /// `kind`: tap, double_tap, long_press or swipe.
    case gesture(id: Int, kind: String, points: [Point], durationMs: Int)
    case global(id: Int, action: GlobalAction)
    case key(id: Int, key: String)
    case text(id: Int, text: String)
    case app(id: Int, action: AppAction, appId: String?, uri: String?)
    case screenshot(id: Int)
    case clipboard(id: Int, set: String?)
    case ping(id: Int)
    /// Link options; sent only to an agent announcing the matching capability. `treeDelta`: the
    /// agent may push `tree_delta` messages from now on.
    case options(id: Int, treeDelta: Bool)
    /// List the installed apps (the reply carries `apps`).
    case apps(id: Int)
    case terminate(id: Int, appId: String)
    /// Clear an app's stored data; an iPhone cannot, so the agent answers UNSUPPORTED.
    case clear(id: Int, appId: String)
    /// Install the package the hub's device layer staged at `path`.
    case install(id: Int, path: String, sha256: String?)
    case uninstall(id: Int, appId: String)
    case orientation(id: Int, orientation: Orientation)
    /// The alerts on screen (`list`), or answer the top one: accept, dismiss, press `button`.
    case alert(id: Int, action: String, button: String?)
    /// Grant, revoke or reset an app's permission: an iPhone cannot (UNSUPPORTED).
    case permission(id: Int, action: String, appId: String, permission: String)
    /// Simulate the location; both nil: stop (the device layer does it on iOS: UNSUPPORTED).
    case location(id: Int, latitude: Double?, longitude: Double?)
    /// Two fingers around `center`: `pinch` (from `span` apart to span*scale) or `two_finger_tap`.
    case multiTouch(id: Int, kind: String, center: Point, scale: Double, span: Int, durationMs: Int)
    /// Hide the on-screen keyboard.
    case keyboard(id: Int)
    /// Airplane mode, Wi-Fi and mobile data (nil: leave as it is; all nil: read). An iPhone's
    /// runner cannot switch them: UNSUPPORTED (the hub refuses network.set on iOS first).
    case network(id: Int, airplane: Bool?, wifi: Bool?, data: Bool?)

    public static let maxGesturePoints = 64

    /// The command id; nil for `hello`.
    public var commandId: Int? {
        switch self {
        case .hello: return nil
        case .capture(let id), .screenshot(let id), .ping(let id): return id
        case .options(let id, _): return id
        case .apps(let id): return id
        case .terminate(let id, _), .clear(let id, _), .uninstall(let id, _), .install(let id, _, _), .orientation(let id, _):
            return id
        case .nodeAction(let c): return c.id
        case .alert(let id, _, _), .permission(let id, _, _, _), .location(let id, _, _),
             .multiTouch(let id, _, _, _, _, _), .keyboard(let id), .network(let id, _, _, _):
            return id
        case .gesture(let id, _, _, _), .global(let id, _), .key(let id, _), .text(let id, _),
             .app(let id, _, _, _), .clipboard(let id, _):
            return id
        }
    }

    /// The wire `type`.
    public var type: String {
        switch self {
        case .hello: return "hello"
        case .capture: return "capture"
        case .nodeAction: return "node_action"
        case .gesture: return "gesture"
        case .global: return "global"
        case .key: return "key"
        case .text: return "text"
        case .app: return "app"
        case .screenshot: return "screenshot"
        case .clipboard: return "clipboard"
        case .ping: return "ping"
        case .options: return "options"
        case .apps: return "apps"
        case .terminate: return "terminate"
        case .clear: return "clear"
        case .install: return "install"
        case .uninstall: return "uninstall"
        case .orientation: return "orientation"
        case .alert: return "alert"
        case .permission: return "permission"
        case .location: return "location"
        case .multiTouch: return "multi_touch"
        case .keyboard: return "keyboard"
        case .network: return "network"
        }
    }

    private static func oneOf(_ value: String, _ at: String, _ allowed: [String]) throws -> String {
        if !allowed.contains(value) { throw JsonError("\(at): one of \(allowed.joined(separator: ", "))") }
        return value
    }

    public static func decode(_ text: String) throws -> HubMessage {
        try fromJson(try Json.parse(text))
    }

    /// The `id` of a command when one can be read (used to answer a bad command), else nil.
    public static func peekId(_ text: String) -> Int? {
        guard case .object(let o)? = try? Json.parse(text), case .int(let n)? = o["id"], n >= 0,
              let id = Int(exactly: n) else { return nil }
        return id
    }

    private static func appId(_ f: inout JsonFields) throws -> String {
        let id = try f.reqString("appId")
        if id.isEmpty || id.unicodeScalars.count > 255 { throw JsonError("appId: 1 to 255 characters") }
        return id
    }

    public static func fromJson(_ v: Json) throws -> HubMessage {
        var f = try JsonFields(v, "message")
        let type = try f.reqString("type")
        let m: HubMessage
        switch type {
        case "hello":
            m = .hello(protocolVersion: try f.reqInt("protocol"), hub: try f.reqString("hub"), token: try f.optString("token"))
        case "capture":
            m = .capture(id: try f.reqNonNegInt("id"))
        case "node_action":
            var c = NodeActionCommand(id: try f.reqNonNegInt("id"), capture: try f.reqInt("capture"),
                                      handle: try f.reqInt("handle"), action: try f.reqEnum("action", ActionVerb.self),
                                      identity: try NodeIdentity.fromJson(try f.reqValue("identity")))
            c.text = try f.optString("text")
            c.allowAncestor = try f.optBool("allowAncestor", true)
            c.allowGesture = try f.optBool("allowGesture", false)
            m = .nodeAction(c)
        case "gesture":
            let id = try f.reqNonNegInt("id")
            let kind = try f.reqString("kind")
            let raw = try f.reqArray("points")
            if raw.isEmpty || raw.count > maxGesturePoints {
                throw JsonError("gesture.points: 1 to \(maxGesturePoints) points")
            }
            let points = try raw.enumerated().map { k, p -> Point in
                var pf = try JsonFields(p, "gesture.points[\(k)]")
                let pt = Point(try pf.reqInt("x"), try pf.reqInt("y"))
                try pf.finish()
                return pt
            }
            m = .gesture(id: id, kind: kind, points: points, durationMs: try f.optNonNegInt("durationMs", 0))
        case "global":
            m = .global(id: try f.reqNonNegInt("id"), action: try f.reqEnum("action", GlobalAction.self))
        case "key":
            m = .key(id: try f.reqNonNegInt("id"), key: try f.reqString("key"))
        case "text":
            m = .text(id: try f.reqNonNegInt("id"), text: try f.reqString("text"))
        case "app":
            m = .app(id: try f.reqNonNegInt("id"), action: try f.reqEnum("action", AppAction.self),
                     appId: try f.optString("appId"), uri: try f.optString("uri"))
        case "screenshot":
            m = .screenshot(id: try f.reqNonNegInt("id"))
        case "clipboard":
            m = .clipboard(id: try f.reqNonNegInt("id"), set: try f.optString("set"))
        case "ping":
            m = .ping(id: try f.reqNonNegInt("id"))
        case "options":
            m = .options(id: try f.reqNonNegInt("id"), treeDelta: try f.optBool("treeDelta", false))
        case "apps":
            m = .apps(id: try f.reqNonNegInt("id"))
        case "terminate":
            m = .terminate(id: try f.reqNonNegInt("id"), appId: try appId(&f))
        case "uninstall":
            m = .uninstall(id: try f.reqNonNegInt("id"), appId: try appId(&f))
        case "clear":
            m = .clear(id: try f.reqNonNegInt("id"), appId: try appId(&f))
        case "install":
            let id = try f.reqNonNegInt("id")
            let path = try f.reqString("path")
            if path.isEmpty || path.unicodeScalars.count > 1024 { throw JsonError("install.path: 1 to 1024 characters") }
            let sha = try f.optString("sha256")
            if let s = sha, s.count != 64 || !s.allSatisfy({ "0123456789abcdef".contains($0) }) {
                throw JsonError("install.sha256: 64 lowercase hex digits")
            }
            m = .install(id: id, path: path, sha256: sha)
        case "orientation":
            m = .orientation(id: try f.reqNonNegInt("id"), orientation: try f.reqEnum("orientation", Orientation.self))
        case "alert":
            let id = try f.reqNonNegInt("id")
            let action = try oneOf(try f.reqString("action"), "alert.action", ["list", "accept", "dismiss", "press"])
            let button = try f.optString("button")
            if let b = button, b.isEmpty || b.unicodeScalars.count > 128 { throw JsonError("alert.button: 1 to 128 characters") }
            m = .alert(id: id, action: action, button: button)
        case "permission":
            let id = try f.reqNonNegInt("id")
            let action = try oneOf(try f.reqString("action"), "permission.action", ["grant", "revoke", "reset"])
            let app = try appId(&f)
            let permission = try f.reqString("permission")
            if permission.isEmpty || permission.count > 32 { throw JsonError("permission.permission: 1 to 32 characters") }
            m = .permission(id: id, action: action, appId: app, permission: permission)
        case "location":
            let id = try f.reqNonNegInt("id")
            let lat = try f.optDouble("latitude"), lon = try f.optDouble("longitude")
            if (lat == nil) != (lon == nil) { throw JsonError("location: both latitude and longitude, or neither") }
            if let a = lat, let o = lon, abs(a) > 90 || abs(o) > 180 {
                throw JsonError("location: latitude -90..90, longitude -180..180")
            }
            m = .location(id: id, latitude: lat, longitude: lon)
        case "multi_touch":
            let id = try f.reqNonNegInt("id")
            let kind = try oneOf(try f.reqString("kind"), "multi_touch.kind", ["pinch", "two_finger_tap"])
            var cf = try JsonFields(try f.reqValue("center"), "multi_touch.center")
            let center = Point(try cf.reqInt("x"), try cf.reqInt("y"))
            try cf.finish()
            let scale = try f.optDouble("scale") ?? 1.0
            if scale < 0.1 || scale > 10 { throw JsonError("multi_touch.scale: 0.1 to 10") }
            let span = try f.optNonNegInt("span", 400)
            if span < 1 || span > 65535 { throw JsonError("multi_touch.span: 1 to 65535") }
            m = .multiTouch(id: id, kind: kind, center: center, scale: scale, span: span,
                            durationMs: try f.optNonNegInt("durationMs", 0))
        case "keyboard":
            let id = try f.reqNonNegInt("id")
            if let action = try f.optString("action"), action != "hide" { throw JsonError("keyboard.action: hide") }
            m = .keyboard(id: id)
        case "network":
            let id = try f.reqNonNegInt("id")
            m = .network(id: id, airplane: try f.optBoolOrNil("airplane"), wifi: try f.optBoolOrNil("wifi"),
                         data: try f.optBoolOrNil("data"))
        default:
            throw JsonError("unknown message type '\(type)'")
        }
        try f.finish()
        return m
    }

    public func toJson() -> Json {
        var o = JsonObject()
        o["type"] = .string(type)
        if let id = commandId { o["id"] = .int(Int64(id)) }
        switch self {
        case .hello(let p, let hub, let token):
            o["protocol"] = .int(Int64(p))
            o["hub"] = .string(hub)
            o.put("token", token.map(Json.string))
        case .capture, .screenshot, .ping, .apps:
            break
        case .terminate(_, let appId), .clear(_, let appId), .uninstall(_, let appId):
            o["appId"] = .string(appId)
        case .install(_, let path, let sha256):
            o["path"] = .string(path)
            o.put("sha256", sha256.map(Json.string))
        case .orientation(_, let orientation):
            o["orientation"] = .string(orientation.rawValue)
        case .nodeAction(let c):
            o["capture"] = .int(Int64(c.capture))
            o["handle"] = .int(Int64(c.handle))
            o["action"] = .string(c.action.rawValue)
            o["identity"] = c.identity.toJson()
            o.put("text", c.text.map(Json.string))
            if !c.allowAncestor { o["allowAncestor"] = .bool(false) }
            if c.allowGesture { o["allowGesture"] = .bool(true) }
        case .gesture(_, let kind, let points, let duration):
            o["kind"] = .string(kind)
            o["points"] = .array(points.map { p in
                var po = JsonObject()
                po["x"] = .int(Int64(p.x))
                po["y"] = .int(Int64(p.y))
                return .object(po)
            })
            if duration != 0 { o["durationMs"] = .int(Int64(duration)) }
        case .global(_, let action):
            o["action"] = .string(action.rawValue)
        case .key(_, let key):
            o["key"] = .string(key)
        case .text(_, let text):
            o["text"] = .string(text)
        case .app(_, let action, let appId, let uri):
            o["action"] = .string(action.rawValue)
            o.put("appId", appId.map(Json.string))
            o.put("uri", uri.map(Json.string))
        case .clipboard(_, let set):
            o.put("set", set.map(Json.string))
        case .options(_, let treeDelta):
            if treeDelta { o["treeDelta"] = .bool(true) }
        case .alert(_, let action, let button):
            o["action"] = .string(action)
            o.put("button", button.map(Json.string))
        case .permission(_, let action, let appId, let permission):
            o["action"] = .string(action)
            o["appId"] = .string(appId)
            o["permission"] = .string(permission)
        case .location(_, let lat, let lon):
            o.put("latitude", lat.map(Json.double))
            o.put("longitude", lon.map(Json.double))
        case .multiTouch(_, let kind, let center, let scale, let span, let duration):
            o["kind"] = .string(kind)
            var c = JsonObject()
            c["x"] = .int(Int64(center.x))
            c["y"] = .int(Int64(center.y))
            o["center"] = .object(c)
            if scale != 1.0 { o["scale"] = .double(scale) }
            if span != 400 { o["span"] = .int(Int64(span)) }
            if duration != 0 { o["durationMs"] = .int(Int64(duration)) }
        case .keyboard:
            break
        case .network(_, let airplane, let wifi, let data):
            o.put("airplane", airplane.map(Json.bool))
            o.put("wifi", wifi.map(Json.bool))
            o.put("data", data.map(Json.bool))
        }
        return .object(o)
    }

    public func encode() -> String { toJson().encoded() }
}
