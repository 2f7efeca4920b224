package dev.mobridge.agent.core.link;

import java.util.ArrayList;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * A whole capture: nodes in pre-order, windows, screen geometry. {@code capture} increases by one
 * per capture sent on one agent connection; {@code focus} is the handle of the input-focused node.
 */
public final class RawTree {
    public int capture;
    public Platform platform = Platform.ANDROID;
    public List<RawNode> nodes = new ArrayList<>();
    public List<RawWindow> windows = new ArrayList<>();
    public String packageName;
    public Integer focus;
    public int rotation;
    public int screenWidth;
    public int screenHeight;
    public boolean hasScreen;
    public boolean secure;
    /** Why the agent left nodes out (depth or node limit), or null: the capture is whole. */
    public String truncated;
    /** Capture health for the hub and {@code mobridge doctor} (e.g. a cache clear refused). */
    public List<String> warnings = new ArrayList<>();

    public void setScreen(int width, int height) {
        this.screenWidth = width;
        this.screenHeight = height;
        this.hasScreen = true;
    }

    public JSONObject toJson() {
        JsonOut o = new JsonOut();
        o.putInt("capture", capture);
        o.put("platform", platform.name());
        JSONArray ns = new JSONArray();
        int count = Math.min(nodes.size(), Texts.MAX_RAW_NODES);
        for (int i = 0; i < count; i++) {
            ns.put(nodes.get(i).toJson());
        }
        o.put("nodes", ns);
        RawMeta.of(this).writeInto(o);
        return o.obj;
    }

    public static RawTree fromJson(Object json, String where) throws BadMessageException {
        JsonIn in = JsonIn.of(json, where);
        RawTree t = new RawTree();
        t.capture = in.reqInt("capture");
        t.platform = in.reqEnum("platform", Platform.class);
        JSONArray ns = in.reqArray("nodes");
        if (ns.length() > Texts.MAX_RAW_NODES) {
            throw new BadMessageException(where + ".nodes: more than " + Texts.MAX_RAW_NODES);
        }
        for (int i = 0; i < ns.length(); i++) {
            t.nodes.add(RawNode.fromJson(ns.opt(i), where + ".nodes[" + i + "]"));
        }
        JSONArray ws = in.optArray("windows");
        for (int i = 0; i < ws.length(); i++) {
            t.windows.add(RawWindow.fromJson(ws.opt(i), where + ".windows[" + i + "]"));
        }
        t.packageName = in.optStringOrNull("package");
        t.focus = in.optIntOrNull("focus");
        t.rotation = in.optInt("rotation", 0);
        JSONObject screen = in.optObjectOrNull("screen");
        if (screen != null) {
            JsonIn s = new JsonIn(screen, where + ".screen");
            t.setScreen(s.reqInt("width"), s.reqInt("height"));
            s.finish();
        }
        t.secure = in.optBool("secure", false);
        t.truncated = in.optStringOrNull("truncated");
        t.warnings = in.optStringList("warnings");
        in.finish();
        return t;
    }
}
