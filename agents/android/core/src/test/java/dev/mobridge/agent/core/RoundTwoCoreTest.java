package dev.mobridge.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import dev.mobridge.agent.core.link.AgentMessage.DeviceInfo;
import dev.mobridge.agent.core.link.AlertInfo;
import dev.mobridge.agent.core.link.GlobalAction;
import dev.mobridge.agent.core.link.HubMessage;
import dev.mobridge.agent.core.link.RawNode;
import dev.mobridge.agent.core.link.RawTree;
import dev.mobridge.agent.core.link.RawWindow;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.Test;

/** Issue 34, the Android core's decisions, each test named after the item it covers. */
public class RoundTwoCoreTest {
    /** A keyboard that closes on the keys named in {@code closesOn}; records what was sent. */
    static final class KeyboardBackend implements UiBackend {
        final List<String> sent = new ArrayList<>();
        final List<String> closesOn;
        boolean shown = true;

        KeyboardBackend(String... closesOn) {
            this.closesOn = Arrays.asList(closesOn);
        }

        public DeviceInfo deviceInfo() {
            return null;
        }

        public List<String> capabilities() {
            return new ArrayList<>();
        }

        public void setEventListener(UiEventListener listener) {}

        public void reset() {}

        public RawTree capture(int captureId) {
            throw new AssertionError("mInputShown is read, no capture needed");
        }

        public Outcome nodeAction(HubMessage.NodeAction command) {
            return Outcome.ok();
        }

        public Outcome gesture(HubMessage.Gesture command) {
            return Outcome.ok();
        }

        public Outcome globalAction(GlobalAction action) {
            return key(action.name());
        }

        public Outcome key(String keyName) {
            sent.add(keyName);
            if (closesOn.contains(keyName)) {
                shown = false;
            }
            return Outcome.ok();
        }

        public Outcome typeText(String text) {
            return Outcome.ok();
        }

        public Outcome app(HubMessage.App command) {
            return Outcome.ok();
        }

        public Outcome screenshot() {
            return Outcome.ok();
        }

        public Outcome clipboard(String set) {
            return Outcome.ok();
        }

        public String health() {
            return null;
        }

        @Override
        public Boolean inputShown() {
            return shown;
        }
    }

    /** BACK was sent unchecked: ESCAPE first, BACK only while shown, failure when it stays. */
    @Test
    public void androidKeyboardHideIsEscapeThenBackEachChecked() throws Exception {
        KeyboardBackend esc = new KeyboardBackend("ESCAPE");
        assertTrue(KeyboardHide.hide(esc, () -> null).ok);
        assertEquals(Arrays.asList("ESCAPE"), esc.sent);
        KeyboardBackend back = new KeyboardBackend("BACK");
        assertTrue(KeyboardHide.hide(back, () -> null).ok);
        assertEquals(Arrays.asList("ESCAPE", "BACK"), back.sent);
        KeyboardBackend stuck = new KeyboardBackend();
        Outcome o = KeyboardHide.hide(stuck, () -> null);
        assertFalse(o.ok);
        assertTrue(o.message, o.message.contains("still shows"));
        KeyboardBackend none = new KeyboardBackend();
        none.shown = false;
        assertTrue(KeyboardHide.hide(none, () -> null).ok);
        assertTrue("nothing sent when no keyboard shows", none.sent.isEmpty());
    }

    private static RawNode button(int handle, String id, String text) {
        RawNode n = new RawNode();
        n.handle = handle;
        n.parent = 0;
        n.window = 40;
        n.clickable = true;
        n.automationId = "com.android.permissioncontroller:id/" + id;
        n.text = text;
        return n;
    }

    /** Android 14's photo prompt lists "Select photos" first: accept is "Allow all". */
    @Test
    public void androidPhotoPromptAcceptIsAllowAllNeverSelectPhotos() {
        RawTree t = new RawTree();
        RawWindow w = new RawWindow();
        w.id = 40;
        w.packageName = "com.android.permissioncontroller";
        t.windows.add(w);
        RawNode message = new RawNode();
        message.handle = 1;
        message.parent = -1;
        message.window = 40;
        message.automationId = "com.android.permissioncontroller:id/permission_message";
        message.text = "Demo den Zugriff auf Fotos erlauben?";
        t.nodes.add(message);
        t.nodes.add(button(2, "permission_allow_selected_button", "Fotos auswählen"));
        t.nodes.add(button(3, "permission_allow_all_button", "Alle zulassen"));
        t.nodes.add(button(4, "permission_deny_button", "Nicht zulassen"));
        Alerts.Found found = Alerts.find(t).get(0);
        StringBuilder why = new StringBuilder();
        assertEquals(3, Alerts.choose(found, "accept", null, why).handle);
        assertEquals(4, Alerts.choose(found, "dismiss", null, why).handle);
        AlertInfo info = found.info;
        assertEquals(3, info.buttons.size());
    }
}
