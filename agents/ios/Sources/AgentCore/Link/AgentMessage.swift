/// Agent -> hub messages (bridge/wire/agent_link.py `AgentToHub`): hello, tree, tree_delta,
/// reply, status.
///
/// Encoding omits every field equal to its default; decoding (tests, and anything reading agent
/// output) is as strict as the hub's.

public enum AgentProtocol {
    /// The agent-link protocol version spoken here; a peer with another closes the link.
    public static let version = 1
}

/// Device facts sent in hello; everything but `id` is optional.
public struct DeviceInfo: Equatable, Sendable {
    public var id: String
    public var model: String?
    public var osVersion: String?
    public var width: Int?
    public var height: Int?

    public init(id: String, model: String? = nil, osVersion: String? = nil, width: Int? = nil, height: Int? = nil) {
        self.id = id
        self.model = model
        self.osVersion = osVersion
        self.width = width
        self.height = height
    }

    func toJson() -> Json {
        var o = JsonObject()
        o["id"] = .string(id)
        o.put("model", model.map(Json.string))
        o.put("osVersion", osVersion.map(Json.string))
        o.put("width", width.map { .int(Int64($0)) })
        o.put("height", height.map { .int(Int64($0)) })
        return .object(o)
    }
}

/// One installed app in an `apps` reply: its bundle id, its name when known, whether the
/// system ships it.
public struct InstalledApp: Equatable, Sendable {
    public var appId: String
    public var name: String?
    public var system: Bool

    public init(appId: String, name: String? = nil, system: Bool = false) {
        self.appId = appId
        self.name = name
        self.system = system
    }

    func toJson() -> Json {
        var o = JsonObject()
        o["appId"] = .string(appId)
        o.put("name", name.map(Json.string))
        if system { o["system"] = .bool(true) }
        return .object(o)
    }

    static func fromJson(_ v: Json, _ at: String) throws -> InstalledApp {
        var f = try JsonFields(v, at)
        let app = InstalledApp(appId: try f.reqString("appId"), name: try f.optString("name"),
                               system: try f.optBool("system", false))
        try f.finish()
        return app
    }
}

/// One alert on screen in an `alert list` reply: its title, its buttons in screen order, its
/// message when it has one, and whether the system shows it (a permission request).
public struct AlertInfo: Equatable, Sendable {
    public var title: String
    public var buttons: [String]
    public var message: String?
    public var system: Bool
    public static let maxButtons = 8

    public init(title: String, buttons: [String] = [], message: String? = nil, system: Bool = false) {
        self.title = title
        self.buttons = buttons
        self.message = message
        self.system = system
    }

    func toJson() -> Json {
        var o = JsonObject()
        o["title"] = .string(title)
        if !buttons.isEmpty { o["buttons"] = .array(buttons.map(Json.string)) }
        o.put("message", message.map(Json.string))
        if system { o["system"] = .bool(true) }
        return .object(o)
    }

    static func fromJson(_ v: Json, _ at: String) throws -> AlertInfo {
        var f = try JsonFields(v, at)
        let buttons = try f.optStrings("buttons")
        if buttons.count > maxButtons { throw JsonError("\(at).buttons: at most \(maxButtons)") }
        let a = AlertInfo(title: try f.reqString("title"), buttons: buttons, message: try f.optString("message"),
                          system: try f.optBool("system", false))
        try f.finish()
        return a
    }
}

/// The one answer to command `id`; a failure carries `code` and `message`; `apps` answers
/// `apps`, `appId` names what `install` installed.
public struct Reply: Equatable, Sendable {
    public var id: Int
    public var ok: Bool
    public var method: ActionMethod?
    public var code: String?
    public var message: String?
    public var tree: RawTree?
    public var text: String?
    public var pngBase64: String?
    public var apps: [InstalledApp]?
    public var appId: String?
    /// The alerts on screen (an `alert list` answer), else nil.
    public var alerts: [AlertInfo]?
    public static let maxApps = 4096
    public static let maxAlerts = 8

    public init(id: Int, ok: Bool) {
        self.id = id
        self.ok = ok
    }

    public static func failure(_ id: Int, _ code: ReplyCode, _ message: String) -> Reply {
        var r = Reply(id: id, ok: false)
        r.code = code.rawValue
        r.message = message
        return r
    }
}

public enum AgentMessage: Equatable, Sendable {
    case hello(protocolVersion: Int, platform: Platform, agentName: String, agentVersion: String,
               device: DeviceInfo, capabilities: [String])
    /// `reason`: initial, event or timer.
    case tree(reason: String, stable: Bool, tree: RawTree, quietMs: Int)
    /// A capture as its difference from the last tree sent on the link (`RawTreeDelta`).
    case treeDelta(TreeDelta)
    case reply(Reply)
    /// `state`: ready, degraded or stopping.
    case status(state: String, reason: String?)

