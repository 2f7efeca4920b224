package dev.mobridge.agent.host;

import dev.mobridge.agent.core.link.RawWindow;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * The pathology scenes of host mode, one failure class each (the Swift host serves the same
 * names and texts): {@code large} (about 1,000 nodes), {@code deep} (300 nested containers and a
 * "Deep leaf"), {@code busy} ("Tick N" changing every 100 ms, "Stop", a "Note" field),
 * {@code prefilled} (an "Email" field holding "old@example.com", focused), {@code other-app}
 * (Settings in front, "Wi-Fi"; tapping it shows "Wi-Fi opened"), {@code landscape} (rotation 90; "Density" changes the display
 * density), {@code fold} ("Row 40" below the fold of a list, "Submit" under the keyboard),
 * {@code system-dialog} (the permission controller's dialog over the app, "Allow" / "Don't
 * allow") and {@code long-text} (a "Bio" field typed as keys, a 2,000-character text).
 * Issue 34 (the same names as the Swift host): {@code settling} ("Go" counts "Went N", a
 * "Note" field), {@code tab-bar} (rows under a bottom navigation bar: "Row 12" lies under it;
 * the bar's "Home" / "Settings" switch tabs), {@code alert-de} / {@code alert-ja} (Android
 * 14's photo prompt in German / Japanese: "Select photos" first, then "Allow all", then
 * "Don't allow", with the permission controller's ids), {@code plus} (a "Tap me" button at a
 * density of 2.608) and {@code notes} (a multi-line field with a floating keyboard that ESCAPE
 * closes and BACK does not).
 * {@code login} is the demo app ({@link FakeUiBackend}).
 *
 * <p>Every method runs under the backend's lock; the busy ticker takes it to change state.
 */
final class FakeScenes {
    static final List<String> NAMES = Collections.unmodifiableList(Arrays.asList("login",
            "large", "deep", "busy", "prefilled", "other-app", "landscape", "fold",
            "system-dialog", "long-text", "settling", "tab-bar", "alert-de", "alert-ja", "plus",
            "notes"));
    static final String SETTINGS_PKG = "com.android.settings";
    static final String PERMISSION_PKG = "com.android.permissioncontroller";
    static final String IME_PKG = "com.android.inputmethod.latin";
    static final int LARGE_ROWS = 200;
    static final int DEEP_LEVELS = 300;
    static final int FOLD_ROWS = 40;
    static final int LONG_TEXT_CHARS = 2000;
    /** What typing one character as a key event costs in the fake (a phone: more). */
    static final long KEY_MS = 2;
    static final int SETTINGS_WINDOW = 20;
    static final int IME_WINDOW = 30;
    static final int PERMISSION_WINDOW = 40;

    private final FakeUiBackend backend;
    private String name = "login";
    private String focus;
    private String note = "";
    private String email = "old@example.com";
    private String bio = "";
    private String status = "Ready";
    private int tick;
    private boolean stopped;
    private double density = 2.75;
    private int scroll;
    private boolean imeShown = true;
    private boolean dialogShown = true;
    private Thread ticker;
    private int went;
    private String notes = "First line";

    FakeScenes(FakeUiBackend backend) {
        this.backend = backend;
    }

    void select(String scene) {
        if (!NAMES.contains(scene)) {
            throw new IllegalArgumentException("unknown scene " + scene + "; scenes: " + NAMES);
        }
        name = scene;
        focus = scene.equals("prefilled") ? "email" : scene.equals("fold") ? "comment"
                : scene.equals("notes") ? "notes" : null;
        dialogShown = true;
        imeShown = true;
    }

    String name() {
        return name;
    }

    boolean isLogin() {
        return name.equals("login");
    }

    boolean landscape() {
        return name.equals("landscape");
    }

    /** Starts the busy scene's 100 ms ticker (once; it ticks only while that scene shows). */
    void startTicking() {
        if (ticker != null) {
            return;
        }
        ticker = new Thread(() -> {
            try {
                while (true) {
                    Thread.sleep(100);
                    synchronized (backend) {
                        if (!name.equals("busy") || stopped) {
                            continue;
                        }
                        tick++;
                    }
                    backend.event();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "fake-busy-ticker");
        ticker.setDaemon(true);
        ticker.start();
    }

    /** Whether the input method shows ({@code mInputShown}); null where no scene models it. */
    Boolean inputShown() {
        return name.equals("fold") || name.equals("notes") ? imeShown : null;
    }

    /** ESCAPE: closes the keyboard of {@code fold} and {@code notes}. */
    void escape() {
        if ((name.equals("fold") || name.equals("notes")) && imeShown) {
            imeShown = false;
            backend.event();
        }
    }

    /** BACK: hides the keyboard first, then closes the dialog; false when nothing to close. */
    boolean back() {
        if (name.equals("notes")) {
            return false; // the floating keyboard stays on BACK
        }
        if ((name.equals("alert-de") || name.equals("alert-ja")) && dialogShown) {
            dialogShown = false;
            status = "Photos denied";
            backend.event();
            return true;
        }
        if (name.equals("fold") && imeShown) {
            imeShown = false;
            focus = null;
            backend.event();
            return true;
        }
        if (name.equals("system-dialog") && dialogShown) {
            dialogShown = false;
            status = "Location denied";
            backend.event();
            return true;
        }
        return false;
    }

    /** Text typed into the focused field; false when no field has focus. */
    boolean type(String text) {
        if (focus == null) {
            return false;
        }
        set(focus, get(focus) + text);
        return true;
    }

    private String get(String field) {
        switch (field) {
            case "note":
                return note;
            case "notes":
                return notes;
            case "email":
                return email;
            case "bio":
                return bio;
            default:
                return "";
        }
    }

    private void set(String field, String value) {
        switch (field) {
            case "note":
                note = value;
                break;
            case "notes":
                notes = value;
                break;
            case "email":
                email = value;
                break;
            case "bio":
                bio = value;
                break;
            default:
                break;
        }
        focus = field;
        backend.event();
    }

    /** The windows on screen, bottom first, as {RawWindow, root} pairs. */
    List<Object[]> windows(int w, int h) {
        List<Object[]> out = new ArrayList<>();
        switch (name) {
            case "large":
                out.add(app(w, h, "Large", large(w, h)));
                break;
            case "deep":
                out.add(app(w, h, "Deep", deep(w, h)));
                break;
            case "busy":
                out.add(app(w, h, "Busy", busy(w, h)));
                break;
            case "prefilled":
                out.add(app(w, h, "Profile", prefilled(w, h)));
                break;
            case "other-app": {
                RawWindow win = FakeUiBackend.window(SETTINGS_WINDOW, SETTINGS_PKG, "Settings",
                        true, 0, 0, w, h);
                out.add(new Object[] {win, inPackage(settings(w, h), SETTINGS_PKG)});
                break;
            }
            case "landscape":
                out.add(app(w, h, "Landscape", landscapeScreen(w, h)));
                break;
            case "fold":
                out.add(app(w, h, "Fold", fold(w, h)));
                if (imeShown) {
                    out.add(keyboard("fold", w, h));
                }
                break;
            case "system-dialog":
                addDialogScene(out, w, h, 800, 1600, permission(w));
                break;
            case "long-text":
                out.add(app(w, h, "Long text", longText(w, h)));
                break;
            case "settling":
                out.add(app(w, h, "Settling", settling(w, h)));
                break;
            case "tab-bar":
                out.add(app(w, h, "Tabs", tabBar(w, h)));
                break;
            case "plus":
                out.add(app(w, h, "Plus", plus(w, h)));
                break;
            case "notes":
                out.add(app(w, h, "Notes", notesScreen(w, h)));
                if (imeShown) {
                    out.add(keyboard("notes", w, h));
                }
                break;
            case "alert-de":
            case "alert-ja":
                addDialogScene(out, w, h, 700, 1700, photoPrompt(w));
                break;
            default:
                break;
        }
        return out;
    }

    /** The keyboard's window over a scene's lower part (shown after a text field is tapped). */
    private static Object[] keyboard(String scene, int w, int h) {
        RawWindow ime = FakeUiBackend.window(IME_WINDOW, IME_PKG, null, false, 0, 1500, w, h);
        ime.type = "input_method";
        ime.layer = 2;
        FakeNode keys = new FakeNode(scene + "/ime", "android.widget.FrameLayout", 0, 1500, w, h);
        keys.label = "Keyboard";
        return new Object[] {ime, inPackage(keys, IME_PKG)};
    }

    /** The demo app and, while the dialog shows, a system dialog window between top and bottom
     *  that takes the focus from it. The dialog's root is built by the caller (it reads the
     *  width). */
    private void addDialogScene(List<Object[]> out, int w, int h, int top, int bottom,
            FakeNode dialog) {
        out.add(dialogShown ? appUnfocused(w, h, "Demo", dialogApp(w, h))
                : app(w, h, "Demo", dialogApp(w, h)));
        if (dialogShown) {
            RawWindow d = FakeUiBackend.window(PERMISSION_WINDOW, PERMISSION_PKG, "Permission",
                    true, 90, top, w - 90, bottom);
            d.layer = 1;
            out.add(new Object[] {d, inPackage(dialog, PERMISSION_PKG)});
        }
    }

    private static Object[] app(int w, int h, String title, FakeNode root) {
        return new Object[] {FakeUiBackend.window(FakeUiBackend.APP_WINDOW, FakeUiBackend.PKG,
                title, true, 0, 0, w, h), root};
    }

    private static Object[] appUnfocused(int w, int h, String title, FakeNode root) {
        return new Object[] {FakeUiBackend.window(FakeUiBackend.APP_WINDOW, FakeUiBackend.PKG,
                title, false, 0, 0, w, h), root};
    }

    private static FakeNode inPackage(FakeNode n, String pkg) {
        n.packageName = pkg;
        for (FakeNode c : n.children) {
            inPackage(c, pkg);
        }
        return n;
    }

    private static FakeNode root(String scene, int w, int h) {
        FakeNode root = new FakeNode(scene + "/root", "android.widget.FrameLayout", 0, 0, w, h);
        root.important = false;
        return root;
    }

    private static FakeNode text(String key, String value, int l, int t, int r, int b) {
        FakeNode n = new FakeNode(key, "android.widget.TextView", l, t, r, b);
        n.text = value;
        n.automationId = FakeUiBackend.PKG + ":id/" + key.substring(key.indexOf('/') + 1);
        return n;
    }

    private FakeNode field(String key, String hint, String value, int l, int t, int r, int b) {
        String fieldName = key.substring(key.indexOf('/') + 1);
        FakeNode n = new FakeNode(key, "android.widget.EditText", l, t, r, b);
        n.hint = hint;
        n.text = value.isEmpty() ? null : value;
        n.automationId = FakeUiBackend.PKG + ":id/" + fieldName;
        n.clickable = true;
        n.focusable = true;
        n.editable = true;
        n.focused = fieldName.equals(focus);
        n.onClick = () -> {
            focus = fieldName;
            backend.event();
        };
        n.onFocus = n.onClick;
        n.onSetText = v -> set(fieldName, v);
        return n;
    }

    private static FakeNode button(String key, String label, int l, int t, int r, int b,
            Runnable onClick) {
        FakeNode n = new FakeNode(key, "android.widget.Button", l, t, r, b);
        n.text = label;
        n.automationId = FakeUiBackend.PKG + ":id/" + key.substring(key.indexOf('/') + 1);
        n.clickable = true;
        n.focusable = true;
        n.onClick = onClick;
        return n;
    }

    private FakeNode large(int w, int h) {
        FakeNode root = root("large", w, h);
        FakeNode list = new FakeNode("large/list", "androidx.recyclerview.widget.RecyclerView",
                0, 63, w, h);
        list.automationId = FakeUiBackend.PKG + ":id/list";
        list.scrollable = true;
        list.collectionRows = LARGE_ROWS;
        root.add(list);
        for (int i = 1; i <= LARGE_ROWS; i++) {
            int top = 63 + (i - 1) * 120;
            FakeNode row = new FakeNode("large/row/" + i, "android.widget.LinearLayout", 0, top,
                    w, top + 120);
            row.clickable = true;
            row.itemRow = i - 1;
            int n = i;
            row.onClick = () -> {
                status = "Opened Row " + n;
                backend.event();
            };
            FakeNode icon = new FakeNode("large/row/" + i + "/icon", "android.widget.ImageView",
                    24, top + 20, 104, top + 100);
            icon.important = false;
            row.add(icon);
            FakeNode title = new FakeNode("large/row/" + i + "/title", "android.widget.TextView",
                    130, top + 10, w - 130, top + 60);
            title.text = "Row " + i;
            row.add(title);
            FakeNode detail = new FakeNode("large/row/" + i + "/detail",
                    "android.widget.TextView", 130, top + 64, w - 130, top + 110);
            detail.text = "Detail " + i;
            row.add(detail);
            FakeNode chevron = new FakeNode("large/row/" + i + "/chevron",
                    "android.widget.ImageView", w - 104, top + 20, w - 24, top + 100);
            chevron.important = false;
            row.add(chevron);
            list.add(row);
        }
        return root;
    }

    private static FakeNode deep(int w, int h) {
        FakeNode root = root("deep", w, h);
        FakeNode parent = root;
        for (int i = 1; i <= DEEP_LEVELS; i++) {
            FakeNode level = new FakeNode("deep/" + i, "android.widget.LinearLayout", 0, 63, w,
                    h);
            parent.add(level);
            parent = level;
        }
        parent.add(text("deep/leaf", "Deep leaf", 60, 300, w - 60, 400));
        return root;
    }

    private FakeNode busy(int w, int h) {
        FakeNode root = root("busy", w, h);
        root.add(text("busy/tick", stopped ? "Stopped at " + tick : "Tick " + tick, 60, 200,
                w - 60, 300));
        root.add(button("busy/stop", "Stop", 60, 400, w - 60, 540, () -> {
            stopped = true;
            backend.event();
        }));
        root.add(field("busy/note", "Note", note, 60, 600, w - 60, 740));
        return root;
    }

    private FakeNode prefilled(int w, int h) {
        FakeNode root = root("prefilled", w, h);
        root.add(text("prefilled/label", "Email", 60, 200, w - 60, 260));
        root.add(field("prefilled/email", "Email", email, 60, 270, w - 60, 410));
        return root;
    }

    private FakeNode settings(int w, int h) {
        FakeNode root = root("settings", w, h);
        FakeNode title = new FakeNode("settings/title", "android.widget.TextView", 60, 100,
                w - 60, 200);
        title.text = "Settings";
        title.heading = true;
        root.add(title);
        String[] rows = {"Wi-Fi", "Bluetooth"};
        for (int i = 0; i < rows.length; i++) {
            int top = 260 + i * 160;
            FakeNode row = new FakeNode("settings/" + rows[i], "android.widget.LinearLayout", 0,
                    top, w, top + 160);
            row.clickable = true;
            String opened = rows[i] + " opened";
            row.onClick = () -> {
                status = opened;
                backend.event();
            };
            FakeNode label = new FakeNode("settings/" + rows[i] + "/label",
                    "android.widget.TextView", 60, top + 40, w - 60, top + 120);
            label.text = rows[i];
            row.add(label);
            root.add(row);
        }
        if (status.endsWith(" opened")) {
            FakeNode shown = new FakeNode("settings/status", "android.widget.TextView", 60, 600,
                    w - 60, 700);
            shown.text = status;
            root.add(shown);
        }
        return root;
    }

    /** Bounds in pixels of a box laid out in density-independent pixels. */
    private int px(double dp) {
        return (int) Math.round(dp * density);
    }

    private FakeNode landscapeScreen(int w, int h) {
        FakeNode root = root("landscape", w, h);
        root.add(text("landscape/title", "Landscape", px(24), px(24), px(424), px(64)));
        root.add(text("landscape/density", String.format(Locale.ROOT, "Density %.2f", density),
                px(24), px(72), px(424), px(104)));
        root.add(button("landscape/change", "Density", px(24), px(120), px(224), px(168),
                () -> {
                    density = density == 2.75 ? 3.5 : 2.75;
                    backend.event();
                }));
        return root;
    }

    private FakeNode fold(int w, int h) {
        FakeNode root = root("fold", w, h);
        root.add(text("fold/status", status, 60, 63, w - 60, 163));
        root.add(field("fold/comment", "Comment", "", 60, 163, w - 60, 300));
        FakeNode list = new FakeNode("fold/list", "android.widget.ScrollView", 0, 300, w, 1700);
        list.automationId = FakeUiBackend.PKG + ":id/list";
        list.scrollable = true;
        list.onScroll = forward -> {
            int max = FOLD_ROWS * 150 - 1400;
            int next = Math.max(0, Math.min(max, scroll + (forward ? 900 : -900)));
            if (next == scroll) {
                return false;
            }
            scroll = next;
            backend.event();
            return true;
        };
        root.add(list);
        for (int i = 1; i <= FOLD_ROWS; i++) {
            int top = 300 + (i - 1) * 150 - scroll;
            FakeNode row = text("fold/row" + i, "Row " + i, 0, top, w, top + 150);
            row.clickable = true;
            int n = i;
            row.onClick = () -> {
                status = "Opened Row " + n;
                backend.event();
            };
            list.add(row);
        }
        // A custom view: it reacts to touches only (no click action), under the keyboard.
        FakeNode submit = new FakeNode("fold/submit", "android.view.View", 60, 1750, w - 60,
                1900);
        submit.text = "Submit";
        submit.automationId = FakeUiBackend.PKG + ":id/submit";
        submit.onTap = () -> {
            status = "Submitted";
            backend.event();
        };
        root.add(submit);
        return root;
    }

    private FakeNode dialogApp(int w, int h) {
        FakeNode root = root("permission-app", w, h);
        root.add(text("permission-app/status", status, 60, 200, w - 60, 300));
        return root;
    }

    private FakeNode permission(int w) {
        FakeNode root = new FakeNode("permission/root", "android.widget.FrameLayout", 90, 800,
                w - 90, 1600);
        root.important = false;
        FakeNode message = new FakeNode("permission/message", "android.widget.TextView", 150,
                860, w - 150, 1100);
        message.text = "Allow Demo to access this device's location?";
        message.automationId = PERMISSION_PKG + ":id/permission_message";
        root.add(message);
        FakeNode allow = button("permission/allow", "Allow", 150, 1200, w - 150, 1340, () -> {
            dialogShown = false;
            status = "Location allowed";
            backend.event();
        });
        allow.automationId = PERMISSION_PKG + ":id/permission_allow_button";
        root.add(allow);
        FakeNode deny = button("permission/deny", "Don't allow", 150, 1380, w - 150, 1520,
                () -> {
                    dialogShown = false;
                    status = "Location denied";
                    backend.event();
                });
        deny.automationId = PERMISSION_PKG + ":id/permission_deny_button";
        root.add(deny);
        return root;
    }

    private FakeNode settling(int w, int h) {
        FakeNode root = root("settling", w, h);
        root.add(text("settling/status", went == 0 ? "Ready" : "Went " + went, 60, 200, w - 60,
                300));
        root.add(button("settling/go", "Go", 60, 400, w - 60, 540, () -> {
            went++;
            backend.event();
        }));
        root.add(field("settling/note", "Note", note, 60, 600, w - 60, 740));
        return root;
    }

    private FakeNode tabBar(int w, int h) {
        FakeNode root = root("tab-bar", w, h);
        root.add(text("tab-bar/status", status, 60, 63, w - 60, 163));
        FakeNode list = new FakeNode("tab-bar/list", "androidx.recyclerview.widget.RecyclerView",
                0, 200, w, h);
        list.automationId = FakeUiBackend.PKG + ":id/list";
        list.scrollable = true;
        root.add(list);
        for (int i = 1; i <= 14; i++) {
            int top = 200 + (i - 1) * 170;
            FakeNode row = text("tab-bar/row" + i, "Row " + i, 0, top, w, top + 170);
            row.clickable = true;
            int n = i;
            row.onClick = () -> {
                status = "Opened Row " + n;
                backend.event();
            };
            list.add(row);
        }
        FakeNode bar = new FakeNode("tab-bar/bar",
                "com.google.android.material.bottomnavigation.BottomNavigationView", 0, h - 200,
                w, h);
        bar.automationId = FakeUiBackend.PKG + ":id/tabs";
        root.add(bar);
        bar.add(button("tab-bar/home", "Home", 0, h - 200, w / 2, h, () -> {
            status = "Tab Home";
            backend.event();
        }));
        bar.add(button("tab-bar/settings", "Settings", w / 2, h - 200, w, h, () -> {
            status = "Tab Settings";
            backend.event();
        }));
        return root;
    }

    private FakeNode plus(int w, int h) {
        FakeNode root = root("plus", w, h);
        double d = 1080.0 / 414;
        root.add(text("plus/status", status, 60, 63, w - 60, 163));
        root.add(button("plus/tapme", "Tap me", (int) (40 * d), (int) (300 * d), (int) (190 * d),
                (int) (350 * d), () -> {
                    status = "Tapped";
                    backend.event();
                }));
        return root;
    }

    private FakeNode notesScreen(int w, int h) {
        FakeNode root = root("notes", w, h);
        root.add(text("notes/title", "Notes", 60, 63, w - 60, 163));
        FakeNode n = field("notes/notes", "Notes", notes, 60, 200, w - 60, 1000);
        root.add(n);
        return root;
    }

    /** Android 14's photo prompt: partial access first, then all, then deny. */
    private FakeNode photoPrompt(int w) {
        boolean de = name.equals("alert-de");
        FakeNode root = new FakeNode("photos/root", "android.widget.FrameLayout", 90, 700,
                w - 90, 1700);
        root.important = false;
        FakeNode message = new FakeNode("photos/message", "android.widget.TextView", 150, 760,
                w - 150, 1000);
        message.text = de ? "Demo den Zugriff auf Fotos und Videos erlauben?"
                : "Demo に写真と動画へのアクセスを許可しますか?";
        message.automationId = PERMISSION_PKG + ":id/permission_message";
        root.add(message);
        String[][] buttons = {
            {"selected", de ? "Fotos und Videos auswählen" : "写真と動画を選択", "Photos selected"},
            {"all", de ? "Alle zulassen" : "すべて許可", "Photos allowed"},
            {"deny", de ? "Nicht zulassen" : "許可しない", "Photos denied"},
        };
        int top = 1050;
        for (String[] b : buttons) {
            String outcome = b[2];
            FakeNode n = button("photos/" + b[0], b[1], 150, top, w - 150, top + 140, () -> {
                dialogShown = false;
                status = outcome;
                backend.event();
            });
            n.automationId = PERMISSION_PKG + ":id/permission_"
                    + (b[0].equals("deny") ? "deny_button" : "allow_" + b[0] + "_button");
            root.add(n);
            top += 180;
        }
        return root;
    }

    private FakeNode longText(int w, int h) {
        FakeNode root = root("long-text", w, h);
        FakeNode bioField = field("long-text/bio", "Bio", bio, 60, 200, w - 60, 600);
        bioField.onSetText = null;  // this field takes key events only
        bioField.onKeys = v -> {
            focus = "bio";
            for (int i = 0; i < v.length(); i++) {
                sleep(KEY_MS);
            }
            set("bio", v);
        };
        root.add(bioField);
        root.add(text("long-text/about", longText(), 60, 700, w - 60, 2300));
        return root;
    }

    /** The scene's 2,000-character text (words, numbered so any cut shows). */
    static String longText() {
        StringBuilder s = new StringBuilder(LONG_TEXT_CHARS);
        int word = 1;
        while (s.length() < LONG_TEXT_CHARS) {
            s.append("word").append(word++).append(' ');
        }
        return s.substring(0, LONG_TEXT_CHARS);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
