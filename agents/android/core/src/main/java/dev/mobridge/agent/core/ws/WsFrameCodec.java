package dev.mobridge.agent.core.ws;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * RFC 6455 section 5 framing: encoding and strict decoding of single frames.
 *
 * <p>Invariants: a decoded frame never exceeds {@code maxPayload} bytes (checked from the header,
 * before any payload is read, so a huge length cannot make us allocate); reserved bits set,
 * unknown opcodes, fragmented or oversized (&gt;125) control frames and a 64-bit length with the
 * top bit set are protocol errors (1002); a missing mask is a protocol error when the reader
 * requires masking (a server reading client frames always does).
 */
public final class WsFrameCodec {
    public static final int MAX_CONTROL_PAYLOAD = 125;

    private WsFrameCodec() {}

    /** Encodes one frame; {@code maskKey} is null for server frames or 4 bytes for client frames. */
    public static byte[] encode(boolean fin, int opcode, byte[] payload, byte[] maskKey) {
        int len = payload.length;
        ByteArrayOutputStream out = new ByteArrayOutputStream(len + 14);
        out.write((fin ? 0x80 : 0) | (opcode & 0x0F));
        int maskBit = maskKey == null ? 0 : 0x80;
        if (len <= 125) {
            out.write(maskBit | len);
        } else if (len <= 0xFFFF) {
            out.write(maskBit | 126);
            out.write(len >>> 8);
            out.write(len & 0xFF);
        } else {
            out.write(maskBit | 127);
            long l = len;
            for (int shift = 56; shift >= 0; shift -= 8) {
                out.write((int) (l >>> shift) & 0xFF);
            }
        }
        if (maskKey == null) {
            out.write(payload, 0, len);
        } else {
            if (maskKey.length != 4) {
                throw new IllegalArgumentException("mask key must be 4 bytes");
            }
            out.write(maskKey, 0, 4);
            byte[] masked = payload.clone();
            applyMask(masked, maskKey);
            out.write(masked, 0, len);
        }
        return out.toByteArray();
    }

    /** XORs {@code data} in place with the 4-byte masking key (masking is its own inverse). */
    public static void applyMask(byte[] data, byte[] maskKey) {
        for (int i = 0; i < data.length; i++) {
            data[i] ^= maskKey[i & 3];
        }
    }

    /**
     * Reads one frame. Returns null on a clean end of stream before the first header byte;
     * an end of stream inside a frame is an {@link EOFException}.
     */
    public static WsFrame read(InputStream in, boolean requireMask, long maxPayload)
            throws IOException {
        int b0 = in.read();
        if (b0 < 0) {
            return null;
        }
        int b1 = readByte(in);
        boolean fin = (b0 & 0x80) != 0;
        if ((b0 & 0x70) != 0) {
            throw new WsProtocolException(CloseCode.PROTOCOL_ERROR, "reserved bits set");
        }
        int opcode = b0 & 0x0F;
        switch (opcode) {
            case WsFrame.OP_CONTINUATION: case WsFrame.OP_TEXT: case WsFrame.OP_BINARY:
            case WsFrame.OP_CLOSE: case WsFrame.OP_PING: case WsFrame.OP_PONG:
                break;
            default:
                throw new WsProtocolException(CloseCode.PROTOCOL_ERROR, "unknown opcode " + opcode);
        }
        boolean masked = (b1 & 0x80) != 0;
        if (requireMask && !masked) {
            throw new WsProtocolException(CloseCode.PROTOCOL_ERROR, "client frame not masked");
        }
        long len = b1 & 0x7F;
        if (len == 126) {
            len = ((long) readByte(in) << 8) | readByte(in);
        } else if (len == 127) {
            len = 0;
            for (int i = 0; i < 8; i++) {
                len = (len << 8) | readByte(in);
            }
            if (len < 0) {
                throw new WsProtocolException(CloseCode.PROTOCOL_ERROR, "64-bit length top bit set");
            }
        }
        boolean control = (opcode & 0x8) != 0;
        if (control && (!fin || len > MAX_CONTROL_PAYLOAD)) {
            throw new WsProtocolException(
                    CloseCode.PROTOCOL_ERROR, "control frame fragmented or longer than 125 bytes");
        }
        if (len > maxPayload) {
            throw new WsProtocolException(
                    CloseCode.MESSAGE_TOO_BIG, "frame of " + len + " bytes exceeds " + maxPayload);
        }
        byte[] key = null;
        if (masked) {
            key = new byte[4];
            readFully(in, key);
        }
        byte[] payload = new byte[(int) len];
        readFully(in, payload);
        if (key != null) {
            applyMask(payload, key);
        }
        return new WsFrame(fin, opcode, payload, masked);
    }

    private static int readByte(InputStream in) throws IOException {
        int b = in.read();
        if (b < 0) {
            throw new EOFException("stream ended inside a frame header");
        }
        return b;
    }

    static void readFully(InputStream in, byte[] buf) throws IOException {
        int off = 0;
        while (off < buf.length) {
            int n = in.read(buf, off, buf.length - off);
            if (n < 0) {
                throw new EOFException("stream ended inside a frame payload");
            }
            off += n;
        }
    }
}
