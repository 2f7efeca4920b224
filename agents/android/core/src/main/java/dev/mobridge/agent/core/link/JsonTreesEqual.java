package dev.mobridge.agent.core.link;

import java.util.Iterator;
import org.json.JSONArray;
import org.json.JSONObject;

/** Structural equality of JSON values (objects by keys, whatever their order). */
final class JsonTreesEqual {
    private JsonTreesEqual() {}

    static boolean same(Object a, Object b) {
        if (a instanceof JSONObject && b instanceof JSONObject) {
            JSONObject x = (JSONObject) a;
            JSONObject y = (JSONObject) b;
            if (x.length() != y.length()) {
                return false;
            }
            Iterator<String> keys = x.keys();
            while (keys.hasNext()) {
                String k = keys.next();
                if (!y.has(k) || !same(x.opt(k), y.opt(k))) {
                    return false;
                }
            }
            return true;
        }
        if (a instanceof JSONArray && b instanceof JSONArray) {
            JSONArray x = (JSONArray) a;
            JSONArray y = (JSONArray) b;
            if (x.length() != y.length()) {
                return false;
            }
            for (int i = 0; i < x.length(); i++) {
                if (!same(x.opt(i), y.opt(i))) {
                    return false;
                }
            }
            return true;
        }
        if (a instanceof Number && b instanceof Number) {
            return ((Number) a).doubleValue() == ((Number) b).doubleValue();
        }
        return a == null ? b == null : a.equals(b);
    }
}
