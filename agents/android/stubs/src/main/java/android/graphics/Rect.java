package android.graphics;

public final class Rect {
    public int left;
    public int top;
    public int right;
    public int bottom;

    public Rect() { throw new RuntimeException("Stub!"); }
    public boolean intersect(int left, int top, int right, int bottom) { throw new RuntimeException("Stub!"); }
    public boolean contains(int x, int y) { throw new RuntimeException("Stub!"); }
}
