package dev.mobridge.agent.core.link;

import org.json.JSONObject;

/**
 * One installed app in an {@code apps} reply (bridge/wire/agent_link.py {@code InstalledApp}):
 * its id (Android package), its display name when known, whether it is a system app.
 */
public final class InstalledApp {
    public final String appId;
    public final String name;
    public final boolean system;

    public InstalledApp(String appId, String name, boolean system) {
        this.appId = appId;
        this.name = name;
        this.system = system;
    }

    JSONObject toJson() {
        return new JsonOut().put("appId", appId).putIfNotNull("name", name)
                .putBoolUnless("system", system, false).obj;
    }

    static InstalledApp fromJson(Object value, String where) throws BadMessageException {
        JsonIn in = JsonIn.of(value, where);
        InstalledApp app = new InstalledApp(in.reqString("appId"), in.optStringOrNull("name"),
                in.optBool("system", false));
        in.finish();
        return app;
    }
}
