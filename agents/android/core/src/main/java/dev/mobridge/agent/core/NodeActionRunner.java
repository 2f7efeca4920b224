package dev.mobridge.agent.core;

import dev.mobridge.agent.core.link.ActionMethod;
import dev.mobridge.agent.core.link.ActionVerb;
import dev.mobridge.agent.core.link.AgentMessage.Reply;
import dev.mobridge.agent.core.link.HubMessage;

/**
 * The dispatch chain of a node action, shared by every backend.
 *
 * <p>Order: the live node must still exist (else NOT_FOUND) and match the identity the hub sent
 * (else IDENTITY_MISMATCH, with field names only — never values). Then the node's own
 * accessibility action; for clicks, when allowed, up to {@link #MAX_ANCESTORS} clickable
 * ancestors whose bounds contain the node; for scrolls, the nearest scrollable ancestor; then,
 * only when the hub allowed gestures, a tap at the centre of the node's visible bounds. Text
 * actions fall back to key events into the focused node. The method used is reported.
 *
 * <p>Visibility (clicks): a node with no visible area is first brought into view (the platform's
 * show-on-screen, then at most {@link #MAX_SCROLLS} scrolls of its nearest scrollable ancestor
 * toward it, re-checking its identity after each), else refused {@link #NOT_VISIBLE} with a
 * recovery. A gesture is never sent to a point another window covers: under the keyboard the
 * keyboard is hidden first; under anything else, or still covered, the tap is refused
 * NOT_VISIBLE. Text: SET_TEXT replaces the whole value and is read back (not for passwords);
 * a field that still shows something else gets the text typed as keys, then is read back again.
 */
public final class NodeActionRunner {
    public static final int MAX_ANCESTORS = 3;
    public static final int MAX_SCROLL_ANCESTORS = 8;
    /** Most scrolls spent bringing one node into view. */
    public static final int MAX_SCROLLS = 10;
    /** The reply code of a node that cannot be seen (off screen, or under another window). */
    public static final String NOT_VISIBLE = Reply.NOT_VISIBLE;

    /** The few node operations a platform supplies. {@code N} is its live node type. */
    public interface NodeOps<N> {
        /** Re-reads the node from the UI; false when it no longer exists. */
        boolean refresh(N node);

        String className(N node);

        String automationId(N node);

        /** The node's text as captured (null for password fields). */
        String text(N node);

        String label(N node);

        /** Null at a root. */
        N parent(N node);

        /** [left, top, right, bottom] of the visible part on screen, or null. */
        int[] visibleBounds(N node);

        boolean isClickable(N node);

        boolean isLongClickable(N node);

        boolean isScrollable(N node);

        boolean isEditable(N node);

        /** A password field: its text is never read, so a value set into it is not verified. */
        boolean isPassword(N node);

        /** The platform's own accessibility action; {@code text} for SET_TEXT/CLEAR_TEXT. */
        boolean perform(N node, ActionVerb verb, String text);

        /** A tap (or long press) gesture at screen coordinates. */
        boolean tap(int x, int y, boolean longPress);

        /** Focuses the node and replaces its content by typing {@code text} as key events. */
        boolean typeWithKeys(N node, String text);

        /** The platform's show-on-screen action (false when not offered or refused). */
        boolean showOnScreen(N node);

        /**
         * The type of the window above the node's own that covers screen point (x, y)
         * ({@code input_method}, {@code system}, ...), or null when the point shows the node's
         * window.
         */
        String coveringWindow(N node, int x, int y);

        /** Hides the on-screen keyboard; false when it could not. */
        boolean hideKeyboard();
    }

    private NodeActionRunner() {}

