package dev.mobridge.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import dev.mobridge.agent.core.link.ActionMethod;
import dev.mobridge.agent.core.link.ActionVerb;
import dev.mobridge.agent.core.link.HubMessage;
import dev.mobridge.agent.core.link.NodeIdentity;
import java.util.ArrayList;
import java.util.List;
import org.junit.Test;

/** The dispatch chain: node, then containing clickable ancestors, then (if allowed) a tap. */
public class NodeActionRunnerTest {
    static final class N {
        String cls = "android.widget.TextView";
        String id;
        String text;
        N parent;
        int[] bounds;
        boolean clickable;
        boolean scrollable;
        boolean editable;
        boolean accepts = true;
        boolean alive = true;
        boolean password;
        boolean appends;
        String typed;

        N(int l, int t, int r, int b) {
            bounds = new int[] {l, t, r, b};
        }
    }

    final List<String> log = new ArrayList<>();
    boolean keysWork = true;
    /** Screen rows 0..SCREEN_BOTTOM are visible; a covering window's type and top edge. */
    static final int SCREEN_BOTTOM = 2000;
    String cover;
    int coverTop = Integer.MAX_VALUE;
    int scrolled;
    final List<N> inList = new ArrayList<>();

    final NodeActionRunner.NodeOps<N> ops = new NodeActionRunner.NodeOps<>() {
        public boolean refresh(N n) {
            return n.alive;
        }

        public String className(N n) {
            return n.cls;
        }

        public String automationId(N n) {
            return n.id;
        }

        public String text(N n) {
            return n.password ? null : n.text;
        }

        public String label(N n) {
            return null;
        }

        public N parent(N n) {
            return n.parent;
        }

        public int[] visibleBounds(N n) {
            int[] b = n.bounds;
            if (b[1] >= SCREEN_BOTTOM) {
                return null;
            }
            return b;
        }

        public boolean isPassword(N n) {
            return n.password;
        }

        public boolean showOnScreen(N n) {
            log.add("showOnScreen");
            return false;
        }

        public String coveringWindow(N n, int x, int y) {
            return y >= coverTop ? cover : null;
        }

        public boolean hideKeyboard() {
            log.add("hideKeyboard");
            if ("input_method".equals(cover)) {
                cover = null;
                coverTop = Integer.MAX_VALUE;
                return true;
            }
            return false;
        }

        public boolean isClickable(N n) {
            return n.clickable;
        }

        public boolean isLongClickable(N n) {
            return false;
        }

        public boolean isScrollable(N n) {
            return n.scrollable;
        }

        public boolean isEditable(N n) {
            return n.editable;
        }

        public boolean perform(N n, ActionVerb verb, String text) {
            log.add(verb + " on " + n.cls);
            if (n.accepts && verb == ActionVerb.SET_TEXT) {
                n.text = n.appends && n.text != null ? n.text + text : text;
            }
            if (n.accepts && verb == ActionVerb.SCROLL_FORWARD) {
                scrolled++;
                for (N item : inList) {
                    item.bounds = new int[] {item.bounds[0], item.bounds[1] - 500, item.bounds[2],
                            item.bounds[3] - 500};
                }
            }
            return n.accepts;
        }

        public boolean tap(int x, int y, boolean longPress) {
            log.add("tap " + x + "," + y);
            return true;
        }

        public boolean typeWithKeys(N n, String text) {
            log.add("keys");
            n.typed = text;
            if (keysWork) {
                n.text = text;
            }
            return keysWork;
        }
    };

    static HubMessage.NodeAction cmd(ActionVerb verb, NodeIdentity id) {
        return new HubMessage.NodeAction(1, 5, 9, verb, id);
    }

    static final NodeIdentity ANY = new NodeIdentity(null, null, null, null);

    @Test
    public void clickableNodeUsesItsOwnAction() {
        N n = new N(0, 0, 100, 100);
        n.clickable = true;
        Outcome o = NodeActionRunner.run(ops, n, cmd(ActionVerb.CLICK, ANY));
        assertTrue(o.ok);
        assertEquals(ActionMethod.ACCESSIBILITY_ACTION, o.method);
    }

    @Test
    public void clickFallsBackToAContainingClickableAncestor() {
        N row = new N(0, 100, 1000, 200);
        row.cls = "android.widget.LinearLayout";
        row.clickable = true;
        N label = new N(20, 120, 500, 180);
        label.parent = row;
        Outcome o = NodeActionRunner.run(ops, label, cmd(ActionVerb.CLICK, ANY));
        assertEquals(ActionMethod.ACCESSIBILITY_ACTION_ANCESTOR, o.method);
        assertEquals("[CLICK on android.widget.LinearLayout]", log.toString());
    }

