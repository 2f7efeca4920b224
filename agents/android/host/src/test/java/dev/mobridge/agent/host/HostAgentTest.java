package dev.mobridge.agent.host;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import dev.mobridge.agent.core.AgentConfig;
import dev.mobridge.agent.core.AgentLog;
import dev.mobridge.agent.core.AgentServer;
import dev.mobridge.agent.core.Clock;
import dev.mobridge.agent.core.link.ActionMethod;
import dev.mobridge.agent.core.link.AgentMessage;
import dev.mobridge.agent.core.link.AgentMessage.Reply;
import dev.mobridge.agent.core.link.AgentMessage.Tree;
import dev.mobridge.agent.core.link.Platform;
import dev.mobridge.agent.core.link.RawNode;
import dev.mobridge.agent.core.link.RawTree;
import dev.mobridge.agent.core.ws.CloseCode;
import dev.mobridge.agent.core.ws.WsFrame;
import dev.mobridge.agent.core.ws.WsFrameCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicLong;
import org.json.JSONObject;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * Host mode over real sockets on 127.0.0.1: the agent core serving the scripted demo app to a
 * plain java.net.Socket websocket client. Every message the agent sends is decoded strictly.
 */
public class HostAgentTest {
    static final String TOKEN = "test-token-123";
    static final String PKG = FakeUiBackend.PKG;

    final AtomicLong wall = new AtomicLong(1_700_000_000_000L);
    FakeUiBackend backend;
    AgentServer server;
    ServerSocket listener;
    int port;
    long nextId = 1;

    @Before
    public void start() throws IOException {
        backend = new FakeUiBackend(wall::get, false);
        AgentConfig config = new AgentConfig();
        config.timerMs = 0;
        config.watchdogIntervalMs = 30;
        listener = new ServerSocket();
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        port = listener.getLocalPort();
        server = new AgentServer(backend, new dev.mobridge.agent.core.ws.TokenCheck(TOKEN),
                config, Clock.SYSTEM, quietLog());
        Thread t = new Thread(() -> HostMain.serve(listener, server));
        t.setDaemon(true);
        t.start();
    }

    @After
    public void stop() throws IOException {
        server.stop("test over");
        listener.close();
    }

    static AgentLog quietLog() {
        return new AgentLog() {
            public void info(String m) {}

            public void warn(String m, Throwable e) {}
        };
    }

    /** A connected, hello'd client and the initial tree it received. */
    final class Hub {
        final TestWsClient ws;
        final AgentMessage.Hello hello;
        RawTree tree;

        Hub() throws IOException {
            ws = new TestWsClient(port, "Bearer " + TOKEN);
            assertEquals(ws.responseHead, 101, ws.status);
            ws.sendText("{\"type\":\"hello\",\"protocol\":1,\"hub\":\"junit\"}");
            hello = (AgentMessage.Hello) ws.await(AgentMessage.Hello.class, -1, 5000);
            Tree first = (Tree) ws.read(5000);
            assertEquals("initial", first.reason);
            tree = first.tree;
        }

        Reply command(String json) throws IOException {
            long id = nextId++;
            ws.sendText(json.replaceFirst("\\{", "{\"id\":" + id + ","));
            return (Reply) ws.await(Reply.class, id, 5000);
        }

        Reply act(RawNode n, String action, String extra) throws IOException {
            return command("{\"type\":\"node_action\",\"capture\":" + tree.capture
                    + ",\"handle\":" + n.handle + ",\"action\":\"" + action
                    + "\",\"identity\":{\"className\":\"" + n.className + "\"}" + extra + "}");
        }

        /** Waits for a pushed tree containing the node with {@code automationId}. */
        RawTree awaitTreeWith(String automationId) throws IOException {
            long end = System.currentTimeMillis() + 5000;
            while (System.currentTimeMillis() < end) {
                Tree t = (Tree) ws.await(Tree.class, -1, 5000);
                tree = t.tree;
                if (byId(tree, automationId) != null) {
                    return tree;
                }
            }
            throw new AssertionError("no tree with " + automationId);
        }
    }

    static RawNode byId(RawTree t, String automationId) {
        for (RawNode n : t.nodes) {
            if (automationId.equals(n.automationId)) {
                return n;
            }
        }
        return null;
    }

