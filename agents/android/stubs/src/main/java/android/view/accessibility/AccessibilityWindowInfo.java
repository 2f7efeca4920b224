package android.view.accessibility;

import android.graphics.Rect;

public final class AccessibilityWindowInfo {
    public static final int TYPE_APPLICATION = 1;
    public static final int TYPE_INPUT_METHOD = 2;
    public static final int TYPE_SYSTEM = 3;
    public static final int TYPE_ACCESSIBILITY_OVERLAY = 4;
    public static final int TYPE_SPLIT_SCREEN_DIVIDER = 5;

    AccessibilityWindowInfo() { throw new RuntimeException("Stub!"); }
    public int getId() { throw new RuntimeException("Stub!"); }
    public int getType() { throw new RuntimeException("Stub!"); }
    public int getLayer() { throw new RuntimeException("Stub!"); }
    public CharSequence getTitle() { throw new RuntimeException("Stub!"); }
    public boolean isActive() { throw new RuntimeException("Stub!"); }
    public boolean isFocused() { throw new RuntimeException("Stub!"); }
    public void getBoundsInScreen(Rect outBounds) { throw new RuntimeException("Stub!"); }
    public AccessibilityNodeInfo getRoot() { throw new RuntimeException("Stub!"); }
    /** API 33. */
    public AccessibilityNodeInfo getRoot(int prefetchingStrategy) { throw new RuntimeException("Stub!"); }
}
