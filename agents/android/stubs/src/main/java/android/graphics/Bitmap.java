package android.graphics;

import java.io.OutputStream;

public final class Bitmap {
    Bitmap() { throw new RuntimeException("Stub!"); }

    public enum CompressFormat { PNG }

    public boolean compress(Bitmap.CompressFormat format, int quality, OutputStream stream) { throw new RuntimeException("Stub!"); }
    public void recycle() { throw new RuntimeException("Stub!"); }
}
