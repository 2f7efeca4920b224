package android.view;

import android.graphics.Point;

public final class Display {
    public static final int DEFAULT_DISPLAY = 0;

    Display() { throw new RuntimeException("Stub!"); }
    public int getRotation() { throw new RuntimeException("Stub!"); }
    public void getRealSize(Point outSize) { throw new RuntimeException("Stub!"); }
}
