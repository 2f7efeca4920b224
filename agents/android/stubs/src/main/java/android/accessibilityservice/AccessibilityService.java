package android.accessibilityservice;

public abstract class AccessibilityService {
    public static final int GLOBAL_ACTION_BACK = 1;
    public static final int GLOBAL_ACTION_HOME = 2;
    public static final int GLOBAL_ACTION_RECENTS = 3;
    public static final int GLOBAL_ACTION_NOTIFICATIONS = 4;

    AccessibilityService() { throw new RuntimeException("Stub!"); }
}
