package android.accessibilityservice;

public class AccessibilityServiceInfo {
    public static final int FLAG_INCLUDE_NOT_IMPORTANT_VIEWS = 0x0000002;
    public static final int FLAG_REPORT_VIEW_IDS = 0x00000010;
    public static final int FLAG_RETRIEVE_INTERACTIVE_WINDOWS = 0x00000040;

    public int flags;

    AccessibilityServiceInfo() { throw new RuntimeException("Stub!"); }
}
