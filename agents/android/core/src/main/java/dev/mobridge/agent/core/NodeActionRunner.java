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
 */
public final class NodeActionRunner {
    public static final int MAX_ANCESTORS = 3;
    public static final int MAX_SCROLL_ANCESTORS = 8;

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

        /** The platform's own accessibility action; {@code text} for SET_TEXT/CLEAR_TEXT. */
        boolean perform(N node, ActionVerb verb, String text);

        /** A tap (or long press) gesture at screen coordinates. */
        boolean tap(int x, int y, boolean longPress);

        /** Focuses the node and replaces its content by typing {@code text} as key events. */
        boolean typeWithKeys(N node, String text);
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
        if (ops.perform(node, ActionVerb.SET_TEXT, text)) {
            return Outcome.ok(ActionMethod.ACCESSIBILITY_ACTION);
        }
        if (ops.typeWithKeys(node, text)) {
            return Outcome.okNote(ActionMethod.GESTURE_FALLBACK, "typed as key events");
        }
        return Outcome.failed("the node refused the text and key events failed");
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
