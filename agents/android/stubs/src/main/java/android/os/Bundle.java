package android.os;

public final class Bundle {
    public Bundle() { throw new RuntimeException("Stub!"); }
    /** Declared on BaseBundle in the real API; resolved there at run time. */
    public String getString(String key) { throw new RuntimeException("Stub!"); }
    /** Declared on BaseBundle in the real API; resolved there at run time. */
    public void putString(String key, String value) { throw new RuntimeException("Stub!"); }
    public void putCharSequence(String key, CharSequence value) { throw new RuntimeException("Stub!"); }
}