    static RawNode byText(RawTree t, String text) {
        for (RawNode n : t.nodes) {
            if (text.equals(n.text)) {
                return n;
            }
        }
        return null;
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static String id(String name) {
        return PKG + ":id/" + name;
    }

    // ---- device control: coordinates, keys, apps, orientation -------------------------------

    @Test
    public void deviceCapabilitiesAreAnnounced() throws IOException {
        Hub hub = new Hub();
        for (String c : new String[] {"apps", "terminate", "clear", "install", "uninstall",
            "orientation", "gesture", "key", "text"}) {
            assertTrue(c, hub.hello.capabilities.contains(c));
        }
        hub.ws.close();
    }

    @Test
    public void doubleTapAndKeysDriveTheScriptedApp() throws IOException {
        Hub hub = new Hub();
        RawNode user = byId(hub.tree, id("username"));
        int x = (user.bounds[0] + user.bounds[2]) / 2;
        int y = (user.bounds[1] + user.bounds[3]) / 2;
        Reply r = hub.command("{\"type\":\"gesture\",\"kind\":\"double_tap\",\"points\":[{\"x\":"
                + x + ",\"y\":" + y + "}]}");
        assertTrue(r.message, r.ok);
        assertTrue(hub.command("{\"type\":\"text\",\"text\":\"demo\"}").ok);
        assertTrue(hub.command("{\"type\":\"key\",\"key\":\"DPAD_DOWN\"}").ok);
        assertTrue(hub.command("{\"type\":\"text\",\"text\":\"pw\"}").ok);
        assertTrue(hub.command("{\"type\":\"key\",\"key\":\"ENTER\"}").ok);
        hub.awaitTreeWith(id("__screen_home"));
        int before = backend.volume();
        assertTrue(hub.command("{\"type\":\"key\",\"key\":\"VOLUME_UP\"}").ok);
        assertEquals(before + 1, backend.volume());
        Reply media = hub.command("{\"type\":\"key\",\"key\":\"MEDIA_PLAY_PAUSE\"}");
        assertFalse(media.ok);
        assertEquals(Reply.UNSUPPORTED, media.code);
        Reply two = hub.command("{\"type\":\"gesture\",\"kind\":\"double_tap\",\"points\":"
                + "[{\"x\":1,\"y\":2},{\"x\":3,\"y\":4}]}");
        assertEquals(Reply.BAD_COMMAND, two.code);
        hub.ws.close();
    }

    @Test
    public void orientationTurnsTheCapturedScreen() throws IOException {
        Hub hub = new Hub();
        assertEquals(1080, hub.tree.screenWidth);
        Reply r = hub.command("{\"type\":\"orientation\",\"orientation\":\"landscape\"}");
        assertTrue(r.message, r.ok);
        Reply cap = hub.command("{\"type\":\"capture\"}");
        assertEquals(2400, cap.tree.screenWidth);
        assertEquals(1080, cap.tree.screenHeight);
        assertEquals(90, cap.tree.rotation);
        assertArrayEquals(new int[] {0, 0, 2400, 1080}, cap.tree.nodes.get(0).bounds);
        Reply bad = hub.command("{\"type\":\"orientation\",\"orientation\":\"sideways\"}");
        assertEquals(Reply.BAD_COMMAND, bad.code);
        assertTrue(hub.command("{\"type\":\"orientation\",\"orientation\":\"portrait\"}").ok);
        assertEquals(2400, hub.command("{\"type\":\"capture\"}").tree.screenHeight);
        hub.ws.close();
    }

    @Test
    public void clearSignsTheUserOutAndStartsTheAppAfresh() throws IOException {
        Hub hub = new Hub();
        RawTree login = hub.tree;
        assertTrue(hub.act(byId(login, id("username")), "SET_TEXT", ",\"text\":\"demo\"").ok);
        assertTrue(hub.act(byId(login, id("password")), "SET_TEXT", ",\"text\":\"pw\"").ok);
        assertTrue(hub.act(byId(login, id("login")), "CLICK", "").ok);
        hub.awaitTreeWith(id("__screen_home"));
        Reply cleared = hub.command("{\"type\":\"clear\",\"appId\":\"" + PKG + "\"}");
        assertTrue(cleared.message, cleared.ok);
        assertEquals("launcher", backend.screenName());
        assertTrue(hub.command("{\"type\":\"app\",\"action\":\"APP_OPEN\",\"appId\":\""
                + PKG + "\"}").ok);
        RawTree again = hub.awaitTreeWith(id("__screen_login"));
        assertEquals("login", backend.screenName());
        RawNode user = byId(again, id("username"));
        assertTrue("the typed name is gone", user.text == null || user.text.isEmpty());
        Reply absent = hub.command("{\"type\":\"clear\",\"appId\":\"com.example.x\"}");
        assertEquals(Reply.NOT_FOUND, absent.code);
        hub.ws.close();
    }

    @Test
    public void appsAreListedTerminatedInstalledAndUninstalled() throws Exception {
        Hub hub = new Hub();
        Reply listed = hub.command("{\"type\":\"apps\"}");
        assertTrue(listed.ok);
        assertEquals(3, listed.apps.size());
        assertEquals(PKG, listed.apps.get(0).appId);
        assertFalse(listed.apps.get(0).system);
        assertTrue(listed.apps.get(1).system);
        assertTrue(hub.command("{\"type\":\"terminate\",\"appId\":\"" + PKG + "\"}").ok);
        assertEquals("launcher", backend.screenName());
        Reply absent = hub.command("{\"type\":\"terminate\",\"appId\":\"com.example.x\"}");
        assertEquals(Reply.NOT_FOUND, absent.code);
        java.nio.file.Path pkg = java.nio.file.Files.createTempFile("notes", ".json");
        try {
            java.nio.file.Files.write(pkg, "{\"appId\":\"com.example.notes\",\"name\":\"Notes\"}"
                    .getBytes(StandardCharsets.UTF_8));
            Reply installed = hub.command("{\"type\":\"install\",\"path\":\"" + pkg + "\"}");
            assertTrue(installed.message, installed.ok);
            assertEquals("com.example.notes", installed.appId);
            String wrongSum = "0000000000000000000000000000000000000000000000000000000000000000";
            Reply bad = hub.command("{\"type\":\"install\",\"path\":\"" + pkg
                    + "\",\"sha256\":\"" + wrongSum + "\"}");
            assertEquals(Reply.FAILED, bad.code);
        } finally {
            java.nio.file.Files.delete(pkg);
        }
        assertEquals(4, hub.command("{\"type\":\"apps\"}").apps.size());
        assertTrue(hub.command("{\"type\":\"uninstall\",\"appId\":\"com.example.notes\"}").ok);
        Reply system = hub.command("{\"type\":\"uninstall\",\"appId\":\"com.android.settings\"}");
        assertEquals(Reply.FAILED, system.code);
        assertEquals(3, hub.command("{\"type\":\"apps\"}").apps.size());
        hub.ws.close();
    }

    // ---- handshake ------------------------------------------------------------------------

    @Test
    public void missingOrWrongTokenGets401BeforeUpgrading() throws IOException {
        try (TestWsClient none = new TestWsClient(port, null)) {
            assertEquals(401, none.status);
            assertTrue(none.responseHead.contains("WWW-Authenticate: Bearer"));
        }
        try (TestWsClient wrong = new TestWsClient(port, "Bearer " + TOKEN + "x")) {
            assertEquals(401, wrong.status);
        }
    }

    @Test
    public void plainHttpRequestGets400() throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write(("GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TOKEN
                    + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            byte[] buf = new byte[12];
            InputStream in = s.getInputStream();
            int n = 0;
            while (n < buf.length) {
                n += in.read(buf, n, buf.length - n);
            }
            assertEquals("HTTP/1.1 400", new String(buf, StandardCharsets.US_ASCII));
        }
    }

    // ---- hello, initial tree, login flow --------------------------------------------------

    @Test
    public void helloThenInitialLoginTree() throws IOException {
        Hub hub = new Hub();
        assertEquals(1, hub.hello.protocol);
        assertEquals(Platform.ANDROID, hub.hello.platform);
        assertEquals("host-fake", hub.hello.device.id);
        assertTrue(hub.hello.capabilities.contains("node_action"));
        RawTree t = hub.tree;
        assertEquals(1, t.capture);
        assertEquals(PKG, t.packageName);
        assertNotNull(byId(t, id("__screen_login")));
        RawNode user = byId(t, id("username"));
        assertEquals("Username", user.hint);
        assertTrue(user.editable);
        RawNode pass = byId(t, id("password"));
        assertTrue(pass.password);
        assertEquals("Password", pass.hint);
        RawNode login = byId(t, id("login"));
        assertEquals("Sign in", login.text);
        assertEquals("android.widget.Button", login.className);
        assertNull("no error before a failed sign-in", byText(t, "Invalid credentials"));
        for (int i = 0; i < t.nodes.size(); i++) {
            assertTrue("parent is an earlier index", t.nodes.get(i).parent < i);
        }
        hub.ws.close();
    }

    @Test
    public void demoUserSignsInAndBackReturnsToLogin() throws IOException {
        Hub hub = new Hub();
        RawTree login = hub.tree;
        Reply r = hub.act(byId(login, id("username")), "SET_TEXT", ",\"text\":\"demo\"");
        assertTrue(r.message, r.ok);
        assertEquals(ActionMethod.ACCESSIBILITY_ACTION, r.method);
        r = hub.act(byId(login, id("password")), "SET_TEXT", ",\"text\":\"hunter2\"");
        assertTrue(r.ok);
        r = hub.act(byId(login, id("login")), "CLICK", "");
        assertTrue(r.ok);
        assertEquals(ActionMethod.ACCESSIBILITY_ACTION, r.method);
        RawTree home = hub.awaitTreeWith(id("__screen_home"));
        assertTrue("captures increase", home.capture > login.capture);
        assertEquals("Home", byId(home, id("title")).text);
        assertEquals("home", backend.screenName());
        r = hub.command("{\"type\":\"global\",\"action\":\"BACK\"}");
        assertTrue(r.ok);
        hub.awaitTreeWith(id("__screen_login"));
        assertFalse("a password never leaves the agent",
                hub.ws.transcript.toString().contains("hunter2"));
        hub.ws.close();
    }

    @Test
    public void afterOptionsChangesComeAsTreeDeltasBasedOnTheLastTreeSent() throws IOException {
        Hub hub = new Hub();
        assertTrue(hub.hello.capabilities.contains("tree_delta"));
        RawTree login = hub.tree;
        assertTrue(hub.command("{\"type\":\"options\",\"treeDelta\":true}").ok);
        RawNode user = byId(login, id("username"));
        assertTrue(hub.act(user, "SET_TEXT", ",\"text\":\"ada\"").ok);
        AgentMessage.TreeDelta d =
                (AgentMessage.TreeDelta) hub.ws.await(AgentMessage.TreeDelta.class, -1, 5000);
        assertEquals(login.capture, d.base);
        assertTrue(d.capture > login.capture);
        assertTrue("nothing removed or reordered", d.remove.isEmpty() && d.order.isEmpty());
        RawNode typed = null;
        for (RawNode n : d.upsert) {
            if (n.handle == user.handle) {
                typed = n;
            }
        }
        assertNotNull("the username field is upserted under its handle", typed);
        assertEquals("ada", typed.text);
        int parentHandle = login.nodes.get(user.parent).handle;
        assertEquals("an upsert names its parent by handle", parentHandle, typed.parent);
        // a capture reply is the new base of the next delta
        Reply captured = hub.command("{\"type\":\"capture\"}");
        assertNotNull(captured.tree);
        assertTrue(hub.act(user, "SET_TEXT", ",\"text\":\"ada l\"").ok);
        AgentMessage.TreeDelta next =
                (AgentMessage.TreeDelta) hub.ws.await(AgentMessage.TreeDelta.class, -1, 5000);
        assertEquals(captured.tree.capture, next.base);
    }

    @Test
    public void withoutOptionsEveryTreeIsWhole() throws IOException {
        Hub hub = new Hub();
        assertTrue(hub.act(byId(hub.tree, id("username")), "SET_TEXT", ",\"text\":\"x\"").ok);
        hub.awaitTreeWith(id("username"));
        assertFalse(hub.ws.transcript.toString().contains("\"type\":\"tree_delta\""));
    }

    @Test
    public void otherUsersSeeInvalidCredentials() throws IOException {
        Hub hub = new Hub();
        RawTree login = hub.tree;
        assertTrue(hub.act(byId(login, id("username")), "SET_TEXT", ",\"text\":\"mallory\"").ok);
        assertTrue(hub.act(byId(login, id("login")), "CLICK", "").ok);
        RawTree after = hub.awaitTreeWith(id("error"));
        assertEquals("Invalid credentials", byId(after, id("error")).text);
        assertEquals("login", backend.screenName());
    }

    @Test
    public void everyCommandGetsExactlyOneReply() throws IOException {
        Hub hub = new Hub();
        String[] commands = {"{\"type\":\"ping\"}", "{\"type\":\"capture\"}",
            "{\"type\":\"key\",\"key\":\"TAB\"}", "{\"type\":\"text\",\"text\":\"x\"}",
            "{\"type\":\"clipboard\",\"set\":\"ORDER-1\"}", "{\"type\":\"clipboard\"}",
            "{\"type\":\"screenshot\"}", "{\"type\":\"global\",\"action\":\"RECENTS\"}",
            "{\"type\":\"gesture\",\"kind\":\"swipe\",\"points\":[{\"x\":1,\"y\":2}]}",
            "{\"type\":\"app\",\"action\":\"APP_OPEN\",\"appId\":\"com.nope.app\"}"};
        long first = nextId;
        for (String c : commands) {
            long id = nextId++;
            hub.ws.sendText(c.replaceFirst("\\{", "{\"id\":" + id + ","));
        }
        int[] replies = new int[commands.length];
        Reply[] got = new Reply[commands.length];
        for (int seen = 0; seen < commands.length; ) {
            AgentMessage m = hub.ws.read(5000);
            if (m instanceof Reply) {
                int i = (int) (((Reply) m).id - first);
                replies[i]++;
                got[i] = (Reply) m;
                seen++;
            }
        }
        int[] ones = new int[commands.length];
        Arrays.fill(ones, 1);
        assertArrayEquals(ones, replies);
        assertNotNull("capture reply carries a tree", got[1].tree);
        assertEquals("ORDER-1", got[5].text);
        assertEquals("UNSUPPORTED", got[7].code);
        assertEquals("BAD_COMMAND", got[8].code);
        assertEquals("NOT_FOUND", got[9].code);
        byte[] png = Base64.getDecoder().decode(got[6].pngBase64);
        assertEquals((byte) 0x89, png[0]);
        assertEquals("PNG", new String(png, 1, 3, StandardCharsets.US_ASCII));
    }

    // ---- pushes ---------------------------------------------------------------------------

    @Test
    public void clockChangePushesATreeOnHome() throws IOException {
        Hub hub = new Hub();
        assertTrue(hub.command("{\"type\":\"app\",\"action\":\"APP_DEEP_LINK\","
                + "\"uri\":\"mobridge-demo://home\"}").ok);
        RawTree home = hub.awaitTreeWith(id("clock"));
        String before = byId(home, id("clock")).text;
        wall.addAndGet(1000);
        backend.tick();
        Tree next = (Tree) hub.ws.await(Tree.class, -1, 5000);
        assertEquals("event", next.reason);
        assertTrue(next.stable);
        assertTrue(next.quietMs >= 100);
        assertEquals(home.capture + 1, next.tree.capture);
        assertNotEquals(before, byId(next.tree, id("clock")).text);
    }

    @Test
    public void unchangedScreenIsNotPushedAgain() throws IOException {
        Hub hub = new Hub();
        backend.setSecure(false);
        assertTrue(hub.command("{\"type\":\"key\",\"key\":\"DEL\"}").ok);
        sleep(300);
        Reply r = hub.command("{\"type\":\"capture\"}");
        assertEquals("no tree was pushed in between", 2, r.tree.capture);
        assertFalse(hub.ws.transcript.toString().contains("\"reason\":\"event\""));
    }

    // ---- node actions ---------------------------------------------------------------------

    @Test
    public void clickOnANonClickableLabelUsesItsRow() throws IOException {
        Hub hub = new Hub();
        hub.command("{\"type\":\"app\",\"action\":\"APP_DEEP_LINK\",\"uri\":\"mobridge-demo://home\"}");
        RawTree home = hub.awaitTreeWith(id("__screen_home"));
        RawNode label = byText(home, "Dialog");
        assertFalse(label.clickable);
        Reply r = hub.act(label, "CLICK", "");
        assertTrue(r.message, r.ok);
        assertEquals(ActionMethod.ACCESSIBILITY_ACTION_ANCESTOR, r.method);
        RawTree dialog = hub.awaitTreeWith(id("__screen_dialog"));
        assertEquals(2, dialog.windows.size());
        Reply refused = hub.act(byText(dialog, "Discard changes?"), "CLICK",
                ",\"allowAncestor\":false");
        assertEquals("UNSUPPORTED", refused.code);
    }

    @Test
    public void staleHandleIsNotFoundAndWrongIdentityIsRefused() throws IOException {
        Hub hub = new Hub();
        RawTree login = hub.tree;
        RawNode button = byId(login, id("login"));
        Reply mismatch = hub.command("{\"type\":\"node_action\",\"capture\":" + login.capture
                + ",\"handle\":" + button.handle + ",\"action\":\"CLICK\","
                + "\"identity\":{\"className\":\"android.widget.Button\",\"text\":\"Continue\"}}");
        assertEquals("IDENTITY_MISMATCH", mismatch.code);
        assertEquals("login", backend.screenName());
        hub.command("{\"type\":\"app\",\"action\":\"APP_DEEP_LINK\",\"uri\":\"mobridge-demo://home\"}");
        hub.awaitTreeWith(id("__screen_home"));
        Reply stale = hub.command("{\"type\":\"node_action\",\"capture\":" + login.capture
                + ",\"handle\":" + button.handle + ",\"action\":\"CLICK\",\"identity\":{}}");
        assertEquals("NOT_FOUND", stale.code);
        Reply unknown = hub.command("{\"type\":\"node_action\",\"capture\":999,\"handle\":1,"
                + "\"action\":\"CLICK\",\"identity\":{}}");
        assertEquals("NOT_FOUND", unknown.code);
    }

    @Test
    public void gestureTapHitsTheButtonUnderIt() throws IOException {
        Hub hub = new Hub();
        assertTrue(hub.act(byId(hub.tree, id("username")), "SET_TEXT", ",\"text\":\"demo\"").ok);
        int[] b = byId(hub.tree, id("login")).bounds;
        Reply r = hub.command("{\"type\":\"gesture\",\"kind\":\"tap\",\"points\":[{\"x\":"
                + (b[0] + b[2]) / 2 + ",\"y\":" + (b[1] + b[3]) / 2 + "}]}");
        assertTrue(r.ok);
        hub.awaitTreeWith(id("__screen_home"));
    }

    // ---- watchdog, secure windows ---------------------------------------------------------

    @Test
    public void watchdogReportsDegradedAndRecovers() throws IOException {
        Hub hub = new Hub();
        backend.setHealthProblem("UiAutomation not connected");
        AgentMessage.Status s = (AgentMessage.Status) hub.ws.await(AgentMessage.Status.class, -1,
                5000);
        assertEquals("degraded", s.state);
        assertEquals("UiAutomation not connected", s.reason);
        Reply refused = hub.command("{\"type\":\"capture\"}");
        assertEquals("FAILED", refused.code);
        assertNull("no stale tree while degraded", refused.tree);
        backend.setHealthProblem(null);
        s = (AgentMessage.Status) hub.ws.await(AgentMessage.Status.class, -1, 5000);
        assertEquals("ready", s.state);
        Tree fresh = (Tree) hub.ws.await(Tree.class, -1, 5000);
        assertNotNull(byId(fresh.tree, id("__screen_login")));
    }

    @Test
    public void secureWindowsRefuseScreenshots() throws IOException {
        Hub hub = new Hub();
        backend.setSecure(true);
        Tree pushed = (Tree) hub.ws.await(Tree.class, -1, 5000);
        assertTrue(pushed.tree.secure);
        Reply r = hub.command("{\"type\":\"screenshot\"}");
        assertFalse(r.ok);
        assertEquals("SECURE", r.code);
        assertNull(r.pngBase64);
    }

    // ---- protocol errors ------------------------------------------------------------------

    @Test
    public void unmaskedClientFrameCloses1002() throws IOException {
        Hub hub = new Hub();
        hub.ws.sendRaw(WsFrameCodec.encode(true, WsFrame.OP_TEXT,
                "{\"type\":\"ping\",\"id\":1}".getBytes(StandardCharsets.UTF_8), null));
        assertEquals(CloseCode.PROTOCOL_ERROR, hub.ws.awaitClose(5000));
    }

    @Test
    public void oversizedFrameCloses1009() throws IOException {
        Hub hub = new Hub();
        byte[] header = {(byte) 0x81, (byte) 0xFF, 0, 0, 0, 0, 0, 0x20, 0, 0, 1, 2, 3, 4};
        hub.ws.sendRaw(header);
        assertEquals(CloseCode.MESSAGE_TOO_BIG, hub.ws.awaitClose(5000));
    }

    @Test
    public void malformedCommandsGetBadCommandOrClose() throws IOException {
        Hub hub = new Hub();
        Reply r = hub.command("{\"type\":\"capture\",\"surprise\":1}");
        assertEquals("BAD_COMMAND", r.code);
        assertTrue(r.message.contains("surprise"));
        hub.ws.sendText("{\"type\":\"capture\"}");
        assertEquals(CloseCode.POLICY_VIOLATION, hub.ws.awaitClose(5000));
    }

    @Test
    public void helloMustComeFirstAndMatchTheProtocol() throws IOException {
        try (TestWsClient ws = new TestWsClient(port, "Bearer " + TOKEN)) {
            ws.sendText("{\"type\":\"ping\",\"id\":1}");
            assertEquals(CloseCode.POLICY_VIOLATION, ws.awaitClose(5000));
        }
        try (TestWsClient ws = new TestWsClient(port, "Bearer " + TOKEN)) {
            ws.sendText("{\"type\":\"hello\",\"protocol\":2,\"hub\":\"future\"}");
            assertEquals(CloseCode.POLICY_VIOLATION, ws.awaitClose(5000));
        }
        try (TestWsClient ws = new TestWsClient(port, "Bearer " + TOKEN)) {
            ws.sendText("{\"type\":\"hello\",\"protocol\":1,\"hub\":\"h\",\"token\":\"wrong\"}");
            assertEquals(CloseCode.POLICY_VIOLATION, ws.awaitClose(5000));
        }
    }

    @Test
    public void fragmentedCommandWithInterleavedPingIsAnswered() throws IOException {
        Hub hub = new Hub();
        hub.ws.sendFrame(false, WsFrame.OP_TEXT, "{\"type\":\"pi".getBytes(StandardCharsets.UTF_8));
        hub.ws.sendFrame(true, WsFrame.OP_PING, new byte[] {42});
        hub.ws.sendFrame(true, WsFrame.OP_CONTINUATION,
                "ng\",\"id\":77}".getBytes(StandardCharsets.UTF_8));
        Reply r = (Reply) hub.ws.await(Reply.class, 77, 5000);
        assertTrue(r.ok);
    }

    @Test
    public void newerConnectionSupersedesTheOlder() throws IOException {
        Hub first = new Hub();
        Hub second = new Hub();
        assertEquals(CloseCode.GOING_AWAY, first.ws.awaitClose(5000));
        assertEquals("captures restart per connection", 1, second.tree.capture);
        assertTrue(second.command("{\"type\":\"ping\"}").ok);
    }

    @Test
    public void stoppingTheServerTellsTheHub() throws IOException {
        Hub hub = new Hub();
        server.stop("shutting down for the test");
        AgentMessage.Status s = (AgentMessage.Status) hub.ws.await(AgentMessage.Status.class, -1,
                5000);
        assertEquals("stopping", s.state);
        assertEquals(CloseCode.GOING_AWAY, hub.ws.awaitClose(5000));
    }

    @Test
    public void messagesAreCompactJsonWithoutDefaults() throws Exception {
        Hub hub = new Hub();
        Reply r = hub.command("{\"type\":\"capture\"}");
        String raw = hub.ws.transcript.toString();
        String last = raw.substring(raw.lastIndexOf("{\"type\":\"reply\""));
        JSONObject o = new JSONObject(last.trim());
        assertEquals(r.id, o.getLong("id"));
        assertFalse(last.contains("\"enabled\":true"));
        assertFalse(last.contains("\"clickable\":false"));
        assertFalse(last.contains("\"visible\":true"));
    }

    @Test
    public void alertsAreListedAndTheSystemDialogAcceptedByItsAllowButton() throws IOException {
        backend.setScene("system-dialog");
        Hub hub = new Hub();
        for (String c : new String[] {"alerts", "keyboard", "multi_touch", "permission",
            "location"}) {
            assertTrue(c, hub.hello.capabilities.contains(c));
        }
        Reply listed = hub.command("{\"type\":\"alert\",\"action\":\"list\"}");
        assertTrue(listed.message, listed.ok);
        assertEquals(1, listed.alerts.size());
        assertEquals("Allow Demo to access this device's location?", listed.alerts.get(0).title);
        assertEquals(java.util.Arrays.asList("Allow", "Don't allow"),
                listed.alerts.get(0).buttons);
        assertTrue(listed.alerts.get(0).system);
        Reply pressed = hub.command("{\"type\":\"alert\",\"action\":\"press\",\"button\":\"Maybe\"}");
        assertEquals(Reply.NOT_FOUND, pressed.code);
        assertTrue(pressed.message, pressed.message.contains("Allow, Don't allow"));
        Reply accepted = hub.command("{\"type\":\"alert\",\"action\":\"accept\"}");
        assertTrue(accepted.message, accepted.ok);
        RawTree after = backend.capture(9000);
        assertEquals(1, after.windows.size());
        Reply none = hub.command("{\"type\":\"alert\",\"action\":\"dismiss\"}");
        assertEquals(Reply.NOT_FOUND, none.code);
        hub.ws.close();
    }

    @Test
    public void keyboardHidePermissionLocationAndPinchReachTheBackend() throws IOException {
        backend.setScene("fold");
        Hub hub = new Hub();
        assertEquals(2, backend.capture(9000).windows.size());
        assertTrue(hub.command("{\"type\":\"keyboard\"}").ok);
        assertEquals("the keyboard went", 1, backend.capture(9001).windows.size());
        assertTrue("nothing to hide is fine", hub.command("{\"type\":\"keyboard\"}").ok);
        Reply granted = hub.command("{\"type\":\"permission\",\"action\":\"grant\",\"appId\":\""
                + PKG + "\",\"permission\":\"camera\"}");
        assertTrue(granted.message, granted.ok);
        assertEquals(Boolean.TRUE, backend.permissions.get(PKG + " android.permission.CAMERA"));
        assertTrue(hub.command("{\"type\":\"permission\",\"action\":\"reset\",\"appId\":\""
                + PKG + "\",\"permission\":\"camera\"}").ok);
        assertTrue(backend.permissions.isEmpty());
        Reply unknown = hub.command("{\"type\":\"permission\",\"action\":\"grant\",\"appId\":\""
                + PKG + "\",\"permission\":\"teleport\"}");
        assertEquals(Reply.BAD_COMMAND, unknown.code);
        assertTrue(hub.command("{\"type\":\"location\",\"latitude\":48.8566,\"longitude\":2.3522}")
                .ok);
        assertEquals(48.8566, backend.location[0], 1e-9);
        assertTrue(hub.command("{\"type\":\"location\"}").ok);
        assertNull(backend.location);
        Reply far = hub.command("{\"type\":\"location\",\"latitude\":200,\"longitude\":0}");
        assertEquals(Reply.BAD_COMMAND, far.code);
        assertTrue(hub.command("{\"type\":\"multi_touch\",\"kind\":\"pinch\",\"center\":"
                + "{\"x\":540,\"y\":1200},\"scale\":2.0,\"span\":300}").ok);
        java.util.List<int[]> left = backend.lastFingers.get(0);
        java.util.List<int[]> right = backend.lastFingers.get(1);
        assertEquals(300, right.get(0)[0] - left.get(0)[0]);
        assertEquals(600, right.get(left.size() - 1)[0] - left.get(left.size() - 1)[0]);
        hub.ws.close();
    }
}
