package dev.mobridge.agent.core.link;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * Strict reading of one JSON object, mirroring the hub's msgspec decoding: every key must be
 * consumed ({@link #finish} fails on an unknown field), types are exact (an integer field
 * refuses 1.5, "1" and true), {@code null} is accepted only where the field is optional-null,
 * and an absent field takes its documented default.
 */
public final class JsonIn {
    private final JSONObject obj;
    private final String where;
    private final Set<String> seen = new HashSet<>();

    public JsonIn(JSONObject obj, String where) {
        this.obj = obj;
        this.where = where;
    }

    public static JsonIn of(Object value, String where) throws BadMessageException {
        if (!(value instanceof JSONObject)) {
            throw new BadMessageException(where + ": expected an object");
        }
        return new JsonIn((JSONObject) value, where);
    }

    private Object raw(String key) {
        seen.add(key);
        return obj.has(key) ? obj.opt(key) : null;
    }

    private boolean present(String key) {
        return obj.has(key);
    }

    private BadMessageException bad(String key, String expected) {
        return new BadMessageException(where + "." + key + ": expected " + expected);
    }

    public int reqInt(String key) throws BadMessageException {
        if (!present(key)) {
            throw new BadMessageException(where + ": missing required field " + key);
        }
        return toInt(key, raw(key));
    }

    /** A required integer that must be >= 0 and fit in 64 bits (command ids). */
    public long reqNonNegLong(String key) throws BadMessageException {
        if (!present(key)) {
            throw new BadMessageException(where + ": missing required field " + key);
        }
        Object v = raw(key);
        if ((v instanceof Integer || v instanceof Long) && ((Number) v).longValue() >= 0) {
            return ((Number) v).longValue();
        }
        throw bad(key, "a non-negative integer");
    }

    public int optNonNegInt(String key, int def) throws BadMessageException {
        int v = optInt(key, def);
        if (v < 0) {
            throw bad(key, "a non-negative integer");
        }
        return v;
    }

    public int optInt(String key, int def) throws BadMessageException {
        return present(key) ? toInt(key, raw(key)) : def;
    }

    public Integer optIntOrNull(String key) throws BadMessageException {
        Object v = raw(key);
        if (v == null || v == JSONObject.NULL) {
            return null;
        }
        return toInt(key, v);
    }

    public boolean reqBool(String key) throws BadMessageException {
        if (!present(key)) {
            throw new BadMessageException(where + ": missing required field " + key);
        }
        return toBool(key, raw(key));
    }

    public boolean optBool(String key, boolean def) throws BadMessageException {
        return present(key) ? toBool(key, raw(key)) : def;
    }

    public Boolean optBoolOrNull(String key) throws BadMessageException {
        Object v = raw(key);
        if (v == null || v == JSONObject.NULL) {
            return null;
        }
        return toBool(key, v);
    }

    public String reqString(String key) throws BadMessageException {
        if (!present(key)) {
            throw new BadMessageException(where + ": missing required field " + key);
        }
        Object v = raw(key);
        if (!(v instanceof String)) {
            throw bad(key, "a string");
        }
        return (String) v;
    }

    public String optString(String key, String def) throws BadMessageException {
        if (!present(key)) {
            return def;
        }
        Object v = raw(key);
        if (!(v instanceof String)) {
            throw bad(key, "a string");
        }
        return (String) v;
    }

    /** An optional string field whose default is null; JSON null is accepted. */
    public String optStringOrNull(String key) throws BadMessageException {
        Object v = raw(key);
        if (v == null || v == JSONObject.NULL) {
            return null;
        }
        if (!(v instanceof String)) {
            throw bad(key, "a string or null");
        }
        return (String) v;
    }

    public Double optDoubleOrNull(String key) throws BadMessageException {
        Object v = raw(key);
        if (v == null || v == JSONObject.NULL) {
            return null;
        }
        if (!(v instanceof Number) || v instanceof Boolean) {
            throw bad(key, "a number or null");
        }
        return ((Number) v).doubleValue();
    }

    public JSONObject reqObject(String key) throws BadMessageException {
        if (!present(key)) {
            throw new BadMessageException(where + ": missing required field " + key);
        }
        Object v = raw(key);
        if (!(v instanceof JSONObject)) {
            throw bad(key, "an object");
        }
        return (JSONObject) v;
    }

    public JSONObject optObjectOrNull(String key) throws BadMessageException {
        Object v = raw(key);
        if (v == null || v == JSONObject.NULL) {
            return null;
        }
        if (!(v instanceof JSONObject)) {
            throw bad(key, "an object or null");
        }
        return (JSONObject) v;
    }

    public JSONArray reqArray(String key) throws BadMessageException {
        if (!present(key)) {
            throw new BadMessageException(where + ": missing required field " + key);
        }
        return toArray(key, raw(key));
    }

    /** An array field defaulting to empty; null is refused (the field is not optional-null). */
    public JSONArray optArray(String key) throws BadMessageException {
        if (!present(key)) {
            return new JSONArray();
        }
        return toArray(key, raw(key));
    }

    /** An optional-null array field: absent or null gives null. */
    public JSONArray optArrayOrNull(String key) throws BadMessageException {
        if (!present(key)) {
            return null;
        }
        Object v = raw(key);
        return v == JSONObject.NULL ? null : toArray(key, v);
    }

    public List<String> optStringList(String key) throws BadMessageException {
        JSONArray a = optArray(key);
        List<String> out = new ArrayList<>(a.length());
        for (int i = 0; i < a.length(); i++) {
            Object v = a.opt(i);
            if (!(v instanceof String)) {
                throw bad(key + "[" + i + "]", "a string");
            }
            out.add((String) v);
        }
        return out;
    }

    /** An optional array of 32-bit integers (empty when absent). */
    public List<Integer> optIntList(String key) throws BadMessageException {
        JSONArray a = optArray(key);
        List<Integer> out = new ArrayList<>(a.length());
        for (int i = 0; i < a.length(); i++) {
            out.add(toInt(key + "[" + i + "]", a.opt(i)));
        }
        return out;
    }

    /** An optional object mapping strings to integer arrays (empty when absent). */
    public java.util.LinkedHashMap<String, List<Integer>> optIntListMap(String key)
            throws BadMessageException {
        java.util.LinkedHashMap<String, List<Integer>> out = new java.util.LinkedHashMap<>();
        JSONObject o = optObjectOrNull(key);
        if (o == null) {
            return out;
        }
        JsonIn inner = new JsonIn(o, where + "." + key);
        Iterator<String> keys = o.keys();
        while (keys.hasNext()) {
            String k = keys.next();
            out.put(k, inner.optIntList(k));
        }
        return out;
    }

    /** An optional int[4] bounds array ([left, top, right, bottom]). */
    public int[] optBoundsOrNull(String key) throws BadMessageException {
        Object v = raw(key);
        if (v == null || v == JSONObject.NULL) {
            return null;
        }
        JSONArray a = toArray(key, v);
        if (a.length() != 4) {
            throw bad(key, "4 integers");
        }
        int[] b = new int[4];
        for (int i = 0; i < 4; i++) {
            b[i] = toInt(key, a.opt(i));
        }
        return b;
    }

    public <E extends Enum<E>> E reqEnum(String key, Class<E> type) throws BadMessageException {
        return toEnum(key, type, reqString(key));
    }

    public <E extends Enum<E>> E optEnumOrNull(String key, Class<E> type)
            throws BadMessageException {
        String s = optStringOrNull(key);
        return s == null ? null : toEnum(key, type, s);
    }

    /** Fails when the object has a key no accessor asked for. */
    public void finish() throws BadMessageException {
        Iterator<String> keys = obj.keys();
        while (keys.hasNext()) {
            String k = keys.next();
            if (!seen.contains(k)) {
                throw new BadMessageException(where + ": unknown field " + k);
            }
        }
    }

    private <E extends Enum<E>> E toEnum(String key, Class<E> type, String s)
            throws BadMessageException {
        for (E e : type.getEnumConstants()) {
            if (e.name().equals(s)) {
                return e;
            }
        }
        throw bad(key, "one of the " + type.getSimpleName() + " values");
    }

    private JSONArray toArray(String key, Object v) throws BadMessageException {
        if (!(v instanceof JSONArray)) {
            throw bad(key, "an array");
        }
        return (JSONArray) v;
    }

    private int toInt(String key, Object v) throws BadMessageException {
        if (v instanceof Integer) {
            return (Integer) v;
        }
        if (v instanceof Long) {
            long l = (Long) v;
            if (l >= Integer.MIN_VALUE && l <= Integer.MAX_VALUE) {
                return (int) l;
            }
        }
        throw bad(key, "a 32-bit integer");
    }

    private boolean toBool(String key, Object v) throws BadMessageException {
        if (!(v instanceof Boolean)) {
            throw bad(key, "a boolean");
        }
        return (Boolean) v;
    }
}
