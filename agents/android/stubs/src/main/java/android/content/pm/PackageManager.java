package android.content.pm;

import android.content.Intent;

public abstract class PackageManager {
    PackageManager() { throw new RuntimeException("Stub!"); }
    public abstract Intent getLaunchIntentForPackage(String packageName);
}
