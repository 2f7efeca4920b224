package dev.mobridge.agent.host;

import java.util.ArrayList;
import java.util.List;

/**
 * One element of a scripted fake screen; {@code key} is stable across captures. {@code
 * important}: false for layout containers an app marks not important for accessibility (left
 * out of the compressed layout). {@code onTap}: reacts to a tap gesture only (a custom view
 * that offers no click action). {@code onSetText}: the SET_TEXT action (null: refused).
 */
final class FakeNode {
    final String key;
    final String className;
    final int[] bounds;
    boolean important = true;
    Runnable onTap;
    java.util.function.Consumer<String> onSetText;
    Runnable onFocus;
    /** Types as key events, replacing the content (null: no keyboard path). */
    java.util.function.Consumer<String> onKeys;
    /** Scrolls forward (true) or backward; false when it cannot move further. */
    java.util.function.Predicate<Boolean> onScroll;
    String packageName;
    String text;
    String label;
    String hint;
    String automationId;
    boolean clickable;
    boolean focusable;
    boolean focused;
    boolean editable;
    boolean password;
    boolean heading;
    boolean scrollable;
    Integer collectionRows;
    Integer itemRow;
    Runnable onClick;
    FakeNode parent;
    final List<FakeNode> children = new ArrayList<>();

    FakeNode(String key, String className, int left, int top, int right, int bottom) {
        this.key = key;
        this.className = className;
        this.bounds = new int[] {left, top, right, bottom};
    }

    FakeNode add(FakeNode child) {
        child.parent = this;
        children.add(child);
        return this;
    }

    boolean contains(int x, int y) {
        return x >= bounds[0] && x < bounds[2] && y >= bounds[1] && y < bounds[3];
    }
}
