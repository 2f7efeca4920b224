package android.net;

public abstract class Uri {
    Uri() { throw new RuntimeException("Stub!"); }
    public static Uri parse(String uriString) { throw new RuntimeException("Stub!"); }
}
