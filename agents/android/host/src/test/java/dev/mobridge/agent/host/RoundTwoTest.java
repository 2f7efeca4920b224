package dev.mobridge.agent.host;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import dev.mobridge.agent.core.link.AgentMessage.Reply;
import dev.mobridge.agent.core.link.RawNode;
import dev.mobridge.agent.core.link.RawTree;
import java.io.IOException;
import java.util.List;
import org.junit.Test;

/**
 * Issue 34 through the agent over real sockets: each test named after the Android item it
 * covers (each fails on the code before the issue), and the new pathology scenes.
 */
public class RoundTwoTest extends HostAgentTest {
    private RawTree fresh() {
        return backend.capture(5000 + (int) nextId++);
    }

    static RawNode textOrLabel(RawTree t, String text) {
        for (RawNode n : t.nodes) {
            if (text.equals(n.text) || text.equals(n.label)) {
                return n;
            }
        }
        return null;
    }

    private String status() {
        RawTree t = fresh();
        for (RawNode n : t.nodes) {
            if (n.automationId != null && n.automationId.endsWith(":id/status")) {
                return n.text;
            }
        }
        return null;
    }

    /** pm failed on stderr, which executeShellCommand does not return: "done" was reported. */
    @Test
    public void androidShellFailureIsNotReportedDone() throws IOException {
        Hub hub = new Hub();
        // The demo app does not declare READ_CALENDAR: pm fails (on stderr, unseen).
        Reply r = hub.command("{\"type\":\"permission\",\"action\":\"grant\",\"appId\":\"" + PKG
                + "\",\"permission\":\"calendar\"}");
        assertFalse("a failed pm grant is not done", r.ok);
        assertEquals(Reply.FAILED, r.code);
        assertTrue(r.message, r.message.contains("not granted after grant"));
        hub.ws.close();
    }

    /** "photos" and "notifications" named the API 33 permissions on every level. */
    @Test
    public void androidPhotosAndNotificationsMapPerApiLevel() throws IOException {
        backend.setSdkInt(30);
        Hub hub = new Hub();
        Reply photos = hub.command("{\"type\":\"permission\",\"action\":\"grant\",\"appId\":\""
                + PKG + "\",\"permission\":\"photos\"}");
        assertTrue(photos.message, photos.ok);
        assertEquals(Boolean.TRUE,
                backend.permissions.get(PKG + " android.permission.READ_EXTERNAL_STORAGE"));
        Reply notes = hub.command("{\"type\":\"permission\",\"action\":\"grant\",\"appId\":\""
                + PKG + "\",\"permission\":\"notifications\"}");
        assertEquals(Reply.UNSUPPORTED, notes.code);
        assertTrue(notes.message, notes.message.contains("no runtime permission before"));
        backend.setSdkInt(34);
        assertTrue(hub.command("{\"type\":\"permission\",\"action\":\"grant\",\"appId\":\"" + PKG
                + "\",\"permission\":\"notifications\"}").ok);
        assertEquals(Boolean.TRUE,
                backend.permissions.get(PKG + " android.permission.POST_NOTIFICATIONS"));
        hub.ws.close();
    }

    /** On Android 14's photo prompt the first allow button is "Select photos". */
    @Test
    public void androidPhotoPromptAcceptIsAllowAllNotSelectPhotos() throws IOException {
        for (String scene : new String[] {"alert-de", "alert-ja"}) {
            backend.setScene(scene);
            Hub hub = new Hub();
            Reply r = hub.command("{\"type\":\"alert\",\"action\":\"accept\"}");
            assertTrue(scene + ": " + r.message, r.ok);
            assertEquals(scene, "Photos allowed", status());
            hub.ws.close();
            backend.setScene(scene);
            Hub again = new Hub();
            assertTrue(again.command("{\"type\":\"alert\",\"action\":\"dismiss\"}").ok);
            assertEquals(scene, "Photos denied", status());
            again.ws.close();
        }
    }

    /** Pinch paths were not clamped to the screen (width and height 0 were passed). */
    @Test
    public void androidPinchIsClampedToTheScreen() throws IOException {
        Hub hub = new Hub();
        assertTrue(hub.command("{\"type\":\"multi_touch\",\"kind\":\"pinch\",\"center\":"
                + "{\"x\":1000,\"y\":1200},\"scale\":3.0,\"span\":400}").ok);
        for (List<int[]> finger : backend.lastFingers) {
            for (int[] p : finger) {
                assertTrue("x " + p[0], p[0] >= 0 && p[0] < FakeUiBackend.WIDTH);
                assertTrue("y " + p[1], p[1] >= 0 && p[1] < FakeUiBackend.HEIGHT);
            }
        }
        hub.ws.close();
    }

    /**
     * Keyboard hide sent BACK unchecked: a floating keyboard that stays on BACK was reported
     * hidden. Now ESCAPE first, BACK only while it shows, and a check after each.
     */
    @Test
    public void androidKeyboardHideSendsEscapeFirstAndChecksItLeft() throws IOException {
        backend.setScene("notes");
        Hub hub = new Hub();
        assertEquals(Boolean.TRUE, backend.inputShown());
        Reply r = hub.command("{\"type\":\"keyboard\"}");
        assertTrue(r.message, r.ok);
        assertEquals("the keyboard left", Boolean.FALSE, backend.inputShown());
        assertNotNull("still on the notes screen", textOrLabel(fresh(), "First line"));
        hub.ws.close();
    }

    /** The tab bar covers "Row 12"; the row's own click opens it, never the tab under it. */
    @Test
    public void tabBarSceneOpensTheRowNotTheTab() throws IOException {
        backend.setScene("tab-bar");
        Hub hub = new Hub();
        RawNode row = textOrLabel(hub.tree, "Row 12");
        assertNotNull(row);
        Reply r = hub.act(row, "CLICK", "");
        assertTrue(r.message, r.ok);
        assertEquals("Opened Row 12", status());
        hub.ws.close();
    }

    @Test
    public void newScenesCaptureWithTheirTexts() {
        String[][] want = {{"settling", "Go"}, {"plus", "Tap me"}, {"notes", "First line"},
            {"alert-de", "Alle zulassen"}, {"alert-ja", "すべて許可"}, {"tab-bar", "Settings"}};
        for (String[] w : want) {
            backend.setScene(w[0]);
            assertNotNull(w[0], textOrLabel(fresh(), w[1]));
        }
    }
}