    @Test
    public void ancestorNotContainingTheNodeIsSkipped() {
        N other = new N(0, 0, 10, 10);
        other.clickable = true;
        N label = new N(20, 120, 500, 180);
        label.parent = other;
        Outcome o = NodeActionRunner.run(ops, label, cmd(ActionVerb.CLICK, ANY));
        assertFalse(o.ok);
        assertEquals("UNSUPPORTED", o.code);
        assertTrue(log.isEmpty());
    }

    @Test
    public void ancestorsBeyondTheLimitAreNotUsed() {
        N top = new N(0, 0, 1000, 1000);
        top.clickable = true;
        N cur = top;
        for (int i = 0; i <= NodeActionRunner.MAX_ANCESTORS; i++) {
            N c = new N(10, 10, 900, 900);
            c.parent = cur;
            cur = c;
        }
        assertEquals("UNSUPPORTED", NodeActionRunner.run(ops, cur, cmd(ActionVerb.CLICK, ANY)).code);
    }

    @Test
    public void gestureTapAtTheCentreOnlyWhenAllowed() {
        N n = new N(100, 200, 300, 400);
        HubMessage.NodeAction c = cmd(ActionVerb.CLICK, ANY);
        c.allowGesture = true;
        Outcome o = NodeActionRunner.run(ops, n, c);
        assertEquals(ActionMethod.GESTURE_FALLBACK, o.method);
        assertEquals("[tap 200,300]", log.toString());
    }

    @Test
    public void refusedEverywhereIsFailedNotUnsupported() {
        N n = new N(0, 0, 10, 10);
        n.clickable = true;
        n.accepts = false;
        Outcome o = NodeActionRunner.run(ops, n, cmd(ActionVerb.CLICK, ANY));
        assertEquals("FAILED", o.code);
    }

    @Test
    public void goneNodeIsNotFound() {
        N n = new N(0, 0, 10, 10);
        n.alive = false;
        assertEquals("NOT_FOUND", NodeActionRunner.run(ops, n, cmd(ActionVerb.CLICK, ANY)).code);
        assertEquals("NOT_FOUND", NodeActionRunner.run(ops, null, cmd(ActionVerb.CLICK, ANY)).code);
    }

    @Test
    public void identityMismatchNamesFieldsButNeverValues() {
        N n = new N(0, 0, 10, 10);
        n.clickable = true;
        n.text = "Welcome back";
        n.id = "app:id/title";
        Outcome o = NodeActionRunner.run(ops, n, cmd(ActionVerb.CLICK,
                new NodeIdentity("android.widget.Button", "app:id/title", "Sign in", null)));
        assertEquals("IDENTITY_MISMATCH", o.code);
        assertTrue(o.message, o.message.contains("className differs"));
        assertTrue(o.message, o.message.contains("text differs"));
        assertFalse(o.message.contains("Welcome"));
        assertFalse(o.message.contains("Sign in"));
        assertTrue("nothing was performed", log.isEmpty());
    }

    @Test
    public void setTextUsesTheActionThenKeyEvents() {
        N n = new N(0, 0, 10, 10);
        n.editable = true;
        HubMessage.NodeAction c = cmd(ActionVerb.SET_TEXT, ANY);
        c.text = "demo";
        assertEquals(ActionMethod.ACCESSIBILITY_ACTION, NodeActionRunner.run(ops, n, c).method);
        assertEquals("demo", n.text);
        n.accepts = false;
        Outcome o = NodeActionRunner.run(ops, n, c);
        assertEquals(ActionMethod.GESTURE_FALLBACK, o.method);
        assertEquals("demo", n.typed);
        keysWork = false;
        assertEquals("FAILED", NodeActionRunner.run(ops, n, c).code);
    }

    @Test
    public void setTextOnANonEditableOrWithoutTextIsRefused() {
        N n = new N(0, 0, 10, 10);
        HubMessage.NodeAction c = cmd(ActionVerb.SET_TEXT, ANY);
        c.text = "x";
        assertEquals("UNSUPPORTED", NodeActionRunner.run(ops, n, c).code);
        n.editable = true;
        assertEquals("BAD_COMMAND",
                NodeActionRunner.run(ops, n, cmd(ActionVerb.SET_TEXT, ANY)).code);
        assertTrue(NodeActionRunner.run(ops, n, cmd(ActionVerb.CLEAR_TEXT, ANY)).ok);
        assertEquals("", n.text);
    }