    public static <N> Outcome run(NodeOps<N> ops, N node, HubMessage.NodeAction cmd) {
        String where = "handle " + cmd.handle + " of capture " + cmd.capture;
        if (node == null || !ops.refresh(node)) {
            return Outcome.notFound(where + " no longer exists");
        }
        String mismatch = cmd.identity.mismatch(ops.className(node), ops.automationId(node),
                ops.text(node), ops.label(node));
        if (mismatch != null) {
            return Outcome.fail(Reply.IDENTITY_MISMATCH, where + ": " + mismatch);
        }
        switch (cmd.action) {
            case CLICK:
            case LONG_CLICK:
                return click(ops, node, cmd, cmd.action == ActionVerb.LONG_CLICK);
            case SET_TEXT:
            case CLEAR_TEXT:
                return setText(ops, node, cmd);
            case SCROLL_FORWARD:
            case SCROLL_BACKWARD:
                return scroll(ops, node, cmd);
            default:
                if (ops.perform(node, cmd.action, null)) {
                    return Outcome.ok(ActionMethod.ACCESSIBILITY_ACTION);
                }
                return Outcome.failed(cmd.action + " was refused by the node");
        }
    }

    private static <N> Outcome click(NodeOps<N> ops, N node, HubMessage.NodeAction cmd,
            boolean longPress) {
        Outcome hidden = bringIntoView(ops, node, cmd);
        if (hidden != null) {
            return hidden;
        }
        boolean tried = false;
        if (longPress ? ops.isLongClickable(node) : ops.isClickable(node)) {
            tried = true;
            if (ops.perform(node, cmd.action, null)) {
                return Outcome.ok(ActionMethod.ACCESSIBILITY_ACTION);
            }
        }
        int[] own = ops.visibleBounds(node);
        if (cmd.allowAncestor && own != null) {
            N a = ops.parent(node);
            for (int i = 0; i < MAX_ANCESTORS && a != null; i++, a = ops.parent(a)) {
                boolean offers = longPress ? ops.isLongClickable(a) : ops.isClickable(a);
                if (offers && contains(ops.visibleBounds(a), own)) {
                    tried = true;
                    if (ops.perform(a, cmd.action, null)) {
                        return Outcome.ok(ActionMethod.ACCESSIBILITY_ACTION_ANCESTOR);
                    }
                }
            }
        }
        if (cmd.allowGesture) {
            if (own == null || own[2] <= own[0] || own[3] <= own[1]) {
                return Outcome.failed("the node has no visible area to tap");
            }
            int x = (own[0] + own[2]) / 2;
            int y = (own[1] + own[3]) / 2;
            String cover = ops.coveringWindow(node, x, y);
            if ("input_method".equals(cover) && ops.hideKeyboard() && ops.refresh(node)) {
                own = ops.visibleBounds(node);
                if (!hasArea(own)) {
                    return notVisible("the node has no visible area once the keyboard is hidden");
                }
                x = (own[0] + own[2]) / 2;
                y = (own[1] + own[3]) / 2;
                cover = ops.coveringWindow(node, x, y);
            }
            if (cover != null) {
                return notVisible("a " + cover + " window covers the node: no tap was sent");
            }
            if (ops.tap(x, y, longPress)) {
                return Outcome.ok(ActionMethod.GESTURE_FALLBACK);
            }
            return Outcome.failed("the gesture could not be injected");
        }
        if (tried) {
            return Outcome.failed(cmd.action + " was refused by the node and its ancestors");
        }
        return Outcome.unsupported("neither the node nor a containing ancestor is "
                + (longPress ? "long-clickable" : "clickable") + " and gestures are not allowed");
    }

    private static <N> Outcome setText(NodeOps<N> ops, N node, HubMessage.NodeAction cmd) {
        String text = cmd.action == ActionVerb.CLEAR_TEXT ? "" : cmd.text;
        if (text == null) {
            return Outcome.fail(Reply.BAD_COMMAND, "SET_TEXT needs text");
        }
        if (!ops.isEditable(node)) {
            return Outcome.unsupported("the node is not editable");
        }
        if (ops.perform(node, ActionVerb.SET_TEXT, text) && shows(ops, node, text)) {
            return Outcome.ok(ActionMethod.ACCESSIBILITY_ACTION);
        }
        if (ops.typeWithKeys(node, text)) {
            if (shows(ops, node, text)) {
                return Outcome.okNote(ActionMethod.GESTURE_FALLBACK, "typed as key events");
            }
            return Outcome.failed("the field does not show the text after typing ("
                    + describeLength(ops, node) + ", " + text.length() + " expected)");
        }
        return Outcome.failed("the node refused the text and key events failed");
    }

