package dev.mobridge.agent.android;

import android.accessibilityservice.AccessibilityService;
import android.accessibilityservice.AccessibilityServiceInfo;
import android.app.Instrumentation;
import android.app.UiAutomation;
import android.content.ActivityNotFoundException;
import android.content.ClipData;
import android.content.ClipboardManager;
import android.content.Context;
import android.content.Intent;
import android.graphics.Bitmap;
import android.graphics.Point;
import android.graphics.Rect;
import android.hardware.display.DisplayManager;
import android.net.Uri;
import android.os.Build;
import android.os.Bundle;
import android.os.ParcelFileDescriptor;
import android.os.SystemClock;
import android.view.Display;
import android.view.KeyEvent;
import android.view.accessibility.AccessibilityEvent;
import android.view.accessibility.AccessibilityNodeInfo;
import android.view.accessibility.AccessibilityWindowInfo;
import dev.mobridge.agent.core.DeviceCommands;
import dev.mobridge.agent.core.NodeActionRunner;
import dev.mobridge.agent.core.Outcome;
import dev.mobridge.agent.core.PackageLists;
import dev.mobridge.agent.core.UiBackend;
import dev.mobridge.agent.core.UiEventListener;
import dev.mobridge.agent.core.KeyboardHide;
import dev.mobridge.agent.core.capture.CacheClear;
import dev.mobridge.agent.core.capture.Prefetch;
import dev.mobridge.agent.core.capture.SecureCheck;
import dev.mobridge.agent.core.capture.TreeWalker;
import dev.mobridge.agent.core.link.ActionVerb;
import dev.mobridge.agent.core.link.AgentMessage.DeviceInfo;
import dev.mobridge.agent.core.link.AgentMessage.Reply;
import dev.mobridge.agent.core.link.GlobalAction;
import dev.mobridge.agent.core.link.HubMessage;
import dev.mobridge.agent.core.link.InstalledApp;
import dev.mobridge.agent.core.link.Platform;
import dev.mobridge.agent.core.link.RawNode;
import dev.mobridge.agent.core.link.RawTree;
import dev.mobridge.agent.core.link.RawWindow;
import dev.mobridge.agent.core.link.Texts;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

/**
 * The UI backend over UiAutomation and AccessibilityNodeInfo.
 *
 * <p>Invariants: a capture covers every window UiAutomation reports (application, system, IME,
 * overlays), nodes in pre-order per window, after clearing the accessibility cache; password
 * fields never contribute text or value; the core calls this class from one thread, while
 * events arrive on UiAutomation's thread and only poke the listener.
 *
 * <p>Every decision lives in the core and is tested there: the walk (depth and node limits,
 * handles, prefetching: {@link TreeWalker}, {@link Prefetch}), the cache clear and its warning
 * ({@link CacheClear}), when FLAG_SECURE is read again ({@link SecureCheck}), bringing a node
 * into view and never tapping a covered point ({@link NodeActionRunner}). What stays here is
 * one call into UiAutomation / AccessibilityNodeInfo per primitive; API levels above 26 are
 * reached only under a {@code Build.VERSION.SDK_INT} check (tools/api-check enforces it).
 */
final class UiAutomationBackend implements UiBackend {
    private static final int EVENT_MASK = AccessibilityEvent.TYPE_WINDOW_STATE_CHANGED
            | AccessibilityEvent.TYPE_WINDOW_CONTENT_CHANGED
            | AccessibilityEvent.TYPE_WINDOWS_CHANGED
            | AccessibilityEvent.TYPE_VIEW_TEXT_CHANGED
            | AccessibilityEvent.TYPE_VIEW_SCROLLED
            | AccessibilityEvent.TYPE_VIEW_FOCUSED
            | AccessibilityEvent.TYPE_VIEW_SELECTED
            | AccessibilityEvent.TYPE_VIEW_CLICKED;
    private static final long NO_WINDOWS_GRACE_MS = 3000;

    private final Instrumentation instrumentation;
    private final UiAutomation automation;
    private final String deviceId;
    private final InputInjector input;
    private final TreeWalker<AccessibilityNodeInfo> walker = new TreeWalker<>(new NodeSource());
    private final SecureCheck secureCheck = new SecureCheck();
    private volatile UiEventListener listener;
    private long noWindowsSince = -1;

