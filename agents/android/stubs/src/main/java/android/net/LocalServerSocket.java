package android.net;

import java.io.IOException;

public class LocalServerSocket {
    public LocalServerSocket(String name) throws IOException { throw new RuntimeException("Stub!"); }
    public LocalSocket accept() throws IOException { throw new RuntimeException("Stub!"); }
}
