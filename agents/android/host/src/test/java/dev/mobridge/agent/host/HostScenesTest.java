package dev.mobridge.agent.host;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import dev.mobridge.agent.core.Outcome;
import dev.mobridge.agent.core.capture.LayoutMode;
import dev.mobridge.agent.core.capture.TreeWalker;
import dev.mobridge.agent.core.link.ActionMethod;
import dev.mobridge.agent.core.link.ActionVerb;
import dev.mobridge.agent.core.link.HubMessage;
import dev.mobridge.agent.core.link.NodeIdentity;
import dev.mobridge.agent.core.link.RawNode;
import dev.mobridge.agent.core.link.RawTree;
import dev.mobridge.agent.core.link.RawWindow;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.Test;

/** The pathology scenes, driven through the backend as the core drives it. */
public class HostScenesTest {
    final AtomicLong wall = new AtomicLong(1_700_000_000_000L);
    final FakeUiBackend backend = new FakeUiBackend(wall::get, false);
    int nextCapture = 1;
    long nextId = 1;

    RawTree capture() {
        return backend.capture(nextCapture++);
    }

    static RawNode byText(RawTree t, String text) {
        for (RawNode n : t.nodes) {
            if (text.equals(n.text)) {
                return n;
            }
        }
        return null;
    }

    Outcome act(RawTree t, RawNode n, ActionVerb verb, String text, boolean gesture) {
        HubMessage.NodeAction cmd = new HubMessage.NodeAction(nextId++, t.capture, n.handle, verb,
                new NodeIdentity(n.className, n.automationId, null, null));
        cmd.text = text;
        cmd.allowGesture = gesture;
        return backend.nodeAction(cmd);
    }

    @Test
    public void everySceneCapturesAndLoginStaysTheDefault() {
        assertEquals("login", backend.scene());
        for (String name : FakeScenes.NAMES) {
            backend.setScene(name);
            RawTree t = capture();
            assertFalse(name, t.nodes.isEmpty());
            assertFalse(name, t.windows.isEmpty());
        }
    }

    @Test
    public void theLargeSceneHasAboutAThousandNodesAndFewerCompressed() {
        backend.setScene("large");
        RawTree full = capture();
        assertEquals(1002, full.nodes.size());
        assertNotNull(byText(full, "Row 200"));
        backend.setLayout(LayoutMode.COMPRESSED);
        RawTree compressed = capture();
        assertEquals(602, compressed.nodes.size());
        assertNotNull(byText(compressed, "Row 200"));
        for (RawNode n : compressed.nodes) {
            assertFalse(n.className.equals("android.widget.ImageView"));
        }
    }

    /** Node fetches of one capture of {@code scene} at API level {@code sdk}. */
    int fetches(String scene, int sdk) {
        backend.setScene(scene);
        backend.setSdkInt(sdk);
        int before = backend.childFetches();
        capture();
        return backend.childFetches() - before;
    }

    @Test
    public void prefetchingCutsTheNodeFetchesOfACapture() {
        int plain = fetches("large", 32);
        assertEquals("one fetch per node without prefetching", 1002, plain);
        int prefetched = fetches("large", 33);
        // 200 rows of 4 children: about one fetch per row remains (siblings are not prefetched).
        assertTrue(plain + " vs " + prefetched, prefetched * 4 < plain);
        int deepPlain = fetches("deep", 32);
        int deepPrefetched = fetches("deep", 33);
        assertEquals(TreeWalker.MAX_DEPTH + 1, deepPlain);
        assertTrue(deepPlain + " vs " + deepPrefetched, deepPrefetched * 20 < deepPlain);
    }

    @Test
    public void theDeepSceneIsCutAtTheDepthLimitAndMarkedTruncated() {
        backend.setScene("deep");
        RawTree t = capture();
        assertEquals(TreeWalker.MAX_DEPTH + 1, t.nodes.size());
        assertNotNull(t.truncated);
        assertNull(byText(t, "Deep leaf"));
        assertTrue(t.toJson().toString().contains("\"truncated\""));
    }

    @Test
    public void aRepeatedScreenshotOfTheSameWindowsDoesNotRunDumpsysAgain() throws Exception {
        assertTrue(backend.screenshot().ok);
        assertTrue(backend.screenshot().ok);
        assertTrue(backend.screenshot().ok);
        assertEquals(1, backend.secureDumps());
        backend.app(appDeepLink("mobridge-demo://dialog"));
        assertTrue(backend.screenshot().ok);
        assertEquals("a window opened: the flags are read again", 2, backend.secureDumps());
    }

    @Test
    public void everySceneHasAScreenshotEvenWithRowsBelowTheFold() throws Exception {
        for (String name : FakeScenes.NAMES) {
            backend.setScene(name);
            assertTrue(name, backend.screenshot().ok);
        }
    }

    static HubMessage.App appDeepLink(String uri) {
        return new HubMessage.App(1, dev.mobridge.agent.core.link.AppAction.APP_DEEP_LINK, null,
                uri);
    }

    /**
     * Issue 34: before API 34 the cache was cleared by reflection into a hidden class, which
     * the hidden-API policy refuses; setServiceInfo (public) clears it whatever that policy.
     */
    @Test
    public void androidCacheClearBeforeApi34UsesSetServiceInfoNotReflection() {
        backend.setSdkInt(30);
        assertTrue(capture().warnings.isEmpty());
        backend.setHiddenApiBlocked(true);
        assertTrue("the hidden-API policy no longer matters", capture().warnings.isEmpty());
        assertEquals(2, backend.serviceInfoResets());
        backend.setServiceInfoRefused(true);
        RawTree t = capture();
        assertEquals(1, t.warnings.size());
        assertTrue(t.warnings.get(0).contains("setServiceInfo"));
        assertTrue(t.toJson().toString().contains("\"warnings\""));
        backend.setSdkInt(34);
        assertTrue("API 34 has the public clear", capture().warnings.isEmpty());
    }

