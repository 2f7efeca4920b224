package dev.mobridge.agent.core.link;

import java.util.ArrayList;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;
import org.json.JSONTokener;

/**
 * Hub -> agent messages (bridge/wire/agent_link.py {@code HubToAgent}), tagged by {@code type}.
 * Every message except {@link Hello} is a command carrying an integer {@code id} >= 0 that the
 * agent answers with exactly one reply. Decoding is strict: unknown fields or types fail.
 */
public abstract class HubMessage {
    public final String type;

    protected HubMessage(String type) {
        this.type = type;
    }

    public abstract JSONObject toJson();

    public String encode() {
        return toJson().toString();
    }

    /** Parses one JSON text. */
    public static HubMessage decode(String text) throws BadMessageException {
        return fromJson(parseObject(text));
    }

    static JSONObject parseObject(String text) throws BadMessageException {
        try {
            JSONTokener tokener = new JSONTokener(text);
            Object v = tokener.nextValue();
            if (!(v instanceof JSONObject)) {
                throw new BadMessageException("message is not a JSON object");
            }
            if (tokener.nextClean() != 0) {
                throw new BadMessageException("trailing data after the JSON object");
            }
            return (JSONObject) v;
        } catch (JSONException e) {
            throw new BadMessageException("invalid JSON: " + e.getMessage());
        }
    }

    /** The {@code id} of a command if one can be read, else -1; used to answer bad commands. */
    public static long peekId(String text) {
        try {
            Object id = parseObject(text).opt("id");
            if ((id instanceof Integer || id instanceof Long) && ((Number) id).longValue() >= 0) {
                return ((Number) id).longValue();
            }
        } catch (BadMessageException ignored) {
            // Fall through: no id to answer.
        }
        return -1;
    }