    UiAutomationBackend(Instrumentation instrumentation, UiAutomation automation,
            String deviceId) {
        this.instrumentation = instrumentation;
        this.automation = automation;
        this.deviceId = deviceId;
        this.input = new InputInjector(automation);
        automation.setOnAccessibilityEventListener(new EventForwarder());
    }

    /** Forwards relevant accessibility events to the core's debouncer. */
    private final class EventForwarder implements UiAutomation.OnAccessibilityEventListener {
        @Override
        public void onAccessibilityEvent(AccessibilityEvent event) {
            UiEventListener l = listener;
            if (l != null && (event.getEventType() & EVENT_MASK) != 0) {
                l.onUiEvent();
            }
        }
    }

    @Override
    public DeviceInfo deviceInfo() {
        DeviceInfo d = new DeviceInfo(deviceId != null && !deviceId.isEmpty() ? deviceId
                : "android-" + Build.DEVICE);
        d.model = Build.MANUFACTURER + " " + Build.MODEL;
        d.osVersion = Build.VERSION.RELEASE;
        Point size = screenSize0();
        if (size != null) {
            d.width = size.x;
            d.height = size.y;
        }
        return d;
    }

    @Override
    public List<String> capabilities() {
        return Arrays.asList("tree", "node_action", "gesture", "global", "key", "text", "app",
                "screenshot", "clipboard", "apps", "terminate", "clear", "install", "uninstall",
                "orientation", "tree_delta", "alerts", "keyboard", "permission", "location",
                "multi_touch");
    }

    @Override
    public void setEventListener(UiEventListener l) {
        listener = l;
    }

    @Override
    public void reset() {
        walker.reset();
    }

    // ---- capture --------------------------------------------------------------------------

    @Override
    public RawTree capture(int captureId) {
        String cacheWarning = CacheClear.clear(Build.VERSION.SDK_INT, new CachePlatform());
        RawTree tree = new RawTree();
        tree.capture = captureId;
        tree.platform = Platform.ANDROID;
        if (cacheWarning != null) {
            tree.warnings.add(cacheWarning);
        }
        Display display = display();
        if (display != null) {
            Point size = new Point();
            display.getRealSize(size);
            tree.setScreen(size.x, size.y);
            tree.rotation = display.getRotation() * 90;
        }
        int prefetch = Prefetch.strategyFor(Build.VERSION.SDK_INT);
        TreeWalker<AccessibilityNodeInfo>.Walk walk = walker.begin(tree, prefetch);
        for (AccessibilityWindowInfo w : automation.getWindows()) {
            RawWindow rw = rawWindow(w);
            AccessibilityNodeInfo root = prefetch != 0 ? rootPrefetched(w, prefetch)
                    : w.getRoot();
            if (root != null) {
                rw.packageName = Texts.emptyToNull(root.getPackageName());
                walk.window(root, rw.id);
            }
            if (rw.focused && rw.packageName != null && rw.type.equals("application")) {
                tree.packageName = rw.packageName;
            }
            tree.windows.add(rw);
        }
        if (tree.packageName == null) {
            for (RawWindow rw : tree.windows) {
                if (rw.active && rw.packageName != null) {
                    tree.packageName = rw.packageName;
                }
            }
        }
        tree.secure = secureCheck.knownSecure(SecureCheck.signature(tree.windows));
        return walk.finish();
    }

    /** API 33+: the root with its descendants prefetched in the same binder call. */
    private static AccessibilityNodeInfo rootPrefetched(AccessibilityWindowInfo w, int prefetch) {
        if (Build.VERSION.SDK_INT >= 33) {
            return w.getRoot(prefetch);
        }
        return w.getRoot();
    }

    private static RawWindow rawWindow(AccessibilityWindowInfo w) {
        RawWindow rw = new RawWindow();
        rw.id = w.getId();
        rw.type = windowType(w.getType());
        rw.layer = w.getLayer();
        rw.title = Texts.emptyToNull(w.getTitle());
        rw.active = w.isActive();
        rw.focused = w.isFocused();
        Rect b = new Rect();
        w.getBoundsInScreen(b);
        rw.bounds = new int[] {b.left, b.top, b.right, b.bottom};
        return rw;
    }

