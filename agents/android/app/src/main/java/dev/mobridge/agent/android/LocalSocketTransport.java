package dev.mobridge.agent.android;

import android.net.LocalSocket;
import dev.mobridge.agent.core.Transport;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/** An accepted abstract-namespace unix socket as a {@link Transport}. */
final class LocalSocketTransport implements Transport {
    private final LocalSocket socket;

    LocalSocketTransport(LocalSocket socket) {
        this.socket = socket;
    }

    @Override
    public InputStream input() throws IOException {
        return socket.getInputStream();
    }

    @Override
    public OutputStream output() throws IOException {
        return socket.getOutputStream();
    }

    @Override
    public void setReadTimeout(int millis) throws IOException {
        socket.setSoTimeout(millis);
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Already closed.
        }
    }
}