    public static HubMessage fromJson(JSONObject obj) throws BadMessageException {
        JsonIn in = new JsonIn(obj, "message");
        String type = in.reqString("type");
        HubMessage m;
        switch (type) {
            case "hello":
                m = new Hello(in.reqInt("protocol"), in.reqString("hub"),
                        in.optStringOrNull("token"));
                break;
            case "capture":
                m = new Capture(in.reqNonNegLong("id"));
                break;
            case "node_action": {
                long id = in.reqNonNegLong("id");
                int capture = in.reqInt("capture");
                int handle = in.reqInt("handle");
                ActionVerb action = in.reqEnum("action", ActionVerb.class);
                NodeIdentity identity = NodeIdentity.fromJson(in.reqObject("identity"));
                NodeAction na = new NodeAction(id, capture, handle, action, identity);
                na.text = in.optStringOrNull("text");
                na.allowAncestor = in.optBool("allowAncestor", true);
                na.allowGesture = in.optBool("allowGesture", false);
                m = na;
                break;
            }
            case "gesture": {
                long id = in.reqNonNegLong("id");
                String kind = in.reqString("kind");
                JSONArray pts = in.reqArray("points");
                if (pts.length() < 1 || pts.length() > 64) {
                    throw new BadMessageException("gesture.points: 1 to 64 points");
                }
                List<int[]> points = new ArrayList<>();
                for (int i = 0; i < pts.length(); i++) {
                    JsonIn p = JsonIn.of(pts.opt(i), "gesture.points[" + i + "]");
                    points.add(new int[] {p.reqInt("x"), p.reqInt("y")});
                    p.finish();
                }
                m = new Gesture(id, kind, points, in.optNonNegInt("durationMs", 0));
                break;
            }
            case "global":
                m = new Global(in.reqNonNegLong("id"), in.reqEnum("action", GlobalAction.class));
                break;
            case "key":
                m = new Key(in.reqNonNegLong("id"), in.reqString("key"));
                break;
            case "text":
                m = new Text(in.reqNonNegLong("id"), in.reqString("text"));
                break;
            case "app":
                m = new App(in.reqNonNegLong("id"), in.reqEnum("action", AppAction.class),
                        in.optStringOrNull("appId"), in.optStringOrNull("uri"));
                break;
            case "screenshot":
                m = new Screenshot(in.reqNonNegLong("id"));
                break;
            case "clipboard":
                m = new Clipboard(in.reqNonNegLong("id"), in.optStringOrNull("set"));
                break;
            case "ping":
                m = new Ping(in.reqNonNegLong("id"));
                break;
            case "options":
                m = new Options(in.reqNonNegLong("id"), in.optBool("treeDelta", false));
                break;
            case "apps":
                m = new Apps(in.reqNonNegLong("id"));
                break;
            case "terminate":
                m = new Terminate(in.reqNonNegLong("id"), appId(in));
                break;
            case "uninstall":
                m = new Uninstall(in.reqNonNegLong("id"), appId(in));
                break;
            case "clear":
                m = new Clear(in.reqNonNegLong("id"), appId(in));
                break;
            case "install": {
                long id = in.reqNonNegLong("id");
                String path = in.reqString("path");
                if (path.isEmpty() || path.length() > 1024) {
                    throw new BadMessageException("install.path: 1 to 1024 characters");
                }
                String sha = in.optStringOrNull("sha256");
                if (sha != null && !sha.matches("[0-9a-f]{64}")) {
                    throw new BadMessageException("install.sha256: 64 lowercase hex digits");
                }
                m = new Install(id, path, sha);
                break;
            }
            case "orientation": {
                long id = in.reqNonNegLong("id");
                String o = in.reqString("orientation");
                if (!o.equals(Orientation.PORTRAIT) && !o.equals(Orientation.LANDSCAPE)) {
                    throw new BadMessageException("orientation.orientation: portrait or landscape");
                }
                m = new Orientation(id, o);
                break;
            }
            case "alert": {
                long id = in.reqNonNegLong("id");
                String action = oneOf(in.reqString("action"), "alert.action", "list", "accept",
                        "dismiss", "press");
                String button = in.optStringOrNull("button");
                if (button != null && (button.isEmpty() || button.length() > 128)) {
                    throw new BadMessageException("alert.button: 1 to 128 characters");
                }
                m = new Alert(id, action, button);
                break;
            }
            case "permission": {
                long id = in.reqNonNegLong("id");
                String action = oneOf(in.reqString("action"), "permission.action", "grant",
                        "revoke", "reset");
                String app = appId(in);
                String permission = in.reqString("permission");
                if (permission.isEmpty() || permission.length() > 32) {
                    throw new BadMessageException("permission.permission: 1 to 32 characters");
                }
                m = new Permission(id, action, app, permission);
                break;
            }
            case "location": {
                long id = in.reqNonNegLong("id");
                Double lat = in.optDoubleOrNull("latitude");
                Double lon = in.optDoubleOrNull("longitude");
                if ((lat == null) != (lon == null)) {
                    throw new BadMessageException("location: both latitude and longitude, or neither");
                }
                if (lat != null && (Math.abs(lat) > 90 || Math.abs(lon) > 180)) {
                    throw new BadMessageException("location: latitude -90..90, longitude -180..180");
                }
                m = new Location(id, lat, lon);
                break;
            }
            case "network": {
                long id = in.reqNonNegLong("id");
                m = new Network(id, in.optBoolOrNull("airplane"), in.optBoolOrNull("wifi"),
                        in.optBoolOrNull("data"));
                break;
            }
            case "multi_touch": {
                long id = in.reqNonNegLong("id");
                String kind = oneOf(in.reqString("kind"), "multi_touch.kind", "pinch",
                        "two_finger_tap");
                JsonIn c = JsonIn.of(in.reqObject("center"), "multi_touch.center");
                int[] center = {c.reqInt("x"), c.reqInt("y")};
                c.finish();
                Double scale = in.optDoubleOrNull("scale");
                double s = scale == null ? 1.0 : scale;
                if (s < 0.1 || s > 10.0) {
                    throw new BadMessageException("multi_touch.scale: 0.1 to 10");
                }
                int span = in.optNonNegInt("span", 400);
                if (span < 1 || span > 65535) {
                    throw new BadMessageException("multi_touch.span: 1 to 65535");
                }
                m = new MultiTouch(id, kind, center, s, span, in.optNonNegInt("durationMs", 0));
                break;
            }
            case "keyboard": {
                long id = in.reqNonNegLong("id");
                m = new Keyboard(id, oneOf(in.optString("action", "hide"), "keyboard.action",
                        "hide"));
                break;
            }
            default:
                throw new BadMessageException("unknown message type '" + type + "'");
        }
        in.finish();
        return m;
    }

    private static String oneOf(String value, String where, String... allowed)
            throws BadMessageException {
        for (String a : allowed) {
            if (a.equals(value)) {
                return value;
            }
        }
        throw new BadMessageException(where + ": one of " + String.join(", ", allowed));
    }

    private static String appId(JsonIn in) throws BadMessageException {
        String appId = in.reqString("appId");
        if (appId.isEmpty() || appId.length() > 255) {
            throw new BadMessageException("appId: 1 to 255 characters");
        }
        return appId;
    }

    /** {@code {"type":"hello","protocol":1,"hub":"..."}}; {@code token} is optional. */
    public static final class Hello extends HubMessage {
        public final int protocol;
        public final String hub;
        public final String token;

        public Hello(int protocol, String hub, String token) {
            super("hello");
            this.protocol = protocol;
            this.hub = hub;
            this.token = token;
        }

        @Override
        public JSONObject toJson() {
            return new JsonOut().put("type", type).putInt("protocol", protocol).put("hub", hub)
                    .putIfNotNull("token", token).obj;
        }
    }