    /** The walk's view of AccessibilityNodeInfo: one platform call per primitive. */
    private static final class NodeSource implements TreeWalker.Source<AccessibilityNodeInfo> {
        @Override
        public int childCount(AccessibilityNodeInfo n) {
            return n.getChildCount();
        }

        @Override
        public AccessibilityNodeInfo child(AccessibilityNodeInfo n, int index, int prefetch) {
            if (prefetch != 0 && Build.VERSION.SDK_INT >= 33) {
                return n.getChild(index, prefetch);
            }
            return n.getChild(index);
        }

        @Override
        public RawNode read(AccessibilityNodeInfo n) {
            return toRaw(n);
        }

        @Override
        public Object key(AccessibilityNodeInfo n) {
            // The platform's equality: the same source node of the same window.
            return n;
        }
    }

    /** The cache clears: clearCache from API 34, setServiceInfo before (both public). */
    private final class CachePlatform implements CacheClear.Platform {
        @Override
        public boolean clearPublic() {
            if (Build.VERSION.SDK_INT >= 34) {
                return automation.clearCache();
            }
            return false;
        }

        @Override
        public boolean resetServiceInfo() {
            // Setting the info again clears the platform's node cache (public since API 18).
            automation.setServiceInfo(automation.getServiceInfo());
            return true;
        }
    }

    private static RawNode toRaw(AccessibilityNodeInfo n) {
        RawNode r = new RawNode();
        r.className = Texts.emptyToNull(n.getClassName());
        r.password = n.isPassword();
        r.text = liveText(n);
        r.label = Texts.emptyToNull(n.getContentDescription());
        r.hint = Texts.emptyToNull(n.getHintText());
        r.automationId = Texts.emptyToNull(n.getViewIdResourceName());
        r.packageName = Texts.emptyToNull(n.getPackageName());
        Rect b = new Rect();
        n.getBoundsInScreen(b);
        r.bounds = new int[] {b.left, b.top, b.right, b.bottom};
        r.clickable = n.isClickable();
        r.longClickable = n.isLongClickable();
        r.checkable = n.isCheckable();
        r.checked = n.isChecked();
        r.enabled = n.isEnabled();
        r.focusable = n.isFocusable();
        r.focused = n.isFocused();
        r.selected = n.isSelected();
        r.scrollable = n.isScrollable();
        r.editable = n.isEditable();
        r.visible = n.isVisibleToUser();
        if (Build.VERSION.SDK_INT >= 28) {
            r.heading = n.isHeading();
        }
        if (Build.VERSION.SDK_INT >= 30 && !r.password) {
            r.value = Texts.emptyToNull(n.getStateDescription());
        }
        for (AccessibilityNodeInfo.AccessibilityAction a : n.getActionList()) {
            String name = actionName(a.getId());
            if (name != null) {
                r.actions.add(name);
            }
        }
        AccessibilityNodeInfo.CollectionInfo ci = n.getCollectionInfo();
        if (ci != null) {
            r.collectionRows = ci.getRowCount();
            r.collectionCols = ci.getColumnCount();
        }
        AccessibilityNodeInfo.CollectionItemInfo ii = n.getCollectionItemInfo();
        if (ii != null) {
            r.itemRow = ii.getRowIndex();
            r.itemCol = ii.getColumnIndex();
        }
        AccessibilityNodeInfo.RangeInfo ri = n.getRangeInfo();
        if (ri != null) {
            r.rangeValue = (double) ri.getCurrent();
        }
        return r;
    }

    /** The text a capture reports: never a password's, never the hint shown in its place. */
    static String liveText(AccessibilityNodeInfo n) {
        if (n.isPassword() || n.isShowingHintText()) {
            return null;
        }
        return Texts.emptyToNull(n.getText());
    }

    static String windowType(int type) {
        switch (type) {
            case AccessibilityWindowInfo.TYPE_APPLICATION:
                return "application";
            case AccessibilityWindowInfo.TYPE_INPUT_METHOD:
                return "input_method";
            case AccessibilityWindowInfo.TYPE_SYSTEM:
                return "system";
            case AccessibilityWindowInfo.TYPE_ACCESSIBILITY_OVERLAY:
                return "accessibility_overlay";
            case AccessibilityWindowInfo.TYPE_SPLIT_SCREEN_DIVIDER:
                return "split_screen_divider";
            default:
                return "unknown";
        }
    }