    @Test
    public void aRowBelowTheFoldIsScrolledIntoViewThenTapped() {
        backend.setScene("fold");
        RawTree t = capture();
        RawNode row = byText(t, "Row 40");
        assertFalse(row.visible);
        Outcome o = act(t, row, ActionVerb.CLICK, null, false);
        assertTrue(o.message, o.ok);
        RawTree after = capture();
        assertNotNull(byText(after, "Opened Row 40"));
        assertTrue(byText(after, "Row 40").visible);
    }

    @Test
    public void submitUnderTheKeyboardIsNeverTappedThroughIt() {
        backend.setScene("fold");
        RawTree t = capture();
        assertEquals(2, t.windows.size());
        assertEquals("input_method", t.windows.get(1).type);
        RawNode submit = byText(t, "Submit");
        Outcome refused = act(t, submit, ActionVerb.CLICK, null, false);
        assertEquals("UNSUPPORTED", refused.code);
        Outcome o = act(t, submit, ActionVerb.CLICK, null, true);
        assertTrue(o.message, o.ok);
        assertEquals(ActionMethod.GESTURE_FALLBACK, o.method);
        RawTree after = capture();
        assertEquals("the keyboard was hidden first", 1, after.windows.size());
        assertNotNull(byText(after, "Submitted"));
    }

    @Test
    public void theSystemDialogIsASecondWindowInFront() {
        backend.setScene("system-dialog");
        RawTree t = capture();
        assertEquals(2, t.windows.size());
        assertEquals(FakeScenes.PERMISSION_PKG, t.packageName);
        assertNotNull(byText(t, "Allow Demo to access this device's location?"));
        assertNotNull(byText(t, "Don't allow"));
        assertTrue(act(t, byText(t, "Allow"), ActionVerb.CLICK, null, false).ok);
        RawTree after = capture();
        assertEquals(1, after.windows.size());
        assertEquals(FakeUiBackend.PKG, after.packageName);
        assertNotNull(byText(after, "Location allowed"));
    }

    @Test
    public void anotherAppInFrontIsReportedByItsPackage() {
        backend.setScene("other-app");
        RawTree t = capture();
        assertEquals(FakeScenes.SETTINGS_PKG, t.packageName);
        assertEquals(FakeScenes.SETTINGS_PKG, byText(t, "Wi-Fi").packageName);
        assertNull(byText(t, "Wi-Fi opened"));
        RawNode row = t.nodes.get(byText(t, "Wi-Fi").parent);
        Outcome o = act(t, row, ActionVerb.CLICK, null, false);
        assertTrue(o.message, o.ok);
        assertNotNull(byText(capture(), "Wi-Fi opened"));
    }

    @Test
    public void landscapeBoundsFollowTheRotationAndTheDensity() {
        backend.setScene("landscape");
        RawTree t = capture();
        assertEquals(90, t.rotation);
        assertTrue(t.screenWidth > t.screenHeight);
        RawNode title = byText(t, "Landscape");
        assertTrue(act(t, byText(t, "Density"), ActionVerb.CLICK, null, false).ok);
        RawTree after = capture();
        RawNode scaled = byText(after, "Landscape");
        assertEquals(title.bounds[2] * 3.5 / 2.75, scaled.bounds[2], 1.0);
        for (RawNode n : after.nodes) {
            assertTrue(n.bounds[2] <= after.screenWidth && n.bounds[3] <= after.screenHeight);
        }
    }

    @Test
    public void aPrefilledFieldIsFocusedAndReplacedExactly() {
        backend.setScene("prefilled");
        RawTree t = capture();
        RawNode email = null;
        for (RawNode n : t.nodes) {
            if (n.editable) {
                email = n;
            }
        }
        assertEquals("old@example.com", email.text);
        assertEquals(Integer.valueOf(email.handle), t.focus);
        assertTrue(act(t, email, ActionVerb.SET_TEXT, "new@example.com", false).ok);
        RawTree after = capture();
        assertNotNull(byText(after, "new@example.com"));
        assertNull(byText(after, "old@example.comnew@example.com"));
        assertEquals(Integer.valueOf(email.handle), after.focus);
    }

    @Test
    public void aLongTextIsTypedAsKeysAndReadBack() {
        backend.setScene("long-text");
        RawTree t = capture();
        RawNode about = null;
        RawNode bio = null;
        for (RawNode n : t.nodes) {
            if (n.text != null && n.text.length() == FakeScenes.LONG_TEXT_CHARS) {
                about = n;
            }
            if (n.editable) {
                bio = n;
            }
        }
        assertNotNull(about);
        String text = FakeScenes.longText();
        Outcome o = act(t, bio, ActionVerb.SET_TEXT, text, false);
        assertTrue(o.message, o.ok);
        assertEquals(ActionMethod.GESTURE_FALLBACK, o.method);
        RawTree after = capture();
        int found = 0;
        for (RawNode n : after.nodes) {
            if (text.equals(n.text)) {
                found++;
            }
        }
        assertEquals("the field and the long label", 2, found);
    }

    @Test
    public void windowsOfTheFoldSceneKeepTheKeyboardOnTop() {
        backend.setScene("fold");
        RawTree t = capture();
        RawWindow ime = t.windows.get(1);
        assertTrue(ime.layer > t.windows.get(0).layer);
    }
}
