package dev.mobridge.agent.core.link;

import java.util.ArrayList;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * Agent -> hub messages (bridge/wire/agent_link.py {@code AgentToHub}): hello, tree,
 * tree_delta, reply, status. Encoding omits every field equal to its default; decoding (used by tests and by
 * anything that reads agent output) is as strict as the hub's.
 */
public abstract class AgentMessage {
    public static final int PROTOCOL = 1;

    public final String type;

    protected AgentMessage(String type) {
        this.type = type;
    }

    public abstract JSONObject toJson();

    public String encode() {
        return toJson().toString();
    }

    public static AgentMessage decode(String text) throws BadMessageException {
        return fromJson(HubMessage.parseObject(text));
    }

    public static AgentMessage fromJson(JSONObject obj) throws BadMessageException {
        JsonIn in = new JsonIn(obj, "message");
        String type = in.reqString("type");
        AgentMessage m;
        switch (type) {
            case "hello": {
                int protocol = in.reqInt("protocol");
                Platform platform = in.reqEnum("platform", Platform.class);
                JsonIn a = new JsonIn(in.reqObject("agent"), "hello.agent");
                String name = a.reqString("name");
                String version = a.reqString("version");
                a.finish();
                JsonIn d = new JsonIn(in.reqObject("device"), "hello.device");
                DeviceInfo device = new DeviceInfo(d.reqString("id"));
                device.model = d.optStringOrNull("model");
                device.osVersion = d.optStringOrNull("osVersion");
                device.width = d.optIntOrNull("width");
                device.height = d.optIntOrNull("height");
                d.finish();
                m = new Hello(protocol, platform, name, version, device,
                        in.optStringList("capabilities"));
                break;
            }
            case "tree": {
                String reason = in.reqString("reason");
                boolean stable = in.reqBool("stable");
                RawTree tree = RawTree.fromJson(in.reqObject("tree"), "tree.tree");
                m = new Tree(reason, stable, tree, in.optNonNegInt("quietMs", 0));
                break;
            }
            case "tree_delta": {
                TreeDelta d = new TreeDelta(in.reqString("reason"), in.reqBool("stable"),
                        in.reqInt("base"), in.reqInt("capture"));
                d.remove.addAll(in.optIntList("remove"));
                JSONArray upsert = in.optArray("upsert");
                for (int i = 0; i < upsert.length(); i++) {
                    d.upsert.add(RawNode.fromJson(upsert.opt(i), "tree_delta.upsert[" + i + "]"));
                }
                d.order.putAll(in.optIntListMap("order"));
                JSONObject meta = in.optObjectOrNull("meta");
                d.meta = meta == null ? null : RawMeta.fromJson(meta, "tree_delta.meta");
                d.quietMs = in.optNonNegInt("quietMs", 0);
                m = d;
                break;
            }
            case "reply": {
                Reply r = new Reply(in.reqNonNegLong("id"), in.reqBool("ok"));
                r.method = in.optEnumOrNull("method", ActionMethod.class);
                r.code = in.optStringOrNull("code");
                r.message = in.optStringOrNull("message");
                JSONObject tree = in.optObjectOrNull("tree");
                r.tree = tree == null ? null : RawTree.fromJson(tree, "reply.tree");
                r.text = in.optStringOrNull("text");
                r.pngBase64 = in.optStringOrNull("pngBase64");
                JSONArray apps = in.optArrayOrNull("apps");
                if (apps != null) {
                    if (apps.length() > Reply.MAX_APPS) {
                        throw new BadMessageException("reply.apps: at most " + Reply.MAX_APPS);
                    }
                    r.apps = new ArrayList<>();
                    for (int i = 0; i < apps.length(); i++) {
                        r.apps.add(InstalledApp.fromJson(apps.opt(i), "reply.apps[" + i + "]"));
                    }
                }
                r.appId = in.optStringOrNull("appId");
                JSONArray alerts = in.optArrayOrNull("alerts");
                if (alerts != null) {
                    if (alerts.length() > Reply.MAX_ALERTS) {
                        throw new BadMessageException("reply.alerts: at most " + Reply.MAX_ALERTS);
                    }
                    r.alerts = new ArrayList<>();
                    for (int i = 0; i < alerts.length(); i++) {
                        r.alerts.add(AlertInfo.fromJson(alerts.opt(i), "reply.alerts[" + i + "]"));
                    }
                }
                m = r;
                break;
            }
            case "status":
                m = new Status(in.reqString("state"), in.optStringOrNull("reason"));
                break;
            default:
                throw new BadMessageException("unknown message type '" + type + "'");
        }
        in.finish();
        return m;
    }

    /** Device facts sent in hello; everything but {@code id} is optional. */
    public static final class DeviceInfo {
        public final String id;
        public String model;
        public String osVersion;
        public Integer width;
        public Integer height;

        public DeviceInfo(String id) {
            this.id = id;
        }

        JSONObject toJson() {
            return new JsonOut().put("id", id).putIfNotNull("model", model)
                    .putIfNotNull("osVersion", osVersion).putIfNotNull("width", width)
                    .putIfNotNull("height", height).obj;
        }
    }

    public static final class Hello extends AgentMessage {
        public final int protocol;
        public final Platform platform;
        public final String agentName;
        public final String agentVersion;
        public final DeviceInfo device;
        public final List<String> capabilities;

        public Hello(int protocol, Platform platform, String agentName, String agentVersion,
                DeviceInfo device, List<String> capabilities) {
            super("hello");
            this.protocol = protocol;
            this.platform = platform;
            this.agentName = agentName;
            this.agentVersion = agentVersion;
            this.device = device;
            this.capabilities = new ArrayList<>(capabilities);
        }