    /**
     * Whether the field now shows exactly {@code text}. Unverifiable fields (passwords: no text
     * is ever read) count as showing it; an empty field may show nothing (or its hint, which
     * the platform reports as no text).
     */
    static <N> boolean shows(NodeOps<N> ops, N node, String text) {
        if (!ops.refresh(node)) {
            return false;
        }
        String now = ops.text(node);
        if (now == null) {
            return text.isEmpty() || ops.isPassword(node);
        }
        return now.equals(text);
    }

    private static <N> String describeLength(NodeOps<N> ops, N node) {
        String now = ops.text(node);
        return now == null ? "no text" : now.length() + " characters";
    }

    /**
     * Null when the node has a visible area (after scrolling it into view if needed), else the
     * NOT_VISIBLE (or NOT_FOUND, when scrolling replaced it) refusal.
     */
    static <N> Outcome bringIntoView(NodeOps<N> ops, N node, HubMessage.NodeAction cmd) {
        if (hasArea(ops.visibleBounds(node))) {
            return null;
        }
        if (ops.showOnScreen(node) && ops.refresh(node) && hasArea(ops.visibleBounds(node))) {
            return sameNode(ops, node, cmd);
        }
        N scroller = ops.parent(node);
        for (int i = 0; i < MAX_SCROLL_ANCESTORS && scroller != null && !ops.isScrollable(
                scroller); i++) {
            scroller = ops.parent(scroller);
        }
        if (scroller == null || !ops.isScrollable(scroller)) {
            return notVisible("the node is off screen and no scrollable ancestor can bring it"
                    + " into view");
        }
        int[] port = ops.visibleBounds(scroller);
        int[] target = ops.visibleBounds(node);
        ActionVerb toward = port != null && target != null && target[1] < port[1]
                ? ActionVerb.SCROLL_BACKWARD : ActionVerb.SCROLL_FORWARD;
        for (int i = 0; i < MAX_SCROLLS; i++) {
            if (!ops.perform(scroller, toward, null)) {
                break;
            }
            if (!ops.refresh(node)) {
                return Outcome.notFound("the node disappeared while scrolling it into view");
            }
            if (hasArea(ops.visibleBounds(node))) {
                return sameNode(ops, node, cmd);
            }
        }
        return notVisible("the node stayed off screen after scrolling its list");
    }

    private static <N> Outcome sameNode(NodeOps<N> ops, N node, HubMessage.NodeAction cmd) {
        String mismatch = cmd.identity.mismatch(ops.className(node), ops.automationId(node),
                ops.text(node), ops.label(node));
        return mismatch == null ? null : Outcome.fail(Reply.IDENTITY_MISMATCH,
                "after scrolling: " + mismatch);
    }

    /** The same shape as the iOS agent's refusal: "NOT_VISIBLE: why; recovery: what to do". */
    static Outcome notVisible(String why) {
        return Outcome.fail(NOT_VISIBLE, NOT_VISIBLE + ": " + why
                + "; recovery: scroll or dismiss what covers it, then find it again and retry");
    }

    static boolean hasArea(int[] b) {
        return b != null && b[2] > b[0] && b[3] > b[1];
    }

    private static <N> Outcome scroll(NodeOps<N> ops, N node, HubMessage.NodeAction cmd) {
        if (ops.isScrollable(node) && ops.perform(node, cmd.action, null)) {
            return Outcome.ok(ActionMethod.ACCESSIBILITY_ACTION);
        }
        if (cmd.allowAncestor) {
            N a = ops.parent(node);
            for (int i = 0; i < MAX_SCROLL_ANCESTORS && a != null; i++, a = ops.parent(a)) {
                if (ops.isScrollable(a)) {
                    if (ops.perform(a, cmd.action, null)) {
                        return Outcome.ok(ActionMethod.ACCESSIBILITY_ACTION_ANCESTOR);
                    }
                    return Outcome.failed(cmd.action + " was refused by the scrollable ancestor");
                }
            }
        }
        return Outcome.unsupported("neither the node nor an ancestor is scrollable");
    }

    static boolean contains(int[] outer, int[] inner) {
        return outer != null && inner != null && outer[0] <= inner[0] && outer[1] <= inner[1]
                && outer[2] >= inner[2] && outer[3] >= inner[3];
    }
}
