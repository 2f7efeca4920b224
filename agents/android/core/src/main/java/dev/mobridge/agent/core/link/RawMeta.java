package dev.mobridge.agent.core.link;

import java.util.ArrayList;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * A capture's tree-level fields (bridge/wire/agent_link.py {@code RawMeta}): a {@link RawTree}
 * without {@code capture}, {@code platform} and {@code nodes}. A {@code tree_delta} carries it
 * when any of them changed.
 */
public final class RawMeta {
    public List<RawWindow> windows = new ArrayList<>();
    public String packageName;
    public Integer focus;
    public int rotation;
    public int screenWidth;
    public int screenHeight;
    public boolean hasScreen;
    public boolean secure;
    /** Why the agent left nodes out while capturing, or null (bridge/wire/raw.py). */
    public String truncated;
    /** Capture health the agent reports (at most {@link #MAX_WARNINGS}, each clipped). */
    public List<String> warnings = new ArrayList<>();

    public static final int MAX_WARNINGS = 8;
    public static final int MAX_WARNING_CHARS = 300;

    public static RawMeta of(RawTree tree) {
        RawMeta m = new RawMeta();
        m.windows = new ArrayList<>(tree.windows);
        m.packageName = tree.packageName;
        m.focus = tree.focus;
        m.rotation = tree.rotation;
        m.screenWidth = tree.screenWidth;
        m.screenHeight = tree.screenHeight;
        m.hasScreen = tree.hasScreen;
        m.secure = tree.secure;
        m.truncated = tree.truncated;
        m.warnings = new ArrayList<>(tree.warnings);
        return m;
    }

    public JSONObject toJson() {
        JsonOut o = new JsonOut();
        writeInto(o);
        return o.obj;
    }

    /** Adds these fields to {@code o} (a {@link RawTree} writes them after its nodes). */
    void writeInto(JsonOut o) {
        if (!windows.isEmpty()) {
            JSONArray ws = new JSONArray();
            for (RawWindow w : windows) {
                ws.put(w.toJson());
            }
            o.put("windows", ws);
        }
        o.putIfNotNull("package", packageName);
        o.putIfNotNull("focus", focus);
        o.putIntUnless("rotation", rotation, 0);
        if (hasScreen) {
            o.put("screen", new JsonOut().putInt("width", screenWidth)
                    .putInt("height", screenHeight).obj);
        }
        o.putBoolUnless("secure", secure, false);
        o.putIfNotNull("truncated", clipWarning(truncated));
        if (!warnings.isEmpty()) {
            List<String> ws = new ArrayList<>();
            for (String w : warnings.subList(0, Math.min(MAX_WARNINGS, warnings.size()))) {
                ws.add(clipWarning(w));
            }
            o.putStrings("warnings", ws);
        }
    }

    static String clipWarning(String s) {
        return s == null || s.length() <= MAX_WARNING_CHARS ? s
                : s.substring(0, MAX_WARNING_CHARS);
    }

    /** The same fields (compared as the hub would read them). */
    public boolean sameAs(RawMeta other) {
        return JsonTreesEqual.same(toJson(), other.toJson());
    }

    public static RawMeta fromJson(Object json, String where) throws BadMessageException {
        JsonIn in = JsonIn.of(json, where);
        RawMeta m = new RawMeta();
        JSONArray ws = in.optArray("windows");
        for (int i = 0; i < ws.length(); i++) {
            m.windows.add(RawWindow.fromJson(ws.opt(i), where + ".windows[" + i + "]"));
        }
        m.packageName = in.optStringOrNull("package");
        m.focus = in.optIntOrNull("focus");
        m.rotation = in.optInt("rotation", 0);
        JSONObject screen = in.optObjectOrNull("screen");
        if (screen != null) {
            JsonIn s = new JsonIn(screen, where + ".screen");
            m.screenWidth = s.reqInt("width");
            m.screenHeight = s.reqInt("height");
            m.hasScreen = true;
            s.finish();
        }
        m.secure = in.optBool("secure", false);
        m.truncated = in.optStringOrNull("truncated");
        m.warnings = in.optStringList("warnings");
        in.finish();
        return m;
    }
}