        @Override
        public JSONObject toJson() {
            return new JsonOut().put("type", type).putInt("protocol", protocol)
                    .put("platform", platform.name())
                    .put("agent", new JsonOut().put("name", agentName)
                            .put("version", agentVersion).obj)
                    .put("device", device.toJson()).putStrings("capabilities", capabilities).obj;
        }
    }

    /** A capture pushed because the screen changed; {@code reason}: initial, event or timer. */
    public static final class Tree extends AgentMessage {
        public final String reason;
        public final boolean stable;
        public final RawTree tree;
        public final int quietMs;

        public Tree(String reason, boolean stable, RawTree tree, int quietMs) {
            super("tree");
            this.reason = reason;
            this.stable = stable;
            this.tree = tree;
            this.quietMs = quietMs;
        }

        @Override
        public JSONObject toJson() {
            return new JsonOut().put("type", type).put("reason", reason).put("stable", stable)
                    .put("tree", tree.toJson()).putIntUnless("quietMs", quietMs, 0).obj;
        }
    }

    /**
     * A capture sent as its difference from the last tree sent on the link ({@code base}):
     * removed handles, new or changed nodes in full ({@code parent} is the parent's handle),
     * the new child lists of parents whose lists changed ({@code ""} for the roots), and the
     * tree-level fields when one changed. Built by {@link RawTreeDelta#between}.
     */
    public static final class TreeDelta extends AgentMessage {
        public final String reason;
        public final boolean stable;
        public final int base;
        public final int capture;
        public final List<Integer> remove = new ArrayList<>();
        public final List<RawNode> upsert = new ArrayList<>();
        public final java.util.LinkedHashMap<String, List<Integer>> order =
                new java.util.LinkedHashMap<>();
        public RawMeta meta;
        public int quietMs;

        public TreeDelta(String reason, boolean stable, int base, int capture) {
            super("tree_delta");
            this.reason = reason;
            this.stable = stable;
            this.base = base;
            this.capture = capture;
        }

        @Override
        public JSONObject toJson() {
            JsonOut o = new JsonOut().put("type", type).put("reason", reason)
                    .put("stable", stable).putInt("base", base).putInt("capture", capture);
            if (!remove.isEmpty()) {
                o.put("remove", new JSONArray(remove));
            }
            if (!upsert.isEmpty()) {
                JSONArray ns = new JSONArray();
                for (RawNode n : upsert) {
                    ns.put(n.toJson());
                }
                o.put("upsert", ns);
            }
            if (!order.isEmpty()) {
                JsonOut ord = new JsonOut();
                for (java.util.Map.Entry<String, List<Integer>> e : order.entrySet()) {
                    ord.put(e.getKey(), new JSONArray(e.getValue()));
                }
                o.put("order", ord.obj);
            }
            o.putIfNotNull("meta", meta == null ? null : meta.toJson());
            return o.putIntUnless("quietMs", quietMs, 0).obj;
        }
    }

    /** The one answer to command {@code id}; a failure carries {@code code} and {@code message}. */
    public static final class Reply extends AgentMessage {
        public static final String NOT_FOUND = "NOT_FOUND";
        public static final String IDENTITY_MISMATCH = "IDENTITY_MISMATCH";
        public static final String UNSUPPORTED = "UNSUPPORTED";
        public static final String FAILED = "FAILED";
        public static final String SECURE = "SECURE";
        public static final String BAD_COMMAND = "BAD_COMMAND";
        /** The node cannot be seen: off screen, or under another window (with a recovery). */
        public static final String NOT_VISIBLE = "NOT_VISIBLE";
        public static final int MAX_APPS = 4096;
        public static final int MAX_ALERTS = 8;

        public final long id;
        public final boolean ok;
        public ActionMethod method;
        public String code;
        public String message;
        public RawTree tree;
        public String text;
        public String pngBase64;
        /** The installed apps ({@code apps} command); null: not an apps reply. */
        public List<InstalledApp> apps;
        /** What an {@code install} installed, when known. */
        public String appId;
        /** The alerts on screen ({@code alert list}); null: not such a reply. */
        public List<AlertInfo> alerts;

        public Reply(long id, boolean ok) {
            super("reply");
            this.id = id;
            this.ok = ok;
        }

        public static Reply failure(long id, String code, String message) {
            Reply r = new Reply(id, false);
            r.code = code;
            r.message = message;
            return r;
        }

        @Override
        public JSONObject toJson() {
            JSONArray list = null;
            if (apps != null) {
                list = new JSONArray();
                for (InstalledApp a : apps) {
                    list.put(a.toJson());
                }
            }
            return new JsonOut().put("type", type).put("id", id).put("ok", ok)
                    .putIfNotNull("method", method == null ? null : method.name())
                    .putIfNotNull("code", code).putIfNotNull("message", message)
                    .putIfNotNull("tree", tree == null ? null : tree.toJson())
                    .putIfNotNull("text", text).putIfNotNull("pngBase64", pngBase64)
                    .putIfNotNull("apps", list).putIfNotNull("appId", appId)
                    .putIfNotNull("alerts", alertList()).obj;
        }

        private JSONArray alertList() {
            if (alerts == null) {
                return null;
            }
            JSONArray out = new JSONArray();
            for (AlertInfo a : alerts) {
                out.put(a.toJson());
            }
            return out;
        }
    }

    /** Health: {@code state} is ready, degraded or stopping. */
    public static final class Status extends AgentMessage {
        public final String state;
        public final String reason;

        public Status(String state, String reason) {
            super("status");
            this.state = state;
            this.reason = reason;
        }

        @Override
        public JSONObject toJson() {
            return new JsonOut().put("type", type).put("state", state)
                    .putIfNotNull("reason", reason).obj;
        }
    }
}
