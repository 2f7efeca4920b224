package android.graphics;

public class Point {
    public int x;
    public int y;

    public Point() { throw new RuntimeException("Stub!"); }
}
