package dev.mobridge.agent.core.link;

import java.util.ArrayList;
import java.util.List;
import org.json.JSONObject;

/**
 * One raw element of a capture (bridge/wire/raw.py {@code RawNode}). {@code parent} is the
 * index of an earlier node in the capture's pre-order list, or -1 for a root; {@code handle} is
 * agent-local and valid only for the capture that produced it. Password values are never set.
 */
public final class RawNode {
    public int handle;
    public int parent = -1;
    public int window;
    public String className;
    public String text;
    public String label;
    public String value;
    public String hint;
    public String automationId;
    public String packageName;
    public int[] bounds;
    public boolean clickable;
    public boolean longClickable;
    public boolean checkable;
    public boolean checked;
    public boolean enabled = true;
    public boolean focusable;
    public boolean focused;
    public boolean selected;
    public boolean scrollable;
    public boolean editable;
    public boolean password;
    public boolean visible = true;
    public Boolean hittable;
    public boolean heading;
    public List<String> actions = new ArrayList<>();
    public List<String> traits = new ArrayList<>();
    public Integer collectionRows;
    public Integer collectionCols;
    public Integer itemRow;
    public Integer itemCol;
    public Double rangeValue;

    /** A copy (lists copied; strings and bounds shared: they are never mutated in place). */
    public RawNode copy() {
        RawNode n = new RawNode();
        n.handle = handle;
        n.parent = parent;
        n.window = window;
        n.className = className;
        n.text = text;
        n.label = label;
        n.value = value;
        n.hint = hint;
        n.automationId = automationId;
        n.packageName = packageName;
        n.bounds = bounds;
        n.clickable = clickable;
        n.longClickable = longClickable;
        n.checkable = checkable;
        n.checked = checked;
        n.enabled = enabled;
        n.focusable = focusable;
        n.focused = focused;
        n.selected = selected;
        n.scrollable = scrollable;
        n.editable = editable;
        n.password = password;
        n.visible = visible;
        n.hittable = hittable;
        n.heading = heading;
        n.actions = new ArrayList<>(actions);
        n.traits = new ArrayList<>(traits);
        n.collectionRows = collectionRows;
        n.collectionCols = collectionCols;
        n.itemRow = itemRow;
        n.itemCol = itemCol;
        n.rangeValue = rangeValue;
        return n;
    }

    public JSONObject toJson() {
        JsonOut o = new JsonOut();
        o.putInt("handle", handle);
        o.putInt("parent", parent);
        o.putIntUnless("window", window, 0);
        o.putIfNotNull("className", Texts.clip(className));
        o.putIfNotNull("text", password ? null : Texts.clip(text));
        o.putIfNotNull("label", Texts.clip(label));
        o.putIfNotNull("value", password ? null : Texts.clip(value));
        o.putIfNotNull("hint", Texts.clip(hint));
        o.putIfNotNull("automationId", Texts.clip(automationId));
        o.putIfNotNull("package", Texts.clip(packageName));
        o.putBounds("bounds", bounds);
        o.putBoolUnless("clickable", clickable, false);
        o.putBoolUnless("longClickable", longClickable, false);
        o.putBoolUnless("checkable", checkable, false);
        o.putBoolUnless("checked", checked, false);
        o.putBoolUnless("enabled", enabled, true);
        o.putBoolUnless("focusable", focusable, false);
        o.putBoolUnless("focused", focused, false);
        o.putBoolUnless("selected", selected, false);
        o.putBoolUnless("scrollable", scrollable, false);
        o.putBoolUnless("editable", editable, false);
        o.putBoolUnless("password", password, false);
        o.putBoolUnless("visible", visible, true);
        o.putIfNotNull("hittable", hittable);
        o.putBoolUnless("heading", heading, false);
        o.putStrings("actions", actions);
        o.putStrings("traits", traits);
        o.putIfNotNull("collectionRows", collectionRows);
        o.putIfNotNull("collectionCols", collectionCols);
        o.putIfNotNull("itemRow", itemRow);
        o.putIfNotNull("itemCol", itemCol);
        o.putIfNotNull("rangeValue", rangeValue);
        return o.obj;
    }

    public static RawNode fromJson(Object json, String where) throws BadMessageException {
        JsonIn in = JsonIn.of(json, where);
        RawNode n = new RawNode();
        n.handle = in.reqInt("handle");
        n.parent = in.reqInt("parent");
        n.window = in.optInt("window", 0);
        n.className = text(in, "className");
        n.text = text(in, "text");
        n.label = text(in, "label");
        n.value = text(in, "value");
        n.hint = text(in, "hint");
        n.automationId = text(in, "automationId");
        n.packageName = text(in, "package");
        n.bounds = in.optBoundsOrNull("bounds");
        n.clickable = in.optBool("clickable", false);
        n.longClickable = in.optBool("longClickable", false);
        n.checkable = in.optBool("checkable", false);
        n.checked = in.optBool("checked", false);
        n.enabled = in.optBool("enabled", true);
        n.focusable = in.optBool("focusable", false);
        n.focused = in.optBool("focused", false);
        n.selected = in.optBool("selected", false);
        n.scrollable = in.optBool("scrollable", false);
        n.editable = in.optBool("editable", false);
        n.password = in.optBool("password", false);
        n.visible = in.optBool("visible", true);
        n.hittable = in.optBoolOrNull("hittable");
        n.heading = in.optBool("heading", false);
        n.actions = in.optStringList("actions");
        n.traits = in.optStringList("traits");
        n.collectionRows = in.optIntOrNull("collectionRows");
        n.collectionCols = in.optIntOrNull("collectionCols");
        n.itemRow = in.optIntOrNull("itemRow");
        n.itemCol = in.optIntOrNull("itemCol");
        n.rangeValue = in.optDoubleOrNull("rangeValue");
        in.finish();
        return n;
    }

    private static String text(JsonIn in, String key) throws BadMessageException {
        String s = in.optStringOrNull(key);
        if (s != null && s.codePointCount(0, s.length()) > Texts.MAX_RAW_TEXT) {
            throw new BadMessageException(key + ": longer than " + Texts.MAX_RAW_TEXT);
        }
        return s;
    }
}