    /** A command: any hub message that carries an id and expects one reply. */
    public abstract static class Command extends HubMessage {
        public final long id;

        protected Command(String type, long id) {
            super(type);
            this.id = id;
        }

        protected JsonOut head() {
            return new JsonOut().put("type", type).put("id", id);
        }
    }

    public static final class Capture extends Command {
        public Capture(long id) {
            super("capture", id);
        }

        @Override
        public JSONObject toJson() {
            return head().obj;
        }
    }

    public static final class NodeAction extends Command {
        public final int capture;
        public final int handle;
        public final ActionVerb action;
        public final NodeIdentity identity;
        public String text;
        public boolean allowAncestor = true;
        public boolean allowGesture;

        public NodeAction(long id, int capture, int handle, ActionVerb action,
                NodeIdentity identity) {
            super("node_action", id);
            this.capture = capture;
            this.handle = handle;
            this.action = action;
            this.identity = identity;
        }

        @Override
        public JSONObject toJson() {
            return head().putInt("capture", capture).putInt("handle", handle)
                    .put("action", action.name()).put("identity", identity.toJson())
                    .putIfNotNull("text", text)
                    .putBoolUnless("allowAncestor", allowAncestor, true)
                    .putBoolUnless("allowGesture", allowGesture, false).obj;
        }
    }

    /** {@code kind}: tap, double_tap, long_press or swipe; points are [x, y] pairs. */
    public static final class Gesture extends Command {
        public final String kind;
        public final List<int[]> points;
        public final int durationMs;

        public Gesture(long id, String kind, List<int[]> points, int durationMs) {
            super("gesture", id);
            this.kind = kind;
            this.points = points;
            this.durationMs = durationMs;
        }

        @Override
        public JSONObject toJson() {
            JSONArray pts = new JSONArray();
            for (int[] p : points) {
                pts.put(new JsonOut().putInt("x", p[0]).putInt("y", p[1]).obj);
            }
            return head().put("kind", kind).put("points", pts)
                    .putIntUnless("durationMs", durationMs, 0).obj;
        }
    }

    public static final class Global extends Command {
        public final GlobalAction action;

        public Global(long id, GlobalAction action) {
            super("global", id);
            this.action = action;
        }

        @Override
        public JSONObject toJson() {
            return head().put("action", action.name()).obj;
        }
    }

    /** A key press by name (ENTER, DEL, TAB, ...). */
    public static final class Key extends Command {
        public final String key;

        public Key(long id, String key) {
            super("key", id);
            this.key = key;
        }

        @Override
        public JSONObject toJson() {
            return head().put("key", key).obj;
        }
    }

    /** Type text into the focused input. */
    public static final class Text extends Command {
        public final String text;

        public Text(long id, String text) {
            super("text", id);
            this.text = text;
        }

        @Override
        public JSONObject toJson() {
            return head().put("text", text).obj;
        }
    }

    public static final class App extends Command {
        public final AppAction action;
        public final String appId;
        public final String uri;

        public App(long id, AppAction action, String appId, String uri) {
            super("app", id);
            this.action = action;
            this.appId = appId;
            this.uri = uri;
        }

        @Override
        public JSONObject toJson() {
            return head().put("action", action.name()).putIfNotNull("appId", appId)
                    .putIfNotNull("uri", uri).obj;
        }
    }

    public static final class Screenshot extends Command {
        public Screenshot(long id) {
            super("screenshot", id);
        }

        @Override
        public JSONObject toJson() {
            return head().obj;
        }
    }

    /** Read the clipboard, or set it when {@code set} is non-null. */
    public static final class Clipboard extends Command {
        public final String set;

        public Clipboard(long id, String set) {
            super("clipboard", id);
            this.set = set;
        }

        @Override
        public JSONObject toJson() {
            return head().putIfNotNull("set", set).obj;
        }
    }

    public static final class Ping extends Command {
        public Ping(long id) {
            super("ping", id);
        }

        @Override
        public JSONObject toJson() {
            return head().obj;
        }
    }

    /**
     * Link options; sent only to an agent announcing the matching capability. {@code
     * treeDelta}: the agent may push {@code tree_delta} messages from now on.
     */
    public static final class Options extends Command {
        public final boolean treeDelta;

        public Options(long id, boolean treeDelta) {
            super("options", id);
            this.treeDelta = treeDelta;
        }

        @Override
        public JSONObject toJson() {
            return head().putBoolUnless("treeDelta", treeDelta, false).obj;
        }
    }

    /** List the installed apps; the reply carries {@code apps}. */
    public static final class Apps extends Command {
        public Apps(long id) {
            super("apps", id);
        }

        @Override
        public JSONObject toJson() {
            return head().obj;
        }
    }

    /** Stop an app's process. */
    public static final class Terminate extends Command {
        public final String appId;

