package dev.mobridge.agent.core.ws;

import java.io.IOException;

/** The peer broke the websocket protocol; {@link #closeCode} is what the server answers with. */
public final class WsProtocolException extends IOException {
    private static final long serialVersionUID = 1L;

    public final int closeCode;

    public WsProtocolException(int closeCode, String message) {
        super(message);
        this.closeCode = closeCode;
    }
}