    public func toJson() -> Json {
        var o = JsonObject()
        switch self {
        case .hello(let p, let platform, let name, let version, let device, let caps):
            o["type"] = .string("hello")
            o["protocol"] = .int(Int64(p))
            o["platform"] = .string(platform.rawValue)
            var a = JsonObject()
            a["name"] = .string(name)
            a["version"] = .string(version)
            o["agent"] = .object(a)
            o["device"] = device.toJson()
            if !caps.isEmpty { o["capabilities"] = .array(caps.map(Json.string)) }
        case .tree(let reason, let stable, let tree, let quiet):
            o["type"] = .string("tree")
            o["reason"] = .string(reason)
            o["stable"] = .bool(stable)
            o["tree"] = tree.toJson()
            if quiet != 0 { o["quietMs"] = .int(Int64(quiet)) }
        case .treeDelta(let d):
            return d.toJson()
        case .reply(let r):
            o["type"] = .string("reply")
            o["id"] = .int(Int64(r.id))
            o["ok"] = .bool(r.ok)
            o.put("method", r.method.map { .string($0.rawValue) })
            o.put("code", r.code.map(Json.string))
            o.put("message", r.message.map(Json.string))
            o.put("tree", r.tree?.toJson())
            o.put("text", r.text.map(Json.string))
            o.put("pngBase64", r.pngBase64.map(Json.string))
            o.put("apps", r.apps.map { .array($0.map { $0.toJson() }) })
            o.put("appId", r.appId.map(Json.string))
            o.put("alerts", r.alerts.map { .array($0.map { $0.toJson() }) })
        case .status(let state, let reason):
            o["type"] = .string("status")
            o["state"] = .string(state)
            o.put("reason", reason.map(Json.string))
        }
        return .object(o)
    }

    public func encode() -> String { toJson().encoded() }

    public static func decode(_ text: String) throws -> AgentMessage {
        try fromJson(try Json.parse(text))
    }

    public static func fromJson(_ v: Json) throws -> AgentMessage {
        var f = try JsonFields(v, "message")
        let type = try f.reqString("type")
        let m: AgentMessage
        switch type {
        case "hello":
            let p = try f.reqInt("protocol")
            let platform = try f.reqEnum("platform", Platform.self)
            var a = try JsonFields(try f.reqValue("agent"), "hello.agent")
            let name = try a.reqString("name")
            let version = try a.reqString("version")
            try a.finish()
            var d = try JsonFields(try f.reqValue("device"), "hello.device")
            let device = DeviceInfo(id: try d.reqString("id"), model: try d.optString("model"),
                                    osVersion: try d.optString("osVersion"), width: try d.optInt("width"),
                                    height: try d.optInt("height"))
            try d.finish()
            m = .hello(protocolVersion: p, platform: platform, agentName: name, agentVersion: version,
                       device: device, capabilities: try f.optStrings("capabilities"))
        case "tree":
            m = .tree(reason: try f.reqString("reason"), stable: try f.reqBool("stable"),
                      tree: try RawTree.fromJson(try f.reqValue("tree"), "tree.tree"),
                      quietMs: try f.optNonNegInt("quietMs", 0))
        case "tree_delta":
            var d = TreeDelta(reason: try f.reqString("reason"), stable: try f.reqBool("stable"),
                              base: try f.reqInt("base"), capture: try f.reqInt("capture"))
            d.remove = try f.optInts("remove")
            d.upsert = try f.optArray("upsert").enumerated().map {
                try RawNode.fromJson($1, "tree_delta.upsert[\($0)]")
            }
            d.order = try f.optIntLists("order")
            if let m = f.optValue("meta") { d.meta = try RawMeta.fromJson(m, "tree_delta.meta") }
            d.quietMs = try f.optNonNegInt("quietMs", 0)
            m = .treeDelta(d)
        case "reply":
            var r = Reply(id: try f.reqNonNegInt("id"), ok: try f.reqBool("ok"))
            r.method = try f.optEnum("method", ActionMethod.self)
            r.code = try f.optString("code")
            r.message = try f.optString("message")
            if let t = f.optValue("tree") { r.tree = try RawTree.fromJson(t, "reply.tree") }
            r.text = try f.optString("text")
            r.pngBase64 = try f.optString("pngBase64")
            if let raw = f.optValue("apps"), raw != .null {
                guard case .array(let items) = raw else { throw JsonError("reply.apps: expected an array") }
                if items.count > Reply.maxApps { throw JsonError("reply.apps: at most \(Reply.maxApps)") }
                r.apps = try items.enumerated().map { try InstalledApp.fromJson($1, "reply.apps[\($0)]") }
            }
            r.appId = try f.optString("appId")
            if let raw = f.optValue("alerts"), raw != .null {
                guard case .array(let items) = raw else { throw JsonError("reply.alerts: expected an array") }
                if items.count > Reply.maxAlerts { throw JsonError("reply.alerts: at most \(Reply.maxAlerts)") }
                r.alerts = try items.enumerated().map { try AlertInfo.fromJson($1, "reply.alerts[\($0)]") }
            }
            m = .reply(r)
        case "status":
            m = .status(state: try f.reqString("state"), reason: try f.optString("reason"))
        default:
            throw JsonError("unknown message type '\(type)'")
        }
        try f.finish()
        return m
    }
}