    static String actionName(int id) {
        switch (id) {
            case AccessibilityNodeInfo.ACTION_CLICK:
                return "click";
            case AccessibilityNodeInfo.ACTION_LONG_CLICK:
                return "longClick";
            case AccessibilityNodeInfo.ACTION_SET_TEXT:
                return "setText";
            case AccessibilityNodeInfo.ACTION_SCROLL_FORWARD:
                return "scrollForward";
            case AccessibilityNodeInfo.ACTION_SCROLL_BACKWARD:
                return "scrollBackward";
            case AccessibilityNodeInfo.ACTION_FOCUS:
                return "focus";
            case AccessibilityNodeInfo.ACTION_SELECT:
                return "select";
            case AccessibilityNodeInfo.ACTION_EXPAND:
                return "expand";
            case AccessibilityNodeInfo.ACTION_COLLAPSE:
                return "collapse";
            case AccessibilityNodeInfo.ACTION_DISMISS:
                return "dismiss";
            case AccessibilityNodeInfo.ACTION_COPY:
                return "copy";
            case AccessibilityNodeInfo.ACTION_PASTE:
                return "paste";
            default:
                return null;
        }
    }

    static int actionId(ActionVerb verb) {
        switch (verb) {
            case CLICK:
                return AccessibilityNodeInfo.ACTION_CLICK;
            case LONG_CLICK:
                return AccessibilityNodeInfo.ACTION_LONG_CLICK;
            case SET_TEXT:
            case CLEAR_TEXT:
                return AccessibilityNodeInfo.ACTION_SET_TEXT;
            case FOCUS:
                return AccessibilityNodeInfo.ACTION_FOCUS;
            case SCROLL_FORWARD:
                return AccessibilityNodeInfo.ACTION_SCROLL_FORWARD;
            case SCROLL_BACKWARD:
                return AccessibilityNodeInfo.ACTION_SCROLL_BACKWARD;
            case SELECT:
                return AccessibilityNodeInfo.ACTION_SELECT;
            case EXPAND:
                return AccessibilityNodeInfo.ACTION_EXPAND;
            case COLLAPSE:
                return AccessibilityNodeInfo.ACTION_COLLAPSE;
            case DISMISS:
                return AccessibilityNodeInfo.ACTION_DISMISS;
            case COPY:
                return AccessibilityNodeInfo.ACTION_COPY;
            case PASTE:
                return AccessibilityNodeInfo.ACTION_PASTE;
            default:
                throw new IllegalArgumentException(String.valueOf(verb));
        }
    }

    // ---- actions --------------------------------------------------------------------------

    @Override
    public Outcome nodeAction(HubMessage.NodeAction cmd) {
        if (!walker.holds(cmd.capture)) {
            return Outcome.notFound("capture " + cmd.capture + " is not held any more");
        }
        AccessibilityNodeInfo node = walker.node(cmd.capture, cmd.handle);
        if (node == null) {
            return Outcome.notFound("capture " + cmd.capture + " has no handle " + cmd.handle);
        }
        return NodeActionRunner.run(ops, node, cmd);
    }

