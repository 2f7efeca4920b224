package dev.mobridge.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import dev.mobridge.agent.core.link.RawNode;
import dev.mobridge.agent.core.link.RawTree;
import dev.mobridge.agent.core.link.RawWindow;
import java.util.Arrays;
import java.util.List;
import org.junit.Test;

/** The pure plans of the device capabilities: alerts found and answered, pm and cmd commands. */
public class DeviceCommandsTest {
    static RawNode node(int handle, int window, String id, String text, boolean clickable) {
        RawNode n = new RawNode();
        n.handle = handle;
        n.window = window;
        n.automationId = id;
        n.text = text;
        n.clickable = clickable;
        n.bounds = new int[] {0, 0, 100, 100};
        return n;
    }

    static RawTree dialogOverApp() {
        RawTree t = new RawTree();
        RawWindow app = new RawWindow();
        app.id = 1;
        RawWindow dialog = new RawWindow();
        dialog.id = 2;
        dialog.layer = 1;
        dialog.packageName = "com.example";
        t.windows.addAll(Arrays.asList(app, dialog));
        t.nodes.add(node(0, 1, "com.example:id/title", "Inbox", false));
        t.nodes.add(node(1, 2, "android:id/alertTitle", "Discard draft?", false));
        t.nodes.add(node(2, 2, "android:id/message", "Changes will be lost.", false));
        t.nodes.add(node(3, 2, "android:id/button2", "Keep", true));
        t.nodes.add(node(4, 2, "android:id/button1", "Discard", true));
        return t;
    }

    @Test
    public void anAlertDialogIsFoundWithItsTitleMessageAndButtons() {
        List<Alerts.Found> found = Alerts.find(dialogOverApp());
        assertEquals(1, found.size());
        Alerts.Found a = found.get(0);
        assertEquals("Discard draft?", a.info.title);
        assertEquals("Changes will be lost.", a.info.message);
        assertEquals(Arrays.asList("Keep", "Discard"), a.info.buttons);
        StringBuilder why = new StringBuilder();
        assertEquals(4, Alerts.choose(a, "accept", null, why).handle);
        assertEquals(3, Alerts.choose(a, "dismiss", null, why).handle);
        assertEquals(3, Alerts.choose(a, "press", "keep", why).handle);
        assertNull(Alerts.choose(a, "press", "Later", why));
        assertTrue(why.toString(), why.toString().contains("its buttons: Keep, Discard"));
    }

    @Test
    public void noDialogPartsNoAlert() {
        RawTree t = dialogOverApp();
        t.nodes.subList(1, 5).clear();
        assertTrue(Alerts.find(t).isEmpty());
    }

    @Test
    public void permissionsMapToPmCommandsAndLocationToATestProvider() {
        assertEquals("android.permission.CAMERA", DeviceCommands.androidPermission("camera"));
        assertNull(DeviceCommands.androidPermission("teleport"));
        assertEquals(Arrays.asList("pm grant com.x android.permission.RECORD_AUDIO"),
                DeviceCommands.permission("grant", "com.x", "microphone"));
        assertEquals(2, DeviceCommands.permission("reset", "com.x", "camera").size());
        List<String> set = DeviceCommands.location(-33.8688, 151.2093);
        assertEquals("cmd location providers set-test-provider-location gps --location "
                + "-33.868800,151.209300", set.get(set.size() - 1));
        assertEquals(Arrays.asList("cmd location providers remove-test-provider gps"),
                DeviceCommands.location(null, null));
    }

    @Test
    public void aPinchSpreadsTheFingersByItsScaleWithinTheScreen() {
        List<List<int[]>> f = DeviceCommands.pinch(100, 500, 400, 0.5, 1080, 2400);
        List<int[]> left = f.get(0);
        List<int[]> right = f.get(1);
        assertEquals(0, left.get(0)[0]); // clamped at the screen's edge
        assertEquals(300, right.get(0)[0]);
        assertEquals(200, right.get(right.size() - 1)[0] - left.get(left.size() - 1)[0]);
        assertEquals(1, DeviceCommands.twoFingerTap(540, 1200, 200, 1080, 2400).get(0).size());
    }

    /** Issue 34: pm's failures go to stderr; an empty stdout proved nothing. */
    @Test
    public void androidShellFailureIsJudgedFromStderrOutputAndTheResultingState() throws Exception {
        assertEquals("Exception occurred while executing 'grant':",
                DeviceCommands.shellFailure("", "Exception occurred while executing 'grant':\n x"));
        assertEquals("Error: unknown command",
                DeviceCommands.shellFailure("Error: unknown command\n", null));
        assertNull(DeviceCommands.shellFailure("", null));
        String dump = "  runtime permissions:\n    android.permission.CAMERA: granted=true, flags=[]\n";
        assertEquals(Boolean.TRUE, DeviceCommands.permissionGranted(dump, "android.permission.CAMERA"));
        assertNull(DeviceCommands.permissionGranted(dump, "android.permission.READ_CALENDAR"));
        Outcome silentFailure = DeviceCommands.applyPermission(c -> new String[] {"", null},
                "com.x", "android.permission.CAMERA",
                DeviceCommands.permission("grant", "com.x", "camera"));
        assertFalse(silentFailure.ok);
        assertTrue(silentFailure.message, silentFailure.message.contains("not granted after grant"));
        Outcome done = DeviceCommands.applyPermission(
                c -> new String[] {c.startsWith("dumpsys") ? dump : "", null}, "com.x",
                "android.permission.CAMERA", DeviceCommands.permission("grant", "com.x", "camera"));
        assertTrue(done.ok);
    }

    /** Issue 34: "photos" / "notifications" named the API 33 permissions on every level. */
    @Test
    public void androidPermissionNamesDependOnTheApiLevel() {
        assertEquals("android.permission.READ_EXTERNAL_STORAGE",
                DeviceCommands.androidPermission("photos", 32));
        assertEquals("android.permission.READ_MEDIA_IMAGES",
                DeviceCommands.androidPermission("photos", 33));
        assertEquals(DeviceCommands.NOT_A_RUNTIME_PERMISSION,
                DeviceCommands.androidPermission("notifications", 30));
        assertEquals("android.permission.POST_NOTIFICATIONS",
                DeviceCommands.androidPermission("notifications", 34));
    }

    /** Issue 34: mInputShown of dumpsys input_method. */
    @Test
    public void androidKeyboardStateIsReadFromTheInputMethodManager() {
        assertEquals(Boolean.TRUE, KeyboardHide.inputShown("  mShowRequested=true mInputShown=true\n"));
        assertEquals(Boolean.FALSE, KeyboardHide.inputShown("mInputShown=false mShowRequested=false"));
        assertNull(KeyboardHide.inputShown("nothing here"));
    }
}
