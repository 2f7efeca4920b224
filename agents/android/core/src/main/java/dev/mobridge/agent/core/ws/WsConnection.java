package dev.mobridge.agent.core.ws;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * One server-side websocket connection after a successful handshake, over any stream pair.
 *
 * <p>Invariants: {@link #readMessage} returns whole messages as text (fragments reassembled,
 * total capped at {@code maxMessage}); pings are answered with a pong carrying the same payload
 * while reading; text and binary messages alike must be UTF-8 (binary is accepted because a
 * JSON encoder producing bytes is common on the hub side) — invalid UTF-8 closes with 1007,
 * oversized
 * frames or messages with 1009, protocol errors with 1002. Writes are serialized, so any thread
 * may send. Exactly one close frame is sent; after a close the connection never sends data.
 */
public final class WsConnection {
    private final InputStream in;
    private final OutputStream out;
    private final long maxMessage;
    private final Object writeLock = new Object();
    private boolean closeSent;
    private volatile boolean closeReceived;
    private volatile int closeCode = CloseCode.ABNORMAL;
    private volatile String closeReason = "";
    private volatile long lastInboundMillis = System.nanoTime() / 1_000_000L;

    public WsConnection(InputStream in, OutputStream out, long maxMessage) {
        this.in = in;
        this.out = out;
        this.maxMessage = maxMessage;
    }

    /**
     * Next complete text message, or null once the connection is closed (by either side or by a
     * protocol error, which this method answers with the right close frame before returning).
     */
    public String readMessage() throws IOException {
        ByteArrayOutputStream message = null;
        while (true) {
            WsFrame frame;
            try {
                frame = WsFrameCodec.read(in, true, maxMessage);
            } catch (WsProtocolException e) {
                fail(e.closeCode, e.getMessage());
                return null;
            }
            if (frame == null) {
                closeCode = CloseCode.ABNORMAL;
                closeReason = "stream ended without a close frame";
                return null;
            }
            lastInboundMillis = System.nanoTime() / 1_000_000L;
            switch (frame.opcode) {
                case WsFrame.OP_PING:
                    sendFrame(WsFrame.OP_PONG, frame.payload);
                    continue;
                case WsFrame.OP_PONG:
                    continue;
                case WsFrame.OP_CLOSE:
                    onClose(frame.payload);
                    return null;
                case WsFrame.OP_BINARY:
                case WsFrame.OP_TEXT:
                    if (message != null) {
                        fail(CloseCode.PROTOCOL_ERROR, "new message inside a fragmented one");
                        return null;
                    }
                    message = new ByteArrayOutputStream();
                    break;
                case WsFrame.OP_CONTINUATION:
                    if (message == null) {
                        fail(CloseCode.PROTOCOL_ERROR, "continuation without a message");
                        return null;
                    }
                    break;
                default:
                    fail(CloseCode.PROTOCOL_ERROR, "unexpected opcode");
                    return null;
            }
            if ((long) message.size() + frame.payload.length > maxMessage) {
                fail(CloseCode.MESSAGE_TOO_BIG, "message exceeds " + maxMessage + " bytes");
                return null;
            }
            message.write(frame.payload, 0, frame.payload.length);
            if (frame.fin) {
                String text = decodeUtf8(message.toByteArray());
                if (text == null) {
                    fail(CloseCode.INVALID_PAYLOAD, "text message is not valid UTF-8");
                    return null;
                }
                return text;
            }
        }
    }

    /** Sends one text message as a single frame. */
    public void sendText(String text) throws IOException {
        sendFrame(WsFrame.OP_TEXT, text.getBytes(StandardCharsets.UTF_8));
    }

    public void sendPing(byte[] payload) throws IOException {
        sendFrame(WsFrame.OP_PING, payload);
    }

    /** Sends a close frame (once); the caller then closes the transport. */
    public void close(int code, String reason) {
        byte[] r = clip(reason);
        byte[] payload = new byte[2 + r.length];
        payload[0] = (byte) (code >>> 8);
        payload[1] = (byte) code;
        System.arraycopy(r, 0, payload, 2, r.length);
        synchronized (writeLock) {
            if (closeSent) {
                return;
            }
            try {
                writeRaw(WsFrame.OP_CLOSE, payload);
            } catch (IOException ignored) {
                // The peer is gone; nothing more to tell it.
            }
            closeSent = true;
        }
        if (!closeReceived) {
            closeCode = code;
            closeReason = reason;
        }
    }

    public boolean isOpen() {
        synchronized (writeLock) {
            return !closeSent && !closeReceived;
        }
    }

    /** The close code received from the peer or sent by us (1006 when the stream just ended). */
    public int closeCode() {
        return closeCode;
    }

    public String closeReason() {
        return closeReason;
    }

    public long lastInboundMillis() {
        return lastInboundMillis;
    }

    private void onClose(byte[] payload) {
        closeReceived = true;
        if (payload.length == 0) {
            closeCode = CloseCode.NO_STATUS;
            closeReason = "";
            close(CloseCode.NORMAL, "");
            return;
        }
        int code = payload.length >= 2 ? ((payload[0] & 0xFF) << 8) | (payload[1] & 0xFF) : -1;
        String reason = payload.length > 2 ? decodeUtf8(slice(payload, 2)) : "";
        if (payload.length == 1 || !CloseCode.isValidOnWire(code) || reason == null) {
            closeCode = CloseCode.PROTOCOL_ERROR;
            closeReason = "invalid close frame";
            close(CloseCode.PROTOCOL_ERROR, "invalid close frame");
            return;
        }
        closeCode = code;
        closeReason = reason;
        close(code, "");
    }

    private void fail(int code, String reason) {
        close(code, reason);
    }

    private void sendFrame(int opcode, byte[] payload) throws IOException {
        synchronized (writeLock) {
            if (closeSent) {
                throw new IOException("connection closed");
            }
            writeRaw(opcode, payload);
        }
    }

    private void writeRaw(int opcode, byte[] payload) throws IOException {
        out.write(WsFrameCodec.encode(true, opcode, payload, null));
        out.flush();
    }

    private static byte[] slice(byte[] b, int from) {
        byte[] r = new byte[b.length - from];
        System.arraycopy(b, from, r, 0, r.length);
        return r;
    }

    /** The reason's UTF-8 bytes, cut at a character boundary so the close payload stays <= 125. */
    private static byte[] clip(String reason) {
        String r = reason == null ? "" : reason;
        byte[] b = r.getBytes(StandardCharsets.UTF_8);
        while (b.length > WsFrameCodec.MAX_CONTROL_PAYLOAD - 2) {
            r = r.substring(0, r.length() - 1);
            if (!r.isEmpty() && Character.isHighSurrogate(r.charAt(r.length() - 1))) {
                r = r.substring(0, r.length() - 1);
            }
            b = r.getBytes(StandardCharsets.UTF_8);
        }
        return b;
    }

    /** Strict UTF-8 decoding; null when the bytes are not valid UTF-8. */
    static String decodeUtf8(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
