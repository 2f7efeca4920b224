package android.os;

public final class SystemClock {
    SystemClock() { throw new RuntimeException("Stub!"); }
    public static long uptimeMillis() { throw new RuntimeException("Stub!"); }
}
