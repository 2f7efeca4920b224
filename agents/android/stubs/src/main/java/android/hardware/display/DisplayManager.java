package android.hardware.display;

import android.view.Display;

public final class DisplayManager {
    DisplayManager() { throw new RuntimeException("Stub!"); }
    public Display getDisplay(int displayId) { throw new RuntimeException("Stub!"); }
}
