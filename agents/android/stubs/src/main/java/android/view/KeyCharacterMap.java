package android.view;

public class KeyCharacterMap {
    public static final int VIRTUAL_KEYBOARD = -1;

    KeyCharacterMap() { throw new RuntimeException("Stub!"); }
    public static KeyCharacterMap load(int deviceId) { throw new RuntimeException("Stub!"); }
    public KeyEvent[] getEvents(char[] chars) { throw new RuntimeException("Stub!"); }
}
