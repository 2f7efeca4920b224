package android.view;

public class KeyEvent extends InputEvent {
    public static final int ACTION_DOWN = 0;
    public static final int ACTION_UP = 1;
    public static final int KEYCODE_UNKNOWN = 0;
    public static final int KEYCODE_A = 29;
    public static final int KEYCODE_DEL = 67;
    public static final int META_CTRL_ON = 0x1000;

    public KeyEvent(long downTime, long eventTime, int action, int code, int repeat,
            int metaState) { throw new RuntimeException("Stub!"); }
    public static int keyCodeFromString(String symbolicName) { throw new RuntimeException("Stub!"); }
}
