package dev.mobridge.agent.core.link;

import java.util.ArrayList;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * One alert on screen in an {@code alert list} reply (bridge/wire/agent_link.py {@code
 * AlertInfo}): its title, its buttons in screen order, its message when it has one, and
 * whether the system shows it (a permission request) rather than the app.
 */
public final class AlertInfo {
    public static final int MAX_BUTTONS = 8;
    public final String title;
    public final List<String> buttons;
    public final String message;
    public final boolean system;

    public AlertInfo(String title, List<String> buttons, String message, boolean system) {
        this.title = title;
        this.buttons = new ArrayList<>(buttons);
        this.message = message;
        this.system = system;
    }

    JSONObject toJson() {
        JsonOut o = new JsonOut().put("title", title);
        if (!buttons.isEmpty()) {
            o.put("buttons", new JSONArray(buttons));
        }
        return o.putIfNotNull("message", message).putBoolUnless("system", system, false).obj;
    }

    static AlertInfo fromJson(Object value, String where) throws BadMessageException {
        JsonIn in = JsonIn.of(value, where);
        List<String> buttons = in.optStringList("buttons");
        if (buttons.size() > MAX_BUTTONS) {
            throw new BadMessageException(where + ".buttons: at most " + MAX_BUTTONS);
        }
        AlertInfo a = new AlertInfo(in.reqString("title"), buttons,
                in.optStringOrNull("message"), in.optBool("system", false));
        in.finish();
        return a;
    }
}
