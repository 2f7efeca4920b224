package dev.mobridge.agent.core.link;

import java.util.Iterator;
import org.json.JSONArray;
import org.json.JSONObject;

/** Structural JSON comparison: key order ignored, numbers compared by value (1 == 1.0). */
final class JsonTrees {
    private JsonTrees() {}

    /** Null when equal, else the path of the first difference. */
    static String diff(Object a, Object b, String path) {
        if (a instanceof JSONObject && b instanceof JSONObject) {
            JSONObject x = (JSONObject) a;
            JSONObject y = (JSONObject) b;
            if (x.length() != y.length()) {
                return path + ": keys " + names(x) + " vs " + names(y);
            }
            Iterator<String> keys = x.keys();
            while (keys.hasNext()) {
                String k = keys.next();
                if (!y.has(k)) {
                    return path + "." + k + ": missing on the right";
                }
                String d = diff(x.opt(k), y.opt(k), path + "." + k);
                if (d != null) {
                    return d;
                }
            }
            return null;
        }
        if (a instanceof JSONArray && b instanceof JSONArray) {
            JSONArray x = (JSONArray) a;
            JSONArray y = (JSONArray) b;
            if (x.length() != y.length()) {
                return path + ": length " + x.length() + " vs " + y.length();
            }
            for (int i = 0; i < x.length(); i++) {
                String d = diff(x.opt(i), y.opt(i), path + "[" + i + "]");
                if (d != null) {
                    return d;
                }
            }
            return null;
        }
        if (a instanceof Number && b instanceof Number && !(a instanceof Boolean)) {
            return ((Number) a).doubleValue() == ((Number) b).doubleValue() ? null
                    : path + ": " + a + " vs " + b;
        }
        return a.equals(b) ? null : path + ": " + a + " vs " + b;
    }

    private static String names(JSONObject o) {
        StringBuilder sb = new StringBuilder();
        Iterator<String> keys = o.keys();
        while (keys.hasNext()) {
            sb.append(keys.next()).append(' ');
        }
        return sb.toString().trim();
    }
}
