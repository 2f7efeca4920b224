package dev.mobridge.agent.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * One accepted byte stream (a TCP socket on the host, a local socket on a device). The server
 * core needs nothing else from the platform.
 */
public interface Transport {
    InputStream input() throws IOException;

    OutputStream output() throws IOException;

    /** Read timeout in milliseconds, 0 for none. */
    void setReadTimeout(int millis) throws IOException;

    void close();
}