        public Terminate(long id, String appId) {
            super("terminate", id);
            this.appId = appId;
        }

        @Override
        public JSONObject toJson() {
            return head().put("appId", appId).obj;
        }
    }

    /** The alerts on screen ({@code list}), or answer the top one (accept, dismiss, press). */
    public static final class Alert extends Command {
        public final String action;
        public final String button;

        public Alert(long id, String action, String button) {
            super("alert", id);
            this.action = action;
            this.button = button;
        }

        @Override
        public JSONObject toJson() {
            return head().put("action", action).putIfNotNull("button", button).obj;
        }
    }

    /** Grant, revoke or reset an app's permission (a mobridge permission name). */
    public static final class Permission extends Command {
        public final String action;
        public final String appId;
        public final String permission;

        public Permission(long id, String action, String appId, String permission) {
            super("permission", id);
            this.action = action;
            this.appId = appId;
            this.permission = permission;
        }

        @Override
        public JSONObject toJson() {
            return head().put("action", action).put("appId", appId)
                    .put("permission", permission).obj;
        }
    }

    /** Simulate the location (degrees); both null: stop simulating it. */
    public static final class Location extends Command {
        public final Double latitude;
        public final Double longitude;

        public Location(long id, Double latitude, Double longitude) {
            super("location", id);
            this.latitude = latitude;
            this.longitude = longitude;
        }

        @Override
        public JSONObject toJson() {
            return head().putIfNotNull("latitude", latitude).putIfNotNull("longitude", longitude)
                    .obj;
        }
    }

    /**
     * Airplane mode, Wi-Fi and mobile data: each null leaves it as it is; all null reads the
     * state. The agent answers it UNSUPPORTED (the hub switches them agentless through adb).
     */
    public static final class Network extends Command {
        public final Boolean airplane;
        public final Boolean wifi;
        public final Boolean data;

        public Network(long id, Boolean airplane, Boolean wifi, Boolean data) {
            super("network", id);
            this.airplane = airplane;
            this.wifi = wifi;
            this.data = data;
        }

        @Override
        public JSONObject toJson() {
            return head().putIfNotNull("airplane", airplane).putIfNotNull("wifi", wifi)
                    .putIfNotNull("data", data).obj;
        }
    }

    /** Two fingers around {@code center}: a pinch from {@code span} to span*scale, or a tap. */
    public static final class MultiTouch extends Command {
        public final String kind;
        public final int[] center;
        public final double scale;
        public final int span;
        public final int durationMs;

        public MultiTouch(long id, String kind, int[] center, double scale, int span,
                int durationMs) {
            super("multi_touch", id);
            this.kind = kind;
            this.center = center;
            this.scale = scale;
            this.span = span;
            this.durationMs = durationMs;
        }

        @Override
        public JSONObject toJson() {
            JsonOut o = head().put("kind", kind)
                    .put("center", new JsonOut().putInt("x", center[0]).putInt("y", center[1]).obj);
            if (scale != 1.0) {
                o.put("scale", scale);
            }
            return o.putIntUnless("span", span, 400).putIntUnless("durationMs", durationMs, 0).obj;
        }
    }

    /** Hide the on-screen keyboard. */
    public static final class Keyboard extends Command {
        public final String action;

        public Keyboard(long id, String action) {
            super("keyboard", id);
            this.action = action;
        }

        @Override
        public JSONObject toJson() {
            return head().obj;
        }
    }

    /** Clear an app's stored data ({@code pm clear}); the app is stopped with it. */
    public static final class Clear extends Command {
        public final String appId;

        public Clear(long id, String appId) {
            super("clear", id);
            this.appId = appId;
        }

        @Override
        public JSONObject toJson() {
            return head().put("appId", appId).obj;
        }
    }

    /** Install the package the hub's device layer staged at {@code path} on the device. */
    public static final class Install extends Command {
        public final String path;
        public final String sha256;

        public Install(long id, String path, String sha256) {
            super("install", id);
            this.path = path;
            this.sha256 = sha256;
        }

        @Override
        public JSONObject toJson() {
            return head().put("path", path).putIfNotNull("sha256", sha256).obj;
        }
    }

    public static final class Uninstall extends Command {
        public final String appId;

        public Uninstall(long id, String appId) {
            super("uninstall", id);
            this.appId = appId;
        }

        @Override
        public JSONObject toJson() {
            return head().put("appId", appId).obj;
        }
    }

    /** Turn the screen: {@code orientation} is "portrait" or "landscape". */
    public static final class Orientation extends Command {
        public static final String PORTRAIT = "portrait";
        public static final String LANDSCAPE = "landscape";
        public final String orientation;

        public Orientation(long id, String orientation) {
            super("orientation", id);
            this.orientation = orientation;
        }

        @Override
        public JSONObject toJson() {
            return head().put("orientation", orientation).obj;
        }
    }
}
