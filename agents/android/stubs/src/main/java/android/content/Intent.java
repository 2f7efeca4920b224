package android.content;

import android.net.Uri;

public class Intent {
    public static final String ACTION_VIEW = "android.intent.action.VIEW";
    public static final int FLAG_ACTIVITY_NEW_TASK = 0x10000000;
    public static final int FLAG_ACTIVITY_RESET_TASK_IF_NEEDED = 0x00200000;

    public Intent(String action, Uri uri) { throw new RuntimeException("Stub!"); }
    public Intent addFlags(int flags) { throw new RuntimeException("Stub!"); }
    public Intent setPackage(String packageName) { throw new RuntimeException("Stub!"); }
}