    private final NodeActionRunner.NodeOps<AccessibilityNodeInfo> ops =
            new NodeActionRunner.NodeOps<AccessibilityNodeInfo>() {
        @Override
        public boolean refresh(AccessibilityNodeInfo n) {
            return n.refresh();
        }

        @Override
        public String className(AccessibilityNodeInfo n) {
            return Texts.emptyToNull(n.getClassName());
        }

        @Override
        public String automationId(AccessibilityNodeInfo n) {
            return Texts.emptyToNull(n.getViewIdResourceName());
        }

        @Override
        public String text(AccessibilityNodeInfo n) {
            return liveText(n);
        }

        @Override
        public String label(AccessibilityNodeInfo n) {
            return Texts.emptyToNull(n.getContentDescription());
        }

        @Override
        public AccessibilityNodeInfo parent(AccessibilityNodeInfo n) {
            return n.getParent();
        }

        @Override
        public boolean isPassword(AccessibilityNodeInfo n) {
            return n.isPassword();
        }

        @Override
        public boolean showOnScreen(AccessibilityNodeInfo n) {
            return n.performAction(AccessibilityNodeInfo.AccessibilityAction.ACTION_SHOW_ON_SCREEN
                    .getId());
        }

        @Override
        public String coveringWindow(AccessibilityNodeInfo n, int x, int y) {
            return covering(n.getWindowId(), x, y);
        }

        @Override
        public boolean hideKeyboard() {
            // BACK closes the keyboard when one is shown (and does nothing else then).
            return automation.performGlobalAction(AccessibilityService.GLOBAL_ACTION_BACK);
        }

        @Override
        public int[] visibleBounds(AccessibilityNodeInfo n) {
            if (!n.isVisibleToUser()) {
                return null;
            }
            Rect b = new Rect();
            n.getBoundsInScreen(b);
            Point size = screenSize0();
            if (size != null && !b.intersect(0, 0, size.x, size.y)) {
                return null;
            }
            return new int[] {b.left, b.top, b.right, b.bottom};
        }

        @Override
        public boolean isClickable(AccessibilityNodeInfo n) {
            return n.isClickable();
        }

        @Override
        public boolean isLongClickable(AccessibilityNodeInfo n) {
            return n.isLongClickable();
        }

        @Override
        public boolean isScrollable(AccessibilityNodeInfo n) {
            return n.isScrollable();
        }

        @Override
        public boolean isEditable(AccessibilityNodeInfo n) {
            return n.isEditable();
        }

        @Override
        public boolean perform(AccessibilityNodeInfo n, ActionVerb verb, String text) {
            if (verb == ActionVerb.SET_TEXT || verb == ActionVerb.CLEAR_TEXT) {
                Bundle args = new Bundle();
                args.putCharSequence(
                        AccessibilityNodeInfo.ACTION_ARGUMENT_SET_TEXT_CHARSEQUENCE, text);
                return n.performAction(AccessibilityNodeInfo.ACTION_SET_TEXT, args);
            }
            return n.performAction(actionId(verb));
        }

        @Override
        public boolean tap(int x, int y, boolean longPress) {
            return input.tap(x, y, longPress ? 700 : 40);
        }

        @Override
        public boolean typeWithKeys(AccessibilityNodeInfo n, String text) {
            if (!n.performAction(AccessibilityNodeInfo.ACTION_FOCUS)
                    && !n.performAction(AccessibilityNodeInfo.ACTION_CLICK)) {
                return false;
            }
            return input.clearFocused() && input.type(text);
        }
    };

    @Override
    public Outcome gesture(HubMessage.Gesture g) {
        int[] p = g.points.get(0);
        boolean done;
        switch (g.kind) {
            case "tap":
                done = input.tap(p[0], p[1], Math.max(40, g.durationMs));
                break;
            case "long_press":
                done = input.tap(p[0], p[1], Math.max(700, g.durationMs));
                break;
            case "double_tap":
                done = input.doubleTap(p[0], p[1]);
                break;
            case "swipe":
                done = input.swipe(g.points, Math.max(100, g.durationMs));
                break;
            default:
                return Outcome.unsupported("gesture kind " + g.kind);
        }
        return done ? Outcome.ok() : Outcome.failed("the input events were not injected");
    }

    /** Several pointers injected at once (pinch, two-finger tap); API 26 has every call used. */
    @Override
    public Outcome multiTouch(List<List<int[]>> fingers, int durationMs) {
        boolean done;
        try {
            done = input.multiTouch(fingers, durationMs);
        } catch (IllegalArgumentException e) {
            return Outcome.fail(Reply.BAD_COMMAND, e.getMessage());
        }
        return done ? Outcome.ok() : Outcome.failed("the input events were not injected");
    }

    @Override
    public Outcome globalAction(GlobalAction action) {
        int id;
        switch (action) {
            case BACK:
                id = AccessibilityService.GLOBAL_ACTION_BACK;
                break;
            case HOME:
                id = AccessibilityService.GLOBAL_ACTION_HOME;
                break;
            case RECENTS:
                id = AccessibilityService.GLOBAL_ACTION_RECENTS;
                break;
            case NOTIFICATION_SHADE:
                id = AccessibilityService.GLOBAL_ACTION_NOTIFICATIONS;
                break;
            default:
                return Outcome.unsupported(String.valueOf(action));
        }
        return automation.performGlobalAction(id) ? Outcome.ok()
                : Outcome.failed(action + " was refused");
    }

