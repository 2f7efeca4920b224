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
        String typed;

        N(int l, int t, int r, int b) {
            bounds = new int[] {l, t, r, b};
        }
    }

    final List<String> log = new ArrayList<>();
    boolean keysWork = true;

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
            return n.text;
        }

        public String label(N n) {
            return null;
        }

        public N parent(N n) {
            return n.parent;
        }

        public int[] visibleBounds(N n) {
            return n.bounds;
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
                n.text = text;
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
}
