package dev.mobridge.agent.host;

import dev.mobridge.agent.core.NodeActionRunner;
import dev.mobridge.agent.core.DeviceCommands;
import dev.mobridge.agent.core.Outcome;
import dev.mobridge.agent.core.UiBackend;
import dev.mobridge.agent.core.UiEventListener;
import dev.mobridge.agent.core.capture.CacheClear;
import dev.mobridge.agent.core.capture.LayoutMode;
import dev.mobridge.agent.core.capture.Prefetch;
import dev.mobridge.agent.core.capture.SecureCheck;
import dev.mobridge.agent.core.capture.TreeWalker;
import dev.mobridge.agent.core.link.ActionVerb;
import dev.mobridge.agent.core.link.AgentMessage.DeviceInfo;
import dev.mobridge.agent.core.link.AgentMessage.Reply;
import dev.mobridge.agent.core.link.GlobalAction;
import dev.mobridge.agent.core.link.HubMessage;
import dev.mobridge.agent.core.link.Platform;
import dev.mobridge.agent.core.link.RawNode;
import dev.mobridge.agent.core.link.RawTree;
import dev.mobridge.agent.core.link.RawWindow;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * A scripted UI reproducing the simulated demo app ({@code dev.mobridge.demo}) for host mode.
 *
 * <p>Screens: {@code login} (marker {@code __screen_login}; Username, Password, "Sign in" with
 * id {@code login}; user {@code demo} with any password opens home, anyone else gets "Invalid
 * credentials"), {@code home} (marker {@code __screen_home}; title "Home", a clock whose text
 * changes every second, entries "Dialog" and "Login"), {@code dialog} (a second window over
 * home with OK/Cancel) and a launcher. BACK: dialog -> home -> login -> launcher. A node keeps
 * its handle across captures (one per stable node key, so the agent can send tree deltas);
 * an action on a node no longer on screen is NOT_FOUND. Password text is never put in a capture. Every state change raises a UI event.
 *
 * <p>Pathology scenes ({@link FakeScenes#NAMES}, chosen with {@link #setScene}) replace the demo
 * app with one failure class each. Captures go through the core's {@link TreeWalker} over a
 * {@link FakeSource}, which counts node fetches ({@link #childFetches}); screenshots read
 * FLAG_SECURE through the core's {@link SecureCheck}, counting dumps ({@link #secureDumps}).
 */
public final class FakeUiBackend implements UiBackend {
    public static final String PKG = "dev.mobridge.demo";
    public static final String LAUNCHER_PKG = "com.android.launcher3";
    static final int WIDTH = 1080;
    static final int HEIGHT = 2400;
    static final int APP_WINDOW = 1;
    static final int DIALOG_WINDOW = 2;
    static final int LAUNCHER_WINDOW = 10;

    enum Screen { LAUNCHER, LOGIN, HOME, DIALOG }

    private final LongSupplier wallClock;
    private final boolean ticking;
    private Screen screen = Screen.LOGIN;
    private Screen appScreen = Screen.LOGIN;
    private String username = "";
    private String password = "";
    private boolean showError;
    private String focus;
    private String clipboard;
    private boolean secure;
    private String healthProblem;
    private volatile UiEventListener listener;
    private Thread ticker;
    private boolean landscape;
    private final FakeSource source = new FakeSource(this::toRaw);
    private final TreeWalker<FakeNode> walker = new TreeWalker<>(source);
    private final SecureCheck secureCheck = new SecureCheck();
    private int sdkInt = 34;
    private boolean hiddenApiBlocked;
    final FakeScenes scenes = new FakeScenes(this);
    private int volume = 7;
    private final FakePackages packages = new FakePackages();

    /** @param wallClock epoch millis for the clock text; @param ticking run the 1 s clock. */
    public FakeUiBackend(LongSupplier wallClock, boolean ticking) {
        this.wallClock = wallClock;
        this.ticking = ticking;
    }

    public FakeUiBackend() {
        this(System::currentTimeMillis, true);
    }

    // ---- test hooks -----------------------------------------------------------------------

    public synchronized String screenName() {
        return screen.name().toLowerCase(Locale.ROOT);
    }

    public synchronized void setSecure(boolean secure) {
        this.secure = secure;
        changed();
    }

    public synchronized void setHealthProblem(String problem) {
        this.healthProblem = problem;
    }

    /** Serves scene {@code name} ({@link FakeScenes#NAMES}; "login" is the demo app). */
    public synchronized void setScene(String name) {
        scenes.select(name);
        landscape = scenes.landscape();
        changed();
    }

    public synchronized String scene() {
        return scenes.name();
    }

    /** Full (default) or compressed layout: which views the fake accessibility service shows. */
    public synchronized void setLayout(LayoutMode mode) {
        source.layout = mode;
    }

    /** The API level the fake reports to the core's decisions (prefetch, cache clear). */
    public synchronized void setSdkInt(int sdkInt) {
        this.sdkInt = sdkInt;
    }

    private boolean serviceInfoRefused;
    private int serviceInfoResets;

    /** Makes setServiceInfo fail (a disconnected automation). */
    public synchronized void setServiceInfoRefused(boolean refused) {
        this.serviceInfoRefused = refused;
    }

    /** How often the pre-API-34 cache clear reset the service info. */
    public synchronized int serviceInfoResets() {
        return serviceInfoResets;
    }

    /** Blocks hidden (reflective) API calls as the hidden-API policy would; the agent makes none. */
    public synchronized void setHiddenApiBlocked(boolean blocked) {
        this.hiddenApiBlocked = blocked;
    }

    /** Node fetches ("binder calls") made by captures so far. */
    public synchronized int childFetches() {
        return source.calls();
    }

    /** How many times a screenshot ran {@code dumpsys window windows}. */
    public synchronized int secureDumps() {
        return secureCheck.dumps();
    }

    /** Raises the clock's change event now (the ticker does this every second). */
    public void tick() {
        UiEventListener l = listener;
        boolean clockVisible;
        synchronized (this) {
            clockVisible = screen == Screen.HOME || screen == Screen.DIALOG;
        }
        if (clockVisible && l != null) {
            l.onUiEvent();
        }
    }

    // ---- UiBackend ------------------------------------------------------------------------

    @Override
    public DeviceInfo deviceInfo() {
        DeviceInfo d = new DeviceInfo("host-fake");
        d.model = "mobridge host fake";
        d.osVersion = "host";
        d.width = w();
        d.height = h();
        return d;
    }

    @Override
    public List<String> capabilities() {
        return Arrays.asList("tree", "node_action", "gesture", "global", "key", "text", "app",
                "screenshot", "clipboard", "apps", "terminate", "clear", "install", "uninstall",
                "orientation", "tree_delta", "alerts", "keyboard", "multi_touch", "permission",
                "location");
    }

    /** The screen's width as turned now (portrait: WIDTH). */
    private int w() {
        return landscape ? HEIGHT : WIDTH;
    }

    private int h() {
        return landscape ? WIDTH : HEIGHT;
    }

    public synchronized int volume() {
        return volume;
    }

    @Override
    public synchronized void setEventListener(UiEventListener l) {
        this.listener = l;
        if (l != null && ticking && ticker == null) {
            ticker = new Thread(this::tickLoop, "fake-clock");
            ticker.setDaemon(true);
            ticker.start();
        }
        if (l != null && ticking) {
            scenes.startTicking();
        }
    }

    /** Raises a UI event (the scenes' own tickers). */
    void event() {
        changed();
    }

    private void tickLoop() {
        try {
            while (true) {
                long now = wallClock.getAsLong();
                Thread.sleep(1000 - Math.floorMod(now, 1000L) + 5);
                tick();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public synchronized void reset() {
        walker.reset();
    }

    @Override
    public synchronized RawTree capture(int captureId) {
        RawTree tree = new RawTree();
        String warning = CacheClear.clear(sdkInt, new CacheClear.Platform() {
            @Override
            public boolean clearPublic() {
                source.clearCache();
                return true;
            }

            @Override
            public boolean resetServiceInfo() throws Exception {
                // Public API: the hidden-API policy (hiddenApiBlocked) does not apply.
                if (serviceInfoRefused) {
                    throw new IllegalStateException("UiAutomation not connected");
                }
                serviceInfoResets++;
                source.clearCache();
                return true;
            }
        });
        if (warning != null) {
            tree.warnings.add(warning);
            source.clearCache();  // the fake's own cache must not leak state between captures
        }
        tree.capture = captureId;
        tree.platform = Platform.ANDROID;
        tree.setScreen(w(), h());
        tree.rotation = landscape ? 90 : 0;
        int prefetch = Prefetch.strategyFor(sdkInt);
        TreeWalker<FakeNode>.Walk walk = walker.begin(tree, prefetch);
        for (Object[] w : windows()) {
            RawWindow win = (RawWindow) w[0];
            tree.windows.add(win);
            walk.window(source.root((FakeNode) w[1], prefetch), win.id);
        }
        for (RawWindow win : tree.windows) {
            if (win.focused) {
                tree.packageName = win.packageName;
            }
        }
        tree.secure = secure || secureCheck.knownSecure(SecureCheck.signature(tree.windows));
        return walk.finish();
    }

    private RawNode toRaw(FakeNode n) {
        RawNode r = new RawNode();
        r.className = n.className;
        r.text = n.password ? null : n.text;
        r.label = n.label;
        r.hint = n.hint;
        r.automationId = n.automationId;
        r.packageName = n.packageName != null ? n.packageName : PKG;
        r.bounds = n.bounds.clone();
        r.clickable = n.clickable;
        r.focusable = n.focusable;
        r.focused = n.focused;
        r.editable = n.editable;
        r.password = n.password;
        r.heading = n.heading;
        r.scrollable = n.scrollable;
        r.visible = ops.visibleBounds(n) != null;
        r.collectionRows = n.collectionRows;
        r.collectionCols = n.collectionRows == null ? null : 1;
        r.itemRow = n.itemRow;
        r.itemCol = n.itemRow == null ? null : 0;
        if (n.clickable) {
            r.actions.add("click");
        }
        if (n.focusable) {
            r.actions.add("focus");
        }
        if (n.editable) {
            r.actions.add("setText");
        }
        if (n.scrollable) {
            r.actions.add("scrollForward");
            r.actions.add("scrollBackward");
        }
        return r;
    }

    @Override
    public synchronized Outcome nodeAction(HubMessage.NodeAction cmd) {
        if (!walker.holds(cmd.capture)) {
            return Outcome.notFound("capture " + cmd.capture + " is not held any more");
        }
        FakeNode captured = walker.node(cmd.capture, cmd.handle);
        if (captured == null) {
            return Outcome.notFound("capture " + cmd.capture + " has no handle " + cmd.handle);
        }
        return NodeActionRunner.run(ops, find(captured.key), cmd);
    }

    @Override
    public synchronized Outcome gesture(HubMessage.Gesture g) {
        int[] p = g.points.get(0);
        switch (g.kind) {
            case "tap":
            case "long_press":
                ops.tap(p[0], p[1], g.kind.equals("long_press"));
                return Outcome.ok();
            case "double_tap":
                ops.tap(p[0], p[1], false);
                ops.tap(p[0], p[1], false);
                return Outcome.ok();
            case "swipe":
                return Outcome.ok();
            default:
                return Outcome.unsupported("gesture kind " + g.kind);
        }
    }

    @Override
    public synchronized Outcome globalAction(GlobalAction action) {
        switch (action) {
            case BACK:
                back();
                return Outcome.ok();
            case HOME:
                go(Screen.LAUNCHER);
                return Outcome.ok();
            default:
                return Outcome.unsupported(action + " is not scripted in the fake");
        }
    }

    @Override
    public synchronized Outcome key(String key) {
        switch (key) {
            case "ENTER":
                if ("username".equals(focus) || "password".equals(focus)) {
                    signIn();
                }
                return Outcome.ok();
            case "DEL":
                if (focus != null) {
                    String v = field(focus);
                    setField(focus, v.isEmpty() ? v : v.substring(0, v.length() - 1));
                }
                return Outcome.ok();
            case "TAB":
            case "DPAD_DOWN":
                if ("username".equals(focus)) {
                    focus = "password";
                    changed();
                }
                return Outcome.ok();
            case "DPAD_UP":
                if ("password".equals(focus)) {
                    focus = "username";
                    changed();
                }
                return Outcome.ok();
            case "VOLUME_UP":
                volume = Math.min(15, volume + 1);
                return Outcome.ok();
            case "VOLUME_DOWN":
                volume = Math.max(0, volume - 1);
                return Outcome.ok();
            case "VOLUME_MUTE":
                volume = 0;
                return Outcome.ok();
            case "SPACE":
                return typeText(" ");
            case "BACK":
                return globalAction(GlobalAction.BACK);
            case "ESCAPE":
                scenes.escape();
                return Outcome.ok();
            case "HOME":
                return globalAction(GlobalAction.HOME);
            default:
                return Outcome.unsupported("key " + key + " is not scripted in the fake");
        }
    }

    @Override
    public synchronized Outcome typeText(String text) {
        if (!scenes.isLogin()) {
            return scenes.type(text) ? Outcome.ok() : Outcome.failed("no input has focus");
        }
        if (focus == null) {
            return Outcome.failed("no input has focus");
        }
        setField(focus, field(focus) + text);
        return Outcome.ok();
    }

    @Override
    public synchronized Outcome app(HubMessage.App cmd) {
        switch (cmd.action) {
            case APP_OPEN:
            case APP_BRING_TO_FRONT:
                if (!PKG.equals(cmd.appId)) {
                    return Outcome.notFound("no launchable app " + cmd.appId);
                }
                go(appScreen);
                return Outcome.ok();
            case APP_CLOSE_UI:
                go(Screen.LAUNCHER);
                return Outcome.ok();
            case APP_DEEP_LINK:
                String uri = cmd.uri == null ? "" : cmd.uri;
                if (cmd.appId != null && !PKG.equals(cmd.appId)) {
                    return Outcome.notFound("no app " + cmd.appId + " handles " + uri);
                }
                switch (uri) {
                    case "mobridge-demo://login":
                        go(Screen.LOGIN);
                        return Outcome.ok();
                    case "mobridge-demo://home":
                        go(Screen.HOME);
                        return Outcome.ok();
                    case "mobridge-demo://dialog":
                        go(Screen.DIALOG);
                        return Outcome.ok();
                    default:
                        return Outcome.notFound("no activity handles the link");
                }
            default:
                return Outcome.unsupported(String.valueOf(cmd.action));
        }
    }

    @Override
    public synchronized Outcome screenshot() throws Exception {
        List<RawWindow> shown = new ArrayList<>();
        for (Object[] win : windows()) {
            shown.add((RawWindow) win[0]);
        }
        List<String> secureNow = secureCheck.secureWindows(SecureCheck.signature(shown),
                wallClock.getAsLong(), () -> dumpsys(shown));
        if (!secureNow.isEmpty()) {
            return Outcome.fail(Reply.SECURE,
                    "window " + secureNow.get(0) + " forbids capture (FLAG_SECURE)");
        }
        int w = w() / 10;
        int h = h() / 10;
        byte[] px = new byte[w * h];
        Arrays.fill(px, (byte) 0xF0);
        for (Object[] win : windows()) {
            outline((FakeNode) win[1], px, w, h);
        }
        return Outcome.png(Base64.getEncoder().encodeToString(PngEncoder.grey(w, h, px)));
    }

    /** What {@code dumpsys window windows} would print for these windows (the parts read). */
    private String dumpsys(List<RawWindow> shown) {
        StringBuilder out = new StringBuilder("WINDOW MANAGER WINDOWS (dumpsys window windows)\n");
        for (int i = shown.size() - 1; i >= 0; i--) {
            RawWindow w = shown.get(i);
            out.append("  Window #").append(i).append(" Window{").append(Integer.toHexString(
                    1000 + w.id)).append(" u0 ").append(w.packageName).append("/")
                    .append(w.title == null ? "w" + w.id : w.title.replace(' ', '_'))
                    .append("}:\n    mAttrs={(0,0)(fillxfill) fl=LAYOUT_IN_SCREEN")
                    .append(secure && w.id == APP_WINDOW ? " SECURE" : "")
                    .append("}\n    isOnScreen=true\n    isVisible=true\n");
        }
        return out.toString();
    }

    private static void outline(FakeNode n, byte[] px, int w, int h) {
        int l = Math.max(0, n.bounds[0] / 10);
        int t = Math.max(0, n.bounds[1] / 10);
        int r = Math.min(w - 1, n.bounds[2] / 10 - 1);
        int b = Math.min(h - 1, n.bounds[3] / 10 - 1);
        if (l <= r && t <= b) { // a node wholly off screen (below the fold) draws nothing
            for (int x = l; x <= r; x++) {
                px[t * w + x] = 0x40;
                px[b * w + x] = 0x40;
            }
            for (int y = t; y <= b; y++) {
                px[y * w + l] = 0x40;
                px[y * w + r] = 0x40;
            }
        }
        for (FakeNode c : n.children) {
            outline(c, px, w, h);
        }
    }

    @Override
    public synchronized Outcome clipboard(String set) {
        if (set != null) {
            clipboard = set;
            return Outcome.ok();
        }
        return Outcome.text(clipboard);
    }

    @Override
    public synchronized String health() {
        return healthProblem;
    }

    @Override
    public synchronized Outcome apps() {
        return Outcome.apps(packages.list());
    }

    @Override
    public synchronized Outcome terminate(String appId) {
        if (!packages.has(appId)) {
            return Outcome.notFound("app " + appId + " is not installed");
        }
        if (PKG.equals(appId)) {
            // The process dies: its screens and typed state are gone; the launcher is in front.
            username = "";
            password = "";
            showError = false;
            focus = null;
            appScreen = Screen.LOGIN;
            screen = Screen.LAUNCHER;
            changed();
        }
        return Outcome.ok();
    }

    /** Permissions as granted (true) / revoked (false) per "app permission"; absent: reset. */
    public final java.util.Map<String, Boolean> permissions = new java.util.TreeMap<>();
    /** The simulated location, or null. */
    public double[] location;
    /** The finger paths of the last multi-touch gesture. */
    public List<List<int[]>> lastFingers;

    /** The runtime permissions the demo app declares (an undeclared one cannot be granted). */
    static final java.util.Set<String> DECLARED = new java.util.TreeSet<>(Arrays.asList(
            "android.permission.CAMERA", "android.permission.RECORD_AUDIO",
            "android.permission.ACCESS_FINE_LOCATION", "android.permission.READ_MEDIA_IMAGES",
            "android.permission.READ_EXTERNAL_STORAGE", "android.permission.READ_CONTACTS",
            "android.permission.POST_NOTIFICATIONS"));
    /** Permissions that exist only from API 33. */
    static final java.util.Set<String> API_33 = new java.util.TreeSet<>(Arrays.asList(
            "android.permission.READ_MEDIA_IMAGES", "android.permission.POST_NOTIFICATIONS"));

    /**
     * The permission change as the device layer runs it ({@link DeviceCommands#applyPermission})
     * over a modelled shell: {@code pm} fails on stderr, which {@code executeShellCommand}
     * does not return (stdout empty either way), and {@code dumpsys package} tells the truth.
     */
    @Override
    public synchronized Outcome permission(String appId, String androidPermission,
            List<String> commands) throws Exception {
        if (!packages.has(appId)) {
            return Outcome.notFound("app " + appId + " is not installed");
        }
        return DeviceCommands.applyPermission(c -> new String[] {pmShell(c), null}, appId,
                androidPermission, commands);
    }

    /** {@code pm grant|revoke|clear-permission-flags} and {@code dumpsys package}; stdout only. */
    private String pmShell(String command) {
        String[] w = command.split(" ");
        if (w.length >= 3 && w[0].equals("dumpsys") && w[1].equals("package")) {
            StringBuilder out = new StringBuilder("Packages:\n  Package [" + w[2] + "]\n");
            for (java.util.Map.Entry<String, Boolean> e : permissions.entrySet()) {
                if (e.getKey().startsWith(w[2] + " ")) {
                    out.append("      ").append(e.getKey().substring(w[2].length() + 1))
                            .append(": granted=").append(e.getValue()).append('\n');
                }
            }
            return out.toString();
        }
        if (w.length < 4 || !w[0].equals("pm")) {
            return "";
        }
        String perm = w[3];
        boolean exists = sdkInt >= 33 || !API_33.contains(perm);
        if (!exists || !DECLARED.contains(perm)) {
            return ""; // "Exception occurred while executing ..." went to stderr: unseen
        }
        String key = w[2] + " " + perm;
        if (w[1].equals("grant")) {
            permissions.put(key, true);
        } else if (w[1].equals("revoke")) {
            permissions.put(key, false);
        } else if (w[1].equals("clear-permission-flags")) {
            permissions.remove(key);
        }
        return "";
    }

    @Override
    public synchronized int sdkInt() {
        return sdkInt;
    }

    @Override
    public synchronized int[] screenSize() {
        return new int[] {w(), h()};
    }

    @Override
    public synchronized Boolean inputShown() {
        return scenes.inputShown();
    }

    @Override
    public synchronized Outcome location(Double latitude, Double longitude) {
        location = latitude == null ? null : new double[] {latitude, longitude};
        return Outcome.ok();
    }

    @Override
    public synchronized Outcome multiTouch(List<List<int[]>> fingers, int durationMs) {
        lastFingers = fingers;
        return Outcome.ok();
    }

    /** The scripted app stores nothing but what its process holds: a clear resets all of it
     * (typed fields, the signed-in screen) and leaves the launcher in front, as a terminate. */
    @Override
    public synchronized Outcome clear(String appId) {
        return terminate(appId);
    }

    @Override
    public synchronized Outcome install(String path, String sha256) throws IOException {
        return packages.install(path, sha256);
    }

    @Override
    public synchronized Outcome uninstall(String appId) {
        return packages.uninstall(appId);
    }

    @Override
    public synchronized Outcome orientation(String orientation) {
        boolean wanted = orientation.equals(HubMessage.Orientation.LANDSCAPE);
        if (wanted != landscape) {
            landscape = wanted;
            changed();
        }
        return Outcome.ok();
    }

    // ---- the scripted app -----------------------------------------------------------------

    private void go(Screen s) {
        screen = s;
        if (s != Screen.LAUNCHER) {
            appScreen = s;
        }
        if (s != Screen.LOGIN) {
            focus = null;
        }
        changed();
    }

    private void back() {
        if (!scenes.isLogin()) {
            scenes.back();
            return;
        }
        switch (screen) {
            case DIALOG:
                go(Screen.HOME);
                break;
            case HOME:
                go(Screen.LOGIN);
                break;
            case LOGIN:
                go(Screen.LAUNCHER);
                break;
            default:
                break;
        }
    }

    private void signIn() {
        if (username.equals("demo")) {
            password = "";
            showError = false;
            go(Screen.HOME);
        } else {
            showError = true;
            changed();
        }
    }

    private String field(String name) {
        return name.equals("username") ? username : password;
    }

    private void setField(String name, String value) {
        if (name.equals("username")) {
            username = value;
        } else {
            password = value;
        }
        focus = name;
        changed();
    }

    private void changed() {
        UiEventListener l = listener;
        if (l != null) {
            l.onUiEvent();
        }
    }

    private FakeNode find(String key) {
        for (Object[] w : windows()) {
            FakeNode n = find((FakeNode) w[1], key);
            if (n != null) {
                return n;
            }
        }
        return null;
    }

    private static FakeNode find(FakeNode n, String key) {
        if (n.key.equals(key)) {
            return n;
        }
        for (FakeNode c : n.children) {
            FakeNode f = find(c, key);
            if (f != null) {
                return f;
            }
        }
        return null;
    }

    /** The windows on screen, bottom first, as {RawWindow, root node} pairs. */
    private List<Object[]> windows() {
        if (!scenes.isLogin()) {
            return scenes.windows(w(), h());
        }
        List<Object[]> out = new ArrayList<>();
        switch (screen) {
            case LAUNCHER:
                out.add(new Object[] {window(LAUNCHER_WINDOW, LAUNCHER_PKG, "Launcher", true,
                        0, 0, w(), h()), launcher()});
                break;
            case LOGIN:
                out.add(new Object[] {window(APP_WINDOW, PKG, "Demo", true, 0, 0, w(), h()),
                        login()});
                break;
            case HOME:
                out.add(new Object[] {window(APP_WINDOW, PKG, "Demo", true, 0, 0, w(), h()),
                        home()});
                break;
            case DIALOG:
                out.add(new Object[] {window(APP_WINDOW, PKG, "Demo", false, 0, 0, w(),
                        h()), home()});
                RawWindow d = window(DIALOG_WINDOW, PKG, "Discard changes?", true, 90, 900, 990,
                        1500);
                d.layer = 1;
                out.add(new Object[] {d, dialog()});
                break;
            default:
                break;
        }
        return out;
    }

    static RawWindow window(int id, String pkg, String title, boolean focused, int l,
            int t, int r, int b) {
        RawWindow w = new RawWindow();
        w.id = id;
        w.packageName = pkg;
        w.title = title;
        w.active = focused;
        w.focused = focused;
        w.bounds = new int[] {l, t, r, b};
        return w;
    }

    private FakeNode launcher() {
        FakeNode root = new FakeNode("launcher/root", "android.widget.FrameLayout", 0, 0, w(),
                h());
        FakeNode icon = new FakeNode("launcher/demo", "android.widget.TextView", 60, 1800, 300,
                2100);
        icon.text = "Demo";
        icon.label = "Demo";
        icon.clickable = true;
        icon.onClick = () -> go(appScreen);
        return root.add(icon);
    }

    private FakeNode login() {
        FakeNode root = new FakeNode("login/root", "android.widget.FrameLayout", 0, 0, w(),
                h());
        FakeNode marker = new FakeNode("login/marker", "android.widget.LinearLayout", 0, 63,
                w(), h());
        marker.automationId = PKG + ":id/__screen_login";
        root.add(marker);
        FakeNode title = new FakeNode("login/title", "android.widget.TextView", 60, 300, 1020,
                420);
        title.text = "Welcome";
        title.heading = true;
        title.automationId = PKG + ":id/title";
        marker.add(title);
        marker.add(input("username", "Username", username, false, 600));
        marker.add(input("password", "Password", password, true, 780));
        FakeNode button = new FakeNode("login/login", "android.widget.Button", 60, 980, 1020,
                1120);
        button.text = "Sign in";
        button.automationId = PKG + ":id/login";
        button.clickable = true;
        button.focusable = true;
        button.onClick = this::signIn;
        marker.add(button);
        if (showError) {
            FakeNode error = new FakeNode("login/error", "android.widget.TextView", 60, 1160,
                    1020, 1230);
            error.text = "Invalid credentials";
            error.automationId = PKG + ":id/error";
            marker.add(error);
        }
        return root;
    }

    private FakeNode input(String name, String hint, String value, boolean isPassword, int top) {
        FakeNode n = new FakeNode("login/" + name, "android.widget.EditText", 60, top, 1020,
                top + 140);
        n.hint = hint;
        n.text = value.isEmpty() ? null : value;
        n.password = isPassword;
        n.automationId = PKG + ":id/" + name;
        n.clickable = true;
        n.focusable = true;
        n.editable = true;
        n.focused = name.equals(focus);
        n.onClick = () -> {
            focus = name;
            changed();
        };
        n.onFocus = n.onClick;
        n.onSetText = v -> setField(name, v);
        return n;
    }

    private FakeNode home() {
        FakeNode root = new FakeNode("home/root", "android.widget.FrameLayout", 0, 0, w(),
                h());
        FakeNode marker = new FakeNode("home/marker", "android.widget.LinearLayout", 0, 63,
                w(), h());
        marker.automationId = PKG + ":id/__screen_home";
        root.add(marker);
        FakeNode title = new FakeNode("home/title", "android.widget.TextView", 60, 200, 1020,
                300);
        title.text = "Home";
        title.heading = true;
        title.automationId = PKG + ":id/title";
        marker.add(title);
        FakeNode clock = new FakeNode("home/clock", "android.widget.TextView", 60, 320, 1020,
                400);
        long secs = Math.floorDiv(wallClock.getAsLong(), 1000L);
        clock.text = String.format(Locale.ROOT, "%02d:%02d:%02d",
                Math.floorMod(secs / 3600, 24), Math.floorMod(secs / 60, 60),
                Math.floorMod(secs, 60));
        clock.automationId = PKG + ":id/clock";
        marker.add(clock);
        FakeNode list = new FakeNode("home/entries", "androidx.recyclerview.widget.RecyclerView",
                0, 450, w(), h());
        list.automationId = PKG + ":id/entries";
        list.scrollable = true;
        String[] entries = {"Dialog", "Login"};
        list.collectionRows = entries.length;
        marker.add(list);
        for (int i = 0; i < entries.length; i++) {
            String name = entries[i];
            int top = 450 + i * 160;
            FakeNode row = new FakeNode("home/entry/" + name, "android.widget.LinearLayout", 0,
                    top, w(), top + 160);
            row.clickable = true;
            row.itemRow = i;
            row.onClick = () -> go(name.equals("Dialog") ? Screen.DIALOG : Screen.LOGIN);
            FakeNode label = new FakeNode("home/entry/" + name + "/label",
                    "android.widget.TextView", 60, top + 40, 1020, top + 120);
            label.text = name;
            row.add(label);
            list.add(row);
        }
        return root;
    }

    private FakeNode dialog() {
        FakeNode root = new FakeNode("dialog/root", "android.widget.FrameLayout", 90, 900, 990,
                1500);
        FakeNode marker = new FakeNode("dialog/marker", "android.widget.LinearLayout", 90, 900,
                990, 1500);
        marker.automationId = PKG + ":id/__screen_dialog";
        root.add(marker);
        FakeNode message = new FakeNode("dialog/message", "android.widget.TextView", 150, 960,
                930, 1200);
        message.text = "Discard changes?";
        message.automationId = "android:id/message";
        marker.add(message);
        FakeNode cancel = new FakeNode("dialog/cancel", "android.widget.Button", 420, 1320, 660,
                1440);
        cancel.text = "Cancel";
        cancel.automationId = "android:id/button2";
        cancel.clickable = true;
        cancel.onClick = () -> go(Screen.HOME);
        marker.add(cancel);
        FakeNode ok = new FakeNode("dialog/ok", "android.widget.Button", 690, 1320, 930, 1440);
        ok.text = "OK";
        ok.automationId = "android:id/button1";
        ok.clickable = true;
        ok.onClick = () -> go(Screen.HOME);
        marker.add(ok);
        return root;
    }

    private final NodeActionRunner.NodeOps<FakeNode> ops = new NodeActionRunner.NodeOps<>() {
        @Override
        public boolean refresh(FakeNode node) {
            FakeNode live = find(node.key);
            if (live == null) {
                return false;
            }
            System.arraycopy(live.bounds, 0, node.bounds, 0, 4);
            node.text = live.text;
            node.focused = live.focused;
            return true;
        }

        @Override
        public String className(FakeNode n) {
            return n.className;
        }

        @Override
        public String automationId(FakeNode n) {
            return n.automationId;
        }

        @Override
        public String text(FakeNode n) {
            return n.password ? null : n.text;
        }

        @Override
        public String label(FakeNode n) {
            return n.label;
        }

        @Override
        public FakeNode parent(FakeNode n) {
            return n.parent;
        }

        /** The node's bounds clipped to the screen and to every scrolling ancestor's viewport. */
        @Override
        public int[] visibleBounds(FakeNode n) {
            int[] b = {Math.max(0, n.bounds[0]), Math.max(0, n.bounds[1]),
                    Math.min(w(), n.bounds[2]), Math.min(h(), n.bounds[3])};
            for (FakeNode a = n.parent; a != null; a = a.parent) {
                if (a.scrollable) {
                    b[0] = Math.max(b[0], a.bounds[0]);
                    b[1] = Math.max(b[1], a.bounds[1]);
                    b[2] = Math.min(b[2], a.bounds[2]);
                    b[3] = Math.min(b[3], a.bounds[3]);
                }
            }
            return b[2] > b[0] && b[3] > b[1] ? b : null;
        }

        @Override
        public boolean isClickable(FakeNode n) {
            return n.clickable;
        }

        @Override
        public boolean isLongClickable(FakeNode n) {
            return false;
        }

        @Override
        public boolean isScrollable(FakeNode n) {
            return n.scrollable;
        }

        @Override
        public boolean isEditable(FakeNode n) {
            return n.editable;
        }

        @Override
        public boolean isPassword(FakeNode n) {
            return n.password;
        }

        @Override
        public boolean perform(FakeNode n, ActionVerb verb, String text) {
            switch (verb) {
                case CLICK:
                    if (n.clickable && n.onClick != null) {
                        n.onClick.run();
                        return true;
                    }
                    return false;
                case SET_TEXT:
                case CLEAR_TEXT:
                    if (!n.editable || n.onSetText == null) {
                        return false;
                    }
                    n.onSetText.accept(text);
                    return true;
                case FOCUS:
                    if (!n.focusable || n.onFocus == null) {
                        return false;
                    }
                    n.onFocus.run();
                    return true;
                case SCROLL_FORWARD:
                case SCROLL_BACKWARD:
                    return n.scrollable && n.onScroll != null
                            && n.onScroll.test(verb == ActionVerb.SCROLL_FORWARD);
                default:
                    return false;
            }
        }

        @Override
        public boolean tap(int x, int y, boolean longPress) {
            List<Object[]> ws = windows();
            for (int i = ws.size() - 1; i >= 0; i--) {
                FakeNode root = (FakeNode) ws.get(i)[1];
                if (!root.contains(x, y)) {
                    continue;
                }
                FakeNode hit = deepestTappable(root, x, y);
                if (hit != null && !longPress) {
                    (hit.onTap != null ? hit.onTap : hit.onClick).run();
                }
                return true;
            }
            return true;
        }

        @Override
        public boolean typeWithKeys(FakeNode n, String text) {
            if (!n.editable || n.onKeys == null) {
                return false;
            }
            n.onKeys.accept(text);
            return true;
        }

        @Override
        public boolean showOnScreen(FakeNode n) {
            return false;  // the scripted lists offer no show-on-screen action
        }

        @Override
        public String coveringWindow(FakeNode n, int x, int y) {
            List<Object[]> ws = windows();
            int own = -1;
            for (int i = 0; i < ws.size(); i++) {
                if (find((FakeNode) ws.get(i)[1], n.key) != null) {
                    own = i;
                }
            }
            for (int i = ws.size() - 1; i > own && own >= 0; i--) {
                RawWindow w = (RawWindow) ws.get(i)[0];
                if (inside(w, x, y)) {
                    return w.type;
                }
            }
            return null;
        }

        @Override
        public boolean hideKeyboard() {
            return !scenes.isLogin() && scenes.back();
        }
    };

    private static boolean inside(RawWindow w, int x, int y) {
        return w.bounds != null && x >= w.bounds[0] && x < w.bounds[2] && y >= w.bounds[1]
                && y < w.bounds[3];
    }

    private static FakeNode deepestTappable(FakeNode n, int x, int y) {
        if (!n.contains(x, y)) {
            return null;
        }
        for (int i = n.children.size() - 1; i >= 0; i--) {
            FakeNode hit = deepestTappable(n.children.get(i), x, y);
            if (hit != null) {
                return hit;
            }
        }
        return n.onTap != null || (n.clickable && n.onClick != null) ? n : null;
    }
}
