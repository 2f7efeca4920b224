package android.app;

import android.content.Context;
import android.os.Bundle;

public class Instrumentation {
    public Instrumentation() { throw new RuntimeException("Stub!"); }
    public void onCreate(Bundle arguments) { throw new RuntimeException("Stub!"); }
    public void start() { throw new RuntimeException("Stub!"); }
    public void onStart() { throw new RuntimeException("Stub!"); }
    public Context getContext() { throw new RuntimeException("Stub!"); }
    public UiAutomation getUiAutomation(int flags) { throw new RuntimeException("Stub!"); }
    public void sendStatus(int resultCode, Bundle results) { throw new RuntimeException("Stub!"); }
    public void finish(int resultCode, Bundle results) { throw new RuntimeException("Stub!"); }
    public void runOnMainSync(Runnable runner) { throw new RuntimeException("Stub!"); }
}
