package android.os;

public class Build {
    // Not compile-time constants, exactly like the real android.jar (never inlined).
    public static final String DEVICE = stub();
    public static final String MANUFACTURER = stub();
    public static final String MODEL = stub();

    Build() { throw new RuntimeException("Stub!"); }

    static String stub() {
        return null;
    }

    public static class VERSION {
        public static final int SDK_INT = Integer.parseInt("0");
        public static final String RELEASE = stub();

        VERSION() { throw new RuntimeException("Stub!"); }
    }
}
