package android.view;

public final class InputDevice {
    public static final int SOURCE_TOUCHSCREEN = 0x00001002;

    InputDevice() { throw new RuntimeException("Stub!"); }
}
