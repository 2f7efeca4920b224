package android.content;

public class ActivityNotFoundException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ActivityNotFoundException() { throw new RuntimeException("Stub!"); }
}
