package dev.mobridge.agent.host;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import dev.mobridge.agent.core.AgentConfig;
import dev.mobridge.agent.core.AgentServer;
import dev.mobridge.agent.core.Clock;
import dev.mobridge.agent.core.link.AgentMessage;
import dev.mobridge.agent.core.link.AgentMessage.Reply;
import dev.mobridge.agent.core.link.AgentMessage.Tree;
import dev.mobridge.agent.core.link.RawNode;
import dev.mobridge.agent.core.link.RawTree;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import org.junit.After;
import org.junit.Test;

/**
 * Over real sockets: the busy scene never goes idle, yet pushes keep coming at a bounded
 * interval and commands are answered; a long text typed as keys does not make the watchdog
 * call the agent unresponsive (its allowance grows with the text).
 */
public class HostBusyAndBudgetTest {
    static final String TOKEN = "busy-token-123";
    AgentServer server;
    ServerSocket listener;
    TestWsClient ws;
    long nextId = 1;

    void start(String scene, AgentConfig config) throws IOException {
        FakeUiBackend backend = new FakeUiBackend(System::currentTimeMillis, true);
        backend.setScene(scene);
        listener = new ServerSocket();
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        server = new AgentServer(backend, new dev.mobridge.agent.core.ws.TokenCheck(TOKEN),
                config, Clock.SYSTEM, HostAgentTest.quietLog());
        Thread t = new Thread(() -> HostMain.serve(listener, server));
        t.setDaemon(true);
        t.start();
        ws = new TestWsClient(listener.getLocalPort(), "Bearer " + TOKEN);
        ws.sendText("{\"type\":\"hello\",\"protocol\":1,\"hub\":\"junit\"}");
        ws.await(AgentMessage.Hello.class, -1, 5000);
    }

    @After
    public void stop() throws IOException {
        if (server != null) {
            server.stop("test over");
            listener.close();
        }
    }

    Reply command(String json, int timeoutMs) throws IOException {
        long id = nextId++;
        ws.sendText(json.replaceFirst("\\{", "{\"id\":" + id + ","));
        return (Reply) ws.await(Reply.class, id, timeoutMs);
    }

    static RawNode byHint(RawTree t, String hint) {
        for (RawNode n : t.nodes) {
            if (hint.equals(n.hint)) {
                return n;
            }
        }
        return null;
    }

    static String tickText(RawTree t) {
        for (RawNode n : t.nodes) {
            if (n.text != null && n.text.startsWith("Tick ")) {
                return n.text;
            }
        }
        return null;
    }

    @Test
    public void aScreenThatNeverSettlesIsStillPushedAndCommandsAreAnswered() throws IOException {
        AgentConfig config = new AgentConfig();
        start("busy", config);
        List<Long> at = new ArrayList<>();
        List<String> ticks = new ArrayList<>();
        long end = System.currentTimeMillis() + 2000;
        while (System.currentTimeMillis() < end) {
            Tree t = (Tree) ws.await(Tree.class, -1, 3000);
            at.add(System.currentTimeMillis());
            ticks.add(tickText(t.tree));
        }
        assertTrue("pushes in 2 s: " + at.size(), at.size() >= 3);
        for (int i = 1; i < at.size(); i++) {
            long gap = at.get(i) - at.get(i - 1);
            assertTrue("a push came " + gap + " ms after the previous one",
                    gap <= config.capMs + 400);
        }
        assertFalse(ticks.get(0).equals(ticks.get(ticks.size() - 1)));
        Reply cap = command("{\"type\":\"capture\"}", 2000);
        RawNode note = byHint(cap.tree, "Note");
        long t0 = System.currentTimeMillis();
        Reply typed = command("{\"type\":\"node_action\",\"capture\":" + cap.tree.capture
                + ",\"handle\":" + note.handle + ",\"action\":\"SET_TEXT\",\"text\":\"hello\","
                + "\"identity\":{\"className\":\"android.widget.EditText\"}}", 2000);
        assertTrue(typed.message, typed.ok);
        RawNode stopButton = null;
        for (RawNode n : cap.tree.nodes) {
            if ("Stop".equals(n.text)) {
                stopButton = n;
            }
        }
        Reply stopped = command("{\"type\":\"node_action\",\"capture\":" + cap.tree.capture
                + ",\"handle\":" + stopButton.handle + ",\"action\":\"CLICK\","
                + "\"identity\":{\"className\":\"android.widget.Button\"}}", 2000);
        assertTrue(stopped.message, stopped.ok);
        assertTrue(System.currentTimeMillis() - t0 < 2000);
        Reply after = command("{\"type\":\"capture\"}", 2000);
        boolean sawStopped = false;
        for (RawNode n : after.tree.nodes) {
            sawStopped |= n.text != null && n.text.startsWith("Stopped at ");
            if ("Note".equals(n.hint)) {
                assertEquals("hello", n.text);
            }
        }
        assertTrue(sawStopped);
    }

    @Test
    public void typingALongTextDoesNotMakeTheAgentLookUnresponsive() throws IOException {
        AgentConfig config = new AgentConfig();
        config.probeTimeoutMs = 300;
        config.watchdogIntervalMs = 30;
        start("long-text", config);
        Reply cap = command("{\"type\":\"capture\"}", 2000);
        RawNode bio = byHint(cap.tree, "Bio");
        assertNotNull(bio);
        String text = FakeScenes.longText();
        Reply typed = command("{\"type\":\"node_action\",\"capture\":" + cap.tree.capture
                + ",\"handle\":" + bio.handle + ",\"action\":\"SET_TEXT\",\"text\":\"" + text
                + "\",\"identity\":{\"className\":\"android.widget.EditText\"}}", 20_000);
        assertTrue(typed.message, typed.ok);
        assertFalse("the watchdog called a typing agent degraded",
                ws.transcript.toString().contains("degraded"));
    }
}