    @Override
    public Outcome key(String keyName) {
        if (!keyName.matches("[A-Z0-9_]{1,40}")) {
            return Outcome.fail(Reply.BAD_COMMAND, "key names are like ENTER, DEL, TAB");
        }
        int code = KeyEvent.keyCodeFromString("KEYCODE_" + keyName);
        if (code == KeyEvent.KEYCODE_UNKNOWN) {
            return Outcome.unsupported("unknown key " + keyName);
        }
        return input.key(code, 0) ? Outcome.ok() : Outcome.failed("key events not injected");
    }

    @Override
    public Outcome typeText(String text) {
        if (input.type(text)) {
            return Outcome.ok();
        }
        // Characters the key map cannot produce: append through the focused field instead.
        AccessibilityNodeInfo focused = automation.findFocus(AccessibilityNodeInfo.FOCUS_INPUT);
        if (focused == null || !focused.isEditable()) {
            return Outcome.failed("the text has characters without keys and no field has focus");
        }
        String current = focused.isPassword() ? null : liveText(focused);
        Bundle args = new Bundle();
        args.putCharSequence(AccessibilityNodeInfo.ACTION_ARGUMENT_SET_TEXT_CHARSEQUENCE,
                (current == null ? "" : current) + text);
        return focused.performAction(AccessibilityNodeInfo.ACTION_SET_TEXT, args) ? Outcome.ok()
                : Outcome.failed("the focused field refused the text");
    }

    @Override
    public Outcome app(HubMessage.App cmd) {
        Context context = instrumentation.getContext();
        try {
            switch (cmd.action) {
                case APP_OPEN:
                case APP_BRING_TO_FRONT: {
                    if (cmd.appId == null) {
                        return Outcome.fail(Reply.BAD_COMMAND, cmd.action + " needs appId");
                    }
                    Intent launch = context.getPackageManager()
                            .getLaunchIntentForPackage(cmd.appId);
                    if (launch == null) {
                        return Outcome.notFound("no launchable activity in " + cmd.appId);
                    }
                    launch.addFlags(Intent.FLAG_ACTIVITY_NEW_TASK
                            | Intent.FLAG_ACTIVITY_RESET_TASK_IF_NEEDED);
                    context.startActivity(launch);
                    return Outcome.ok();
                }
                case APP_DEEP_LINK: {
                    if (cmd.uri == null) {
                        return Outcome.fail(Reply.BAD_COMMAND, "APP_DEEP_LINK needs uri");
                    }
                    Intent view = new Intent(Intent.ACTION_VIEW, Uri.parse(cmd.uri));
                    if (cmd.appId != null) {
                        view.setPackage(cmd.appId);
                    }
                    view.addFlags(Intent.FLAG_ACTIVITY_NEW_TASK);
                    context.startActivity(view);
                    return Outcome.ok();
                }
                case APP_CLOSE_UI:
                    return globalAction(GlobalAction.HOME);
                default:
                    return Outcome.unsupported(String.valueOf(cmd.action));
            }
        } catch (ActivityNotFoundException e) {
            return Outcome.notFound("no activity handles the request");
        }
    }

    @Override
    public Outcome screenshot() throws Exception {
        List<RawWindow> windows = new ArrayList<>();
        for (AccessibilityWindowInfo w : automation.getWindows()) {
            windows.add(rawWindow(w));
        }
        List<String> secure = secureCheck.secureWindows(SecureCheck.signature(windows),
                SystemClock.uptimeMillis(), () -> shell("dumpsys window windows"));
        if (!secure.isEmpty()) {
            return Outcome.fail(Reply.SECURE, "window " + secure.get(0)
                    + " forbids capture (FLAG_SECURE)");
        }
        Bitmap bitmap = automation.takeScreenshot();
        if (bitmap == null) {
            return Outcome.failed("UiAutomation returned no screenshot");
        }
        ByteArrayOutputStream png = new ByteArrayOutputStream();
        try {
            if (!bitmap.compress(Bitmap.CompressFormat.PNG, 100, png)) {
                return Outcome.failed("PNG encoding failed");
            }
        } finally {
            bitmap.recycle();
        }
        return Outcome.png(Base64.getEncoder().encodeToString(png.toByteArray()));
    }

