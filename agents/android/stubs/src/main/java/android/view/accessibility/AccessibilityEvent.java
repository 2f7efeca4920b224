package android.view.accessibility;

public final class AccessibilityEvent {
    public static final int TYPE_VIEW_CLICKED = 0x00000001;
    public static final int TYPE_VIEW_SELECTED = 0x00000004;
    public static final int TYPE_VIEW_FOCUSED = 0x00000008;
    public static final int TYPE_VIEW_TEXT_CHANGED = 0x00000010;
    public static final int TYPE_WINDOW_STATE_CHANGED = 0x00000020;
    public static final int TYPE_WINDOW_CONTENT_CHANGED = 0x00000800;
    public static final int TYPE_VIEW_SCROLLED = 0x00001000;
    public static final int TYPE_WINDOWS_CHANGED = 0x00400000;

    AccessibilityEvent() { throw new RuntimeException("Stub!"); }
    public int getEventType() { throw new RuntimeException("Stub!"); }
}
