package android.view.accessibility;

import android.graphics.Rect;
import android.os.Bundle;
import java.util.List;

public class AccessibilityNodeInfo {
    public static final int FOCUS_INPUT = 1;
    public static final int ACTION_FOCUS = 0x00000001;
    public static final int ACTION_SELECT = 0x00000004;
    public static final int ACTION_CLICK = 0x00000010;
    public static final int ACTION_LONG_CLICK = 0x00000020;
    public static final int ACTION_SCROLL_FORWARD = 0x00001000;
    public static final int ACTION_SCROLL_BACKWARD = 0x00002000;
    public static final int ACTION_COPY = 0x00004000;
    public static final int ACTION_PASTE = 0x00008000;
    public static final int ACTION_EXPAND = 0x00040000;
    public static final int ACTION_COLLAPSE = 0x00080000;
    public static final int ACTION_DISMISS = 0x00100000;
    public static final int ACTION_SET_TEXT = 0x00200000;
    public static final String ACTION_ARGUMENT_SET_TEXT_CHARSEQUENCE =
            "ACTION_ARGUMENT_SET_TEXT_CHARSEQUENCE";

    AccessibilityNodeInfo() { throw new RuntimeException("Stub!"); }

    public int getChildCount() { throw new RuntimeException("Stub!"); }
    public AccessibilityNodeInfo getChild(int index) { throw new RuntimeException("Stub!"); }
    /** API 33. */
    public AccessibilityNodeInfo getChild(int index, int prefetchingStrategy) { throw new RuntimeException("Stub!"); }
    public int getWindowId() { throw new RuntimeException("Stub!"); }
    public AccessibilityNodeInfo getParent() { throw new RuntimeException("Stub!"); }
    public boolean refresh() { throw new RuntimeException("Stub!"); }
    public boolean performAction(int action) { throw new RuntimeException("Stub!"); }
    public boolean performAction(int action, Bundle arguments) { throw new RuntimeException("Stub!"); }
    public List<AccessibilityNodeInfo.AccessibilityAction> getActionList() { throw new RuntimeException("Stub!"); }
    public void getBoundsInScreen(Rect outBounds) { throw new RuntimeException("Stub!"); }
    public CharSequence getClassName() { throw new RuntimeException("Stub!"); }
    public CharSequence getPackageName() { throw new RuntimeException("Stub!"); }
    public CharSequence getText() { throw new RuntimeException("Stub!"); }
    public CharSequence getContentDescription() { throw new RuntimeException("Stub!"); }
    /** API 26. */
    public CharSequence getHintText() { throw new RuntimeException("Stub!"); }
    /** API 30. */
    public CharSequence getStateDescription() { throw new RuntimeException("Stub!"); }
    public String getViewIdResourceName() { throw new RuntimeException("Stub!"); }
    public boolean isClickable() { throw new RuntimeException("Stub!"); }
    public boolean isLongClickable() { throw new RuntimeException("Stub!"); }
    public boolean isCheckable() { throw new RuntimeException("Stub!"); }
    public boolean isChecked() { throw new RuntimeException("Stub!"); }
    public boolean isEnabled() { throw new RuntimeException("Stub!"); }
    public boolean isFocusable() { throw new RuntimeException("Stub!"); }
    public boolean isFocused() { throw new RuntimeException("Stub!"); }
    public boolean isSelected() { throw new RuntimeException("Stub!"); }
    public boolean isScrollable() { throw new RuntimeException("Stub!"); }
    public boolean isEditable() { throw new RuntimeException("Stub!"); }
    public boolean isPassword() { throw new RuntimeException("Stub!"); }
    public boolean isVisibleToUser() { throw new RuntimeException("Stub!"); }
    /** API 26. */
    public boolean isShowingHintText() { throw new RuntimeException("Stub!"); }
    /** API 28. */
    public boolean isHeading() { throw new RuntimeException("Stub!"); }
    public AccessibilityNodeInfo.CollectionInfo getCollectionInfo() { throw new RuntimeException("Stub!"); }
    public AccessibilityNodeInfo.CollectionItemInfo getCollectionItemInfo() { throw new RuntimeException("Stub!"); }
    public AccessibilityNodeInfo.RangeInfo getRangeInfo() { throw new RuntimeException("Stub!"); }

    public static final class AccessibilityAction {
        /** API 23. */
        public static final AccessibilityNodeInfo.AccessibilityAction ACTION_SHOW_ON_SCREEN = null;
        AccessibilityAction() { throw new RuntimeException("Stub!"); }
        public int getId() { throw new RuntimeException("Stub!"); }
    }

    public static final class CollectionInfo {
        CollectionInfo() { throw new RuntimeException("Stub!"); }
        public int getRowCount() { throw new RuntimeException("Stub!"); }
        public int getColumnCount() { throw new RuntimeException("Stub!"); }
    }

    public static final class CollectionItemInfo {
        CollectionItemInfo() { throw new RuntimeException("Stub!"); }
        public int getRowIndex() { throw new RuntimeException("Stub!"); }
        public int getColumnIndex() { throw new RuntimeException("Stub!"); }
    }

    public static final class RangeInfo {
        RangeInfo() { throw new RuntimeException("Stub!"); }
        public float getCurrent() { throw new RuntimeException("Stub!"); }
    }
}