    /**
     * The type of the window above {@code windowId} that covers (x, y), or null. Windows are
     * compared by layer (higher is in front), as UiAutomation reports them.
     */
    private String covering(int windowId, int x, int y) {
        List<AccessibilityWindowInfo> windows = automation.getWindows();
        int own = Integer.MIN_VALUE;
        for (AccessibilityWindowInfo w : windows) {
            if (w.getId() == windowId) {
                own = w.getLayer();
            }
        }
        Rect b = new Rect();
        for (AccessibilityWindowInfo w : windows) {
            if (w.getId() == windowId || w.getLayer() <= own) {
                continue;
            }
            w.getBoundsInScreen(b);
            if (b.contains(x, y)) {
                return windowType(w.getType());
            }
        }
        return null;
    }

    @Override
    public Outcome clipboard(String set) {
        Context context = instrumentation.getContext();
        Outcome[] result = new Outcome[1];
        instrumentation.runOnMainSync(() -> {
            ClipboardManager cm =
                    (ClipboardManager) context.getSystemService(Context.CLIPBOARD_SERVICE);
            if (set != null) {
                cm.setPrimaryClip(ClipData.newPlainText("mobridge", set));
                result[0] = Outcome.ok();
                return;
            }
            ClipData clip = cm.getPrimaryClip();
            if (clip == null && Build.VERSION.SDK_INT >= 29) {
                result[0] = Outcome.unsupported(
                        "Android 10+ lets only the focused app or the IME read the clipboard");
                return;
            }
            CharSequence text = clip == null || clip.getItemCount() == 0 ? null
                    : clip.getItemAt(0).getText();
            result[0] = Outcome.text(text == null ? null : text.toString());
        });
        return result[0];
    }

    @Override
    public String health() {
        try {
            AccessibilityServiceInfo info = automation.getServiceInfo();
            if (info == null) {
                return "UiAutomation returned no service info";
            }
            if (automation.getWindows().isEmpty()) {
                long now = SystemClock.uptimeMillis();
                if (noWindowsSince < 0) {
                    noWindowsSince = now;
                }
                if (now - noWindowsSince > NO_WINDOWS_GRACE_MS) {
                    return "UiAutomation reports no windows for " + (now - noWindowsSince) + " ms";
                }
            } else {
                noWindowsSince = -1;
            }
            return null;
        } catch (RuntimeException e) {
            return "UiAutomation lost: " + e.getClass().getSimpleName();
        }
    }

    // ---- apps and orientation (the package and activity managers, through the shell) ----

    @Override
    public Outcome apps() throws IOException {
        List<InstalledApp> apps = new ArrayList<>();
        List<String> user = PackageLists.parse(shell("pm list packages -3"));
        for (String name : user) {
            apps.add(new InstalledApp(name, null, false));
        }
        for (String name : PackageLists.parse(shell("pm list packages -s"))) {
            if (!user.contains(name) && apps.size() < Reply.MAX_APPS) {
                apps.add(new InstalledApp(name, null, true));
            }
        }
        return Outcome.apps(apps);
    }

    @Override
    public Outcome terminate(String appId) throws IOException {
        String problem = ownOrInvalid(appId);
        if (problem != null) {
            return Outcome.fail(Reply.BAD_COMMAND, problem);
        }
        String out = shell("am force-stop " + appId).trim();
        return out.isEmpty() ? Outcome.ok() : Outcome.failed(PackageLists.first(out));
    }

    /**
     * {@code pm grant/revoke} (and, for a reset, the user-set flags cleared) as the shell, then
     * the result read back from {@code dumpsys package}: {@code executeShellCommand} returns
     * stdout only and {@code pm} fails on stderr, so silence proves nothing (issue 34).
     */
    @Override
    public Outcome permission(String appId, String androidPermission, List<String> commands)
            throws Exception {
        if (!PackageLists.packageName(appId)) {
            return Outcome.fail(Reply.BAD_COMMAND, appId + " is not an Android package name");
        }
        return DeviceCommands.applyPermission(c -> new String[] {shell(c), null}, appId,
                androidPermission, commands);
    }

