package android.view;

public abstract class InputEvent {
    InputEvent() { throw new RuntimeException("Stub!"); }
}
