package android.content;

import android.content.pm.PackageManager;

public abstract class Context {
    public static final String CLIPBOARD_SERVICE = "clipboard";
    public static final String DISPLAY_SERVICE = "display";

    Context() { throw new RuntimeException("Stub!"); }

    public abstract Object getSystemService(String name);
    public abstract PackageManager getPackageManager();
    public abstract void startActivity(Intent intent);
    public abstract String getPackageName();
}