    @Override
    public int sdkInt() {
        return Build.VERSION.SDK_INT;
    }

    @Override
    public int[] screenSize() {
        Point p = screenSize0();
        return p == null ? new int[] {0, 0} : new int[] {p.x, p.y};
    }

    /** {@code mInputShown} of {@code dumpsys input_method} (appium-adb reads the same). */
    @Override
    public Boolean inputShown() throws IOException {
        return KeyboardHide.inputShown(shell("dumpsys input_method"));
    }

    /** A test provider fed through {@code cmd location} (Android 12+), as the shell. */
    @Override
    public Outcome location(Double latitude, Double longitude) throws IOException {
        for (String command : DeviceCommands.location(latitude, longitude)) {
            String out = shell(command).trim();
            if (out.contains("Exception") || out.contains("Unknown command")
                    || out.contains("Error")) {
                return Outcome.failed(PackageLists.first(out));
            }
        }
        return Outcome.ok();
    }

    @Override
    public Outcome clear(String appId) throws IOException {
        String problem = ownOrInvalid(appId);
        if (problem != null) {
            return Outcome.fail(Reply.BAD_COMMAND, problem);
        }
        String out = shell("pm clear " + appId).trim(); // prints Success or Failed
        return out.contains("Success") ? Outcome.ok() : Outcome.failed(PackageLists.first(out));
    }

    @Override
    public Outcome install(String path, String sha256) throws IOException {
        if (!PackageLists.stagedPath(path)) {
            return Outcome.fail(Reply.BAD_COMMAND, "packages are installed from "
                    + PackageLists.STAGED_DIR + " only");
        }
        if (sha256 != null) {
            String sum = shell("sha256sum " + path).trim();
            if (sum.matches("[0-9a-f]{64}\\s.*") && !sum.startsWith(sha256)) {
                return Outcome.failed("the staged package does not have the sha256 the hub sent");
            }
        }
        String out = shell("pm install -r -t " + path).trim();
        shell("rm -f " + path);  // the staged copy is the hub's; it is not kept
        return out.contains("Success") ? Outcome.ok() : Outcome.failed(PackageLists.first(out));
    }

    @Override
    public Outcome uninstall(String appId) throws IOException {
        String problem = ownOrInvalid(appId);
        if (problem != null) {
            return Outcome.fail(Reply.BAD_COMMAND, problem);
        }
        String out = shell("pm uninstall " + appId).trim();
        return out.contains("Success") ? Outcome.ok() : Outcome.failed(PackageLists.first(out));
    }

    @Override
    public Outcome orientation(String orientation) {
        int rotation = orientation.equals(HubMessage.Orientation.LANDSCAPE)
                ? UiAutomation.ROTATION_FREEZE_90 : UiAutomation.ROTATION_FREEZE_0;
        return automation.setRotation(rotation) ? Outcome.ok()
                : Outcome.failed("UiAutomation refused the rotation");
    }

    /** Why {@code appId} may not be stopped or removed here (not a package, or this agent). */
    private String ownOrInvalid(String appId) {
        if (!PackageLists.packageName(appId)) {
            return appId + " is not an Android package name";
        }
        if (appId.equals(instrumentation.getContext().getPackageName())) {
            return "the agent does not stop or remove itself";
        }
        return null;
    }

    // ---- helpers --------------------------------------------------------------------------

    private Display display() {
        DisplayManager dm = (DisplayManager) instrumentation.getContext()
                .getSystemService(Context.DISPLAY_SERVICE);
        return dm == null ? null : dm.getDisplay(Display.DEFAULT_DISPLAY);
    }

    private Point screenSize0() {
        Display d = display();
        if (d == null) {
            return null;
        }
        Point p = new Point();
        d.getRealSize(p);
        return p;
    }

    private String shell(String command) throws IOException {
        ParcelFileDescriptor fd = automation.executeShellCommand(command);
        try (InputStream in = new ParcelFileDescriptor.AutoCloseInputStream(fd)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buf = new byte[16384];
            int n;
            while ((n = in.read(buf)) > 0) {
                out.write(buf, 0, n);
            }
            return out.toString("UTF-8");
        }
    }
}
