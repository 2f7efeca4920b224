package dev.mobridge.agent.core.link;

import java.util.Objects;
import org.json.JSONObject;

/**
 * What the hub believes a handle points at. Only fields it sets are compared: the agent refuses
 * with IDENTITY_MISMATCH when a set field differs from the live node, so a stale handle never
 * acts on another element.
 */
public final class NodeIdentity {
    public final String className;
    public final String automationId;
    public final String text;
    public final String label;

    public NodeIdentity(String className, String automationId, String text, String label) {
        this.className = className;
        this.automationId = automationId;
        this.text = text;
        this.label = label;
    }

    /** Null when the live values agree with every field this identity sets, else a reason. */
    public String mismatch(String liveClass, String liveId, String liveText, String liveLabel) {
        StringBuilder why = new StringBuilder();
        differs(why, "className", className, liveClass);
        differs(why, "automationId", automationId, liveId);
        differs(why, "text", text, liveText);
        differs(why, "label", label, liveLabel);
        return why.length() == 0 ? null : why.toString();
    }

    private static void differs(StringBuilder why, String name, String expected, String live) {
        if (expected != null && !Objects.equals(expected, live)) {
            if (why.length() > 0) {
                why.append(", ");
            }
            why.append(name).append(live == null ? " is absent" : " differs");
        }
    }

    public JSONObject toJson() {
        return new JsonOut().putIfNotNull("className", className)
                .putIfNotNull("automationId", automationId).putIfNotNull("text", text)
                .putIfNotNull("label", label).obj;
    }

    public static NodeIdentity fromJson(JSONObject obj) throws BadMessageException {
        JsonIn in = new JsonIn(obj, "identity");
        NodeIdentity id = new NodeIdentity(in.optStringOrNull("className"),
                in.optStringOrNull("automationId"), in.optStringOrNull("text"),
                in.optStringOrNull("label"));
        in.finish();
        return id;
    }
}
