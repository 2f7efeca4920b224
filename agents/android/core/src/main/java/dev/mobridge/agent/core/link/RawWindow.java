package dev.mobridge.agent.core.link;

import org.json.JSONObject;

/**
 * A window of a capture. {@code type}: application, input_method, system,
 * accessibility_overlay, split_screen_divider or unknown.
 */
public final class RawWindow {
    public int id;
    public String type = "application";
    public int layer;
    public String packageName;
    public String title;
    public boolean active;
    public boolean focused;
    public int[] bounds;

    public JSONObject toJson() {
        JsonOut o = new JsonOut();
        o.putInt("id", id);
        o.putStringUnless("type", type, "application");
        o.putIntUnless("layer", layer, 0);
        o.putIfNotNull("package", packageName);
        o.putIfNotNull("title", title);
        o.putBoolUnless("active", active, false);
        o.putBoolUnless("focused", focused, false);
        o.putBounds("bounds", bounds);
        return o.obj;
    }

    public static RawWindow fromJson(Object json, String where) throws BadMessageException {
        JsonIn in = JsonIn.of(json, where);
        RawWindow w = new RawWindow();
        w.id = in.reqInt("id");
        w.type = in.optString("type", "application");
        w.layer = in.optInt("layer", 0);
        w.packageName = in.optStringOrNull("package");
        w.title = in.optStringOrNull("title");
        w.active = in.optBool("active", false);
        w.focused = in.optBool("focused", false);
        w.bounds = in.optBoundsOrNull("bounds");
        in.finish();
        return w;
    }
}
