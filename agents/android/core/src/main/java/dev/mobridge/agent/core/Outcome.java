package dev.mobridge.agent.core;

import dev.mobridge.agent.core.link.ActionMethod;
import dev.mobridge.agent.core.link.AgentMessage.Reply;
import dev.mobridge.agent.core.link.AlertInfo;
import dev.mobridge.agent.core.link.InstalledApp;
import java.util.ArrayList;
import java.util.List;

/**
 * What a backend operation did: success (with the dispatch method, text or PNG it produced) or
 * a failure code from the agent-link vocabulary. Expected failures are values, not exceptions.
 */
public final class Outcome {
    public final boolean ok;
    public final ActionMethod method;
    public final String code;
    public final String message;
    public final String text;
    public final String pngBase64;
    /** The installed apps (an apps listing), else null. */
    public List<InstalledApp> apps;
    /** What an install installed, when known. */
    public String appId;
    /** The alerts on screen (an alert listing), else null. */
    public List<AlertInfo> alerts;

    private Outcome(boolean ok, ActionMethod method, String code, String message, String text,
            String pngBase64) {
        this.ok = ok;
        this.method = method;
        this.code = code;
        this.message = message;
        this.text = text;
        this.pngBase64 = pngBase64;
    }

    public static Outcome ok() {
        return new Outcome(true, null, null, null, null, null);
    }

    public static Outcome ok(ActionMethod method) {
        return new Outcome(true, method, null, null, null, null);
    }

    public static Outcome okNote(ActionMethod method, String note) {
        return new Outcome(true, method, null, note, null, null);
    }

    public static Outcome text(String text) {
        return new Outcome(true, null, null, null, text, null);
    }

    public static Outcome png(String base64) {
        return new Outcome(true, null, null, null, null, base64);
    }

    public static Outcome apps(List<InstalledApp> apps) {
        Outcome o = ok();
        o.apps = new ArrayList<>(apps);
        return o;
    }

    public static Outcome alerts(List<AlertInfo> alerts) {
        Outcome o = ok();
        o.alerts = new ArrayList<>(alerts);
        return o;
    }

    public static Outcome installed(String appId) {
        Outcome o = ok();
        o.appId = appId;
        return o;
    }

    public static Outcome fail(String code, String message) {
        return new Outcome(false, null, code, message, null, null);
    }

    public static Outcome notFound(String message) {
        return fail(Reply.NOT_FOUND, message);
    }

    public static Outcome unsupported(String message) {
        return fail(Reply.UNSUPPORTED, message);
    }

    public static Outcome failed(String message) {
        return fail(Reply.FAILED, message);
    }

    public Reply toReply(long id) {
        Reply r = new Reply(id, ok);
        r.method = method;
        r.code = code;
        r.message = message;
        r.text = text;
        r.pngBase64 = pngBase64;
        r.apps = apps;
        r.appId = appId;
        r.alerts = alerts;
        return r;
    }
}
