package dev.mobridge.agent.core.link;

import java.util.List;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * Writing one JSON object the way the hub's encoder does: fields equal to their default are
 * omitted (null, false where false is the default, 0, empty arrays), key order is insertion
 * order. Non-finite doubles cannot be represented and are omitted.
 */
public final class JsonOut {
    public final JSONObject obj = new JSONObject();

    public JsonOut put(String key, Object value) {
        try {
            obj.put(key, value);
        } catch (JSONException e) {
            throw new IllegalArgumentException(key + ": " + e.getMessage(), e);
        }
        return this;
    }

    public JsonOut putInt(String key, int value) {
        return put(key, value);
    }

    public JsonOut putIntUnless(String key, int value, int def) {
        return value == def ? this : put(key, value);
    }

    public JsonOut putBoolUnless(String key, boolean value, boolean def) {
        return value == def ? this : put(key, value);
    }

    public JsonOut putIfNotNull(String key, Object value) {
        if (value == null) {
            return this;
        }
        if (value instanceof Double) {
            double d = (Double) value;
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                return this;
            }
        }
        return put(key, value);
    }

    public JsonOut putStringUnless(String key, String value, String def) {
        return value == null || value.equals(def) ? this : put(key, value);
    }

    public JsonOut putStrings(String key, List<String> values) {
        if (values == null || values.isEmpty()) {
            return this;
        }
        JSONArray a = new JSONArray();
        for (String v : values) {
            a.put(v);
        }
        return put(key, a);
    }

    public JsonOut putBounds(String key, int[] bounds) {
        if (bounds == null) {
            return this;
        }
        JSONArray a = new JSONArray();
        for (int v : bounds) {
            a.put(v);
        }
        return put(key, a);
    }
}