    @Test
    public void scrollGoesToTheNearestScrollableAncestor() {
        N list = new N(0, 0, 1000, 2000);
        list.cls = "androidx.recyclerview.widget.RecyclerView";
        list.scrollable = true;
        N row = new N(0, 0, 1000, 100);
        row.parent = list;
        N label = new N(0, 0, 100, 100);
        label.parent = row;
        Outcome o = NodeActionRunner.run(ops, label, cmd(ActionVerb.SCROLL_FORWARD, ANY));
        assertEquals(ActionMethod.ACCESSIBILITY_ACTION_ANCESTOR, o.method);
        HubMessage.NodeAction noAncestor = cmd(ActionVerb.SCROLL_FORWARD, ANY);
        noAncestor.allowAncestor = false;
        assertEquals("UNSUPPORTED", NodeActionRunner.run(ops, label, noAncestor).code);
    }

    @Test
    public void anOffScreenRowIsScrolledIntoViewThenClicked() {
        N list = new N(0, 0, 1000, SCREEN_BOTTOM);
        list.scrollable = true;
        N row = new N(0, 3000, 1000, 3100);
        row.clickable = true;
        row.parent = list;
        inList.add(row);
        Outcome o = NodeActionRunner.run(ops, row, cmd(ActionVerb.CLICK, ANY));
        assertTrue(o.message, o.ok);
        assertEquals(3, scrolled);  // 3000 -> 2500 -> 2000 -> 1500: visible after 3 scrolls
        assertEquals("CLICK on " + row.cls, log.get(log.size() - 1));
    }

    @Test
    public void aRowNoScrollReachesIsRefusedNotVisibleWithARecovery() {
        N list = new N(0, 0, 1000, SCREEN_BOTTOM);
        list.scrollable = true;
        N row = new N(0, 90_000, 1000, 90_100);
        row.clickable = true;
        row.parent = list;
        inList.add(row);
        Outcome o = NodeActionRunner.run(ops, row, cmd(ActionVerb.CLICK, ANY));
        assertEquals("NOT_VISIBLE", o.code);
        assertEquals(NodeActionRunner.MAX_SCROLLS, scrolled);
        assertTrue(o.message, o.message.startsWith("NOT_VISIBLE: "));
        assertTrue(o.message, o.message.contains("; recovery: "));
        assertFalse(log.contains("CLICK on " + row.cls));
    }

    @Test
    public void aTapUnderTheKeyboardHidesItFirst() {
        N submit = new N(0, 1800, 1000, 1900);
        cover = "input_method";
        coverTop = 1500;
        HubMessage.NodeAction c = cmd(ActionVerb.CLICK, ANY);
        c.allowGesture = true;
        Outcome o = NodeActionRunner.run(ops, submit, c);
        assertEquals(ActionMethod.GESTURE_FALLBACK, o.method);
        assertEquals("[hideKeyboard, tap 500,1850]", log.toString());
    }

    @Test
    public void aTapUnderAnotherWindowIsNeverSent() {
        N submit = new N(0, 1800, 1000, 1900);
        cover = "system";
        coverTop = 1500;
        HubMessage.NodeAction c = cmd(ActionVerb.CLICK, ANY);
        c.allowGesture = true;
        Outcome o = NodeActionRunner.run(ops, submit, c);
        assertEquals("NOT_VISIBLE", o.code);
        assertFalse(log.toString(), log.toString().contains("tap"));
    }

    @Test
    public void setTextOnAPrefilledFieldThatAppendsIsRetypedAndVerified() {
        N email = new N(0, 0, 1000, 100);
        email.editable = true;
        email.text = "old@example.com";
        email.appends = true;  // a field whose SET_TEXT appends: the read-back catches it
        HubMessage.NodeAction c = cmd(ActionVerb.SET_TEXT, ANY);
        c.text = "new@example.com";
        Outcome o = NodeActionRunner.run(ops, email, c);
        assertTrue(o.message, o.ok);
        assertEquals(ActionMethod.GESTURE_FALLBACK, o.method);
        assertEquals("new@example.com", email.text);
        keysWork = false;
        email.text = "old@example.com";
        assertEquals("FAILED", NodeActionRunner.run(ops, email, c).code);
    }

    @Test
    public void aPasswordIsNotReadBack() {
        N pw = new N(0, 0, 1000, 100);
        pw.editable = true;
        pw.password = true;
        pw.accepts = true;
        HubMessage.NodeAction c = cmd(ActionVerb.SET_TEXT, ANY);
        c.text = "secret";
        assertTrue(NodeActionRunner.run(ops, pw, c).ok);
        assertEquals("secret", pw.text);
    }
}
