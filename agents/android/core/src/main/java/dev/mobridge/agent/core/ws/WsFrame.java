package dev.mobridge.agent.core.ws;

/** One websocket frame as read or written; {@code payload} is already unmasked. */
public final class WsFrame {
    public static final int OP_CONTINUATION = 0x0;
    public static final int OP_TEXT = 0x1;
    public static final int OP_BINARY = 0x2;
    public static final int OP_CLOSE = 0x8;
    public static final int OP_PING = 0x9;
    public static final int OP_PONG = 0xA;

    public final boolean fin;
    public final int opcode;
    public final byte[] payload;
    /** Whether the frame carried a masking key on the wire. */
    public final boolean masked;

    public WsFrame(boolean fin, int opcode, byte[] payload, boolean masked) {
        this.fin = fin;
        this.opcode = opcode;
        this.payload = payload;
        this.masked = masked;
    }

    public boolean isControl() {
        return (opcode & 0x8) != 0;
    }
}
