package dev.mobridge.agent.core;

import dev.mobridge.agent.core.link.AlertInfo;
import dev.mobridge.agent.core.link.RawNode;
import dev.mobridge.agent.core.link.RawTree;
import dev.mobridge.agent.core.link.RawWindow;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * System alerts in a capture (pure): an alert is a window that holds the platform's dialog parts
 * (an {@code :id/alertTitle}, {@code :id/button1}, {@code :id/parentPanel} of an AlertDialog,
 * or the permission controller's {@code permission_message} / {@code permission_*_button}), or
 * any window of the permission controller. Its buttons are its clickable nodes with a text, in
 * document (screen) order. Accept picks the positive button ({@code button1}, {@code
 * permission_allow*}, else a text like OK / Allow / Yes), dismiss the negative one ({@code
 * button2}, {@code permission_deny*}, else Cancel / Deny / No / Don't allow); the caller taps
 * the chosen button's centre.
 */
public final class Alerts {
    static final String[] PERMISSION_PACKAGES = {
        "com.android.permissioncontroller", "com.google.android.permissioncontroller"
    };
    private static final String[] MARKERS = {
        ":id/alertTitle", ":id/button1", ":id/parentPanel", ":id/permission_message",
        ":id/permission_allow_button", ":id/grant_dialog"
    };
    /**
     * In order of preference (issue 34: on Android 14's photo prompt the first allow button is
     * "Select photos", {@code permission_allow_selected_button}, which grants a partial access
     * through a picker; accept means "Allow all"). Exact id ends, never a prefix.
     */
    private static final String[] POSITIVE_IDS = {
        ":id/permission_allow_all_button", ":id/permission_allow_foreground_only_button",
        ":id/permission_allow_button", ":id/permission_allow_one_time_button", ":id/button1"
    };
    private static final String[] NEGATIVE_IDS = {
        ":id/permission_deny_button", ":id/permission_deny_and_dont_ask_again_button",
        ":id/button2"
    };
    private static final String[] POSITIVE_WORDS = {
        "ok", "allow", "allow all", "yes", "accept", "continue", "while using the app",
        "only this time", "zulassen", "alle zulassen", "ja", "許可", "すべて許可", "はい"
    };
    private static final String[] NEGATIVE_WORDS = {
        "cancel", "deny", "no", "don't allow", "dont allow", "not now", "dismiss", "close",
        "nicht zulassen", "abbrechen", "nein", "許可しない", "キャンセル", "いいえ"
    };

    /** One alert found: what the hub is told and the nodes of its buttons. */
    public static final class Found {
        public final AlertInfo info;
        public final List<RawNode> buttons;

        Found(AlertInfo info, List<RawNode> buttons) {
            this.info = info;
            this.buttons = buttons;
        }
    }

    private Alerts() {}

    /** The alerts of {@code tree}, the topmost window first. */
    public static List<Found> find(RawTree tree) {
        List<RawWindow> windows = new ArrayList<>(tree.windows);
        windows.sort((a, b) -> Integer.compare(b.layer, a.layer));
        List<Found> out = new ArrayList<>();
        for (RawWindow w : windows) {
            List<RawNode> nodes = new ArrayList<>();
            for (RawNode n : tree.nodes) {
                if (n.window == w.id) {
                    nodes.add(n);
                }
            }
            if (!isAlert(w, nodes)) {
                continue;
            }
            String title = null;
            String message = null;
            List<RawNode> buttons = new ArrayList<>();
            List<String> names = new ArrayList<>();
            for (RawNode n : nodes) {
                String id = n.automationId == null ? "" : n.automationId;
                String words = n.text != null ? n.text : n.label;
                if (id.endsWith(":id/alertTitle") || id.endsWith(":id/permission_message")) {
                    title = words;
                } else if (id.endsWith(":id/message")) {
                    message = words;
                } else if (n.clickable && words != null && !words.isEmpty()
                        && names.size() < AlertInfo.MAX_BUTTONS) {
                    buttons.add(n);
                    names.add(words);
                } else if (title == null && words != null && !words.isEmpty() && !n.clickable) {
                    title = words;
                }
            }
            boolean system = isPermissionPackage(w.packageName);
            out.add(new Found(new AlertInfo(title == null ? "" : title, names, message, system),
                    buttons));
        }
        return out;
    }

    /** The button {@code action} (accept, dismiss, press) means, or null with {@code why}. */
    public static RawNode choose(Found alert, String action, String button, StringBuilder why) {
        if (action.equals("press")) {
            String wanted = button == null ? "" : button.trim().toLowerCase(Locale.ROOT);
            for (int i = 0; i < alert.buttons.size(); i++) {
                if (alert.info.buttons.get(i).trim().toLowerCase(Locale.ROOT).equals(wanted)) {
                    return alert.buttons.get(i);
                }
            }
            why.append("the alert has no button '").append(button).append("'; its buttons: ")
                    .append(String.join(", ", alert.info.buttons));
            return null;
        }
        boolean positive = action.equals("accept");
        String[] ids = positive ? POSITIVE_IDS : NEGATIVE_IDS;
        String[] words = positive ? POSITIVE_WORDS : NEGATIVE_WORDS;
        for (String suffix : ids) {
            for (RawNode n : alert.buttons) {
                String id = n.automationId == null ? "" : n.automationId;
                if (id.endsWith(suffix)) {
                    return n;
                }
            }
        }
        for (int i = 0; i < alert.buttons.size(); i++) {
            String text = alert.info.buttons.get(i).trim().toLowerCase(Locale.ROOT);
            for (String w : words) {
                if (text.equals(w)) {
                    return alert.buttons.get(i);
                }
            }
        }
        why.append("no button of the alert reads as ").append(action).append(" (buttons: ")
                .append(String.join(", ", alert.info.buttons)).append("); press one by its text");
        return null;
    }

    /** Whether an input method (the on-screen keyboard) has a window in {@code tree}. */
    public static boolean keyboardShown(RawTree tree) {
        for (RawWindow w : tree.windows) {
            if ("input_method".equals(w.type)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isAlert(RawWindow w, List<RawNode> nodes) {
        if (isPermissionPackage(w.packageName)) {
            return true;
        }
        for (RawNode n : nodes) {
            String id = n.automationId;
            if (id == null) {
                continue;
            }
            for (String m : MARKERS) {
                if (id.endsWith(m)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean isPermissionPackage(String pkg) {
        for (String p : PERMISSION_PACKAGES) {
            if (p.equals(pkg)) {
                return true;
            }
        }
        return false;
    }
}
