package dev.mobridge.agent.core.ws;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.Test;

/** Framing against the examples of RFC 6455 section 5.7 and the error cases of section 5. */
public class WsFrameCodecTest {
    private static final byte[] HELLO = "Hello".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] MASK = {0x37, (byte) 0xfa, 0x21, 0x3d};

    static byte[] bytes(int... v) {
        byte[] b = new byte[v.length];
        for (int i = 0; i < v.length; i++) {
            b[i] = (byte) v[i];
        }
        return b;
    }

    static WsFrame read(byte[] wire, boolean requireMask, long max) throws IOException {
        return WsFrameCodec.read(new ByteArrayInputStream(wire), requireMask, max);
    }

    @Test
    public void unmaskedTextHello() throws IOException {
        byte[] wire = bytes(0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f);
        assertArrayEquals(wire, WsFrameCodec.encode(true, WsFrame.OP_TEXT, HELLO, null));
        WsFrame f = read(wire, false, 1000);
        assertTrue(f.fin);
        assertEquals(WsFrame.OP_TEXT, f.opcode);
        assertFalse(f.masked);
        assertArrayEquals(HELLO, f.payload);
    }

    @Test
    public void maskedTextHello() throws IOException {
        byte[] wire = bytes(0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58);
        assertArrayEquals(wire, WsFrameCodec.encode(true, WsFrame.OP_TEXT, HELLO, MASK));
        WsFrame f = read(wire, true, 1000);
        assertTrue(f.masked);
        assertArrayEquals(HELLO, f.payload);
    }

    @Test
    public void fragmentedUnmaskedText() throws IOException {
        byte[] first = bytes(0x01, 0x03, 0x48, 0x65, 0x6c);
        byte[] second = bytes(0x80, 0x02, 0x6c, 0x6f);
        assertArrayEquals(first, WsFrameCodec.encode(false, WsFrame.OP_TEXT,
                Arrays.copyOf(HELLO, 3), null));
        assertArrayEquals(second, WsFrameCodec.encode(true, WsFrame.OP_CONTINUATION,
                Arrays.copyOfRange(HELLO, 3, 5), null));
        InputStream in = new ByteArrayInputStream(concat(first, second));
        WsFrame a = WsFrameCodec.read(in, false, 100);
        WsFrame b = WsFrameCodec.read(in, false, 100);
        assertFalse(a.fin);
        assertEquals(WsFrame.OP_TEXT, a.opcode);
        assertTrue(b.fin);
        assertEquals(WsFrame.OP_CONTINUATION, b.opcode);
        assertEquals("Hello", new String(concat(a.payload, b.payload), StandardCharsets.US_ASCII));
        assertNull("clean end of stream", WsFrameCodec.read(in, false, 100));
    }

    @Test
    public void unmaskedPingAndMaskedPong() throws IOException {
        byte[] ping = bytes(0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f);
        byte[] pong = bytes(0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58);
        assertArrayEquals(ping, WsFrameCodec.encode(true, WsFrame.OP_PING, HELLO, null));
        assertArrayEquals(pong, WsFrameCodec.encode(true, WsFrame.OP_PONG, HELLO, MASK));
        assertEquals(WsFrame.OP_PING, read(ping, false, 100).opcode);
        WsFrame p = read(pong, true, 100);
        assertEquals(WsFrame.OP_PONG, p.opcode);
        assertTrue(p.isControl());
        assertArrayEquals(HELLO, p.payload);
    }

    @Test
    public void binary256BytesUses16BitLength() throws IOException {
        byte[] payload = new byte[256];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) i;
        }
        byte[] wire = WsFrameCodec.encode(true, WsFrame.OP_BINARY, payload, null);
        assertArrayEquals(bytes(0x82, 0x7E, 0x01, 0x00), Arrays.copyOf(wire, 4));
        assertEquals(4 + 256, wire.length);
        assertArrayEquals(payload, read(wire, false, 1000).payload);
    }

    @Test
    public void binary64KiBUses64BitLength() throws IOException {
        byte[] payload = new byte[65536];
        Arrays.fill(payload, (byte) 7);
        byte[] wire = WsFrameCodec.encode(true, WsFrame.OP_BINARY, payload, null);
        assertArrayEquals(bytes(0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0), Arrays.copyOf(wire, 10));
        assertEquals(10 + 65536, wire.length);
        assertArrayEquals(payload, read(wire, false, 1 << 20).payload);
    }

    @Test
    public void maskedLargeFrameRoundTrips() throws IOException {
        byte[] payload = new byte[70000];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) (i * 31);
        }
        byte[] wire = WsFrameCodec.encode(true, WsFrame.OP_TEXT, payload, MASK);
        assertArrayEquals(payload, read(wire, true, 1 << 20).payload);
    }

    @Test
    public void oversizedFrameIs1009BeforeThePayloadIsRead() throws IOException {
        // Header announces 2^40 bytes; no payload follows. The cap must trip on the header.
        byte[] wire = bytes(0x81, 0xFF, 0, 0, 0x01, 0, 0, 0, 0, 0, 1, 2, 3, 4);
        expectClose(wire, true, 1 << 20, CloseCode.MESSAGE_TOO_BIG);
        byte[] justOver = WsFrameCodec.encode(true, WsFrame.OP_TEXT, new byte[1025], MASK);
        expectClose(justOver, true, 1024, CloseCode.MESSAGE_TOO_BIG);
        read(WsFrameCodec.encode(true, WsFrame.OP_TEXT, new byte[1024], MASK), true, 1024);
    }

    @Test
    public void unmaskedClientFrameIsProtocolError() throws IOException {
        expectClose(bytes(0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f), true, 100,
                CloseCode.PROTOCOL_ERROR);
    }

    @Test
    public void reservedBitsUnknownOpcodesAndBadControlFramesAreProtocolErrors()
            throws IOException {
        expectClose(bytes(0xC1, 0x80, 1, 2, 3, 4), true, 100, CloseCode.PROTOCOL_ERROR);
        expectClose(bytes(0x83, 0x80, 1, 2, 3, 4), true, 100, CloseCode.PROTOCOL_ERROR);
        expectClose(bytes(0x8B, 0x80, 1, 2, 3, 4), true, 100, CloseCode.PROTOCOL_ERROR);
        expectClose(bytes(0x09, 0x80, 1, 2, 3, 4), true, 100, CloseCode.PROTOCOL_ERROR);
        expectClose(bytes(0x89, 0xFE, 0x00, 0x7E), true, 1000, CloseCode.PROTOCOL_ERROR);
        expectClose(bytes(0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0), true, Long.MAX_VALUE,
                CloseCode.PROTOCOL_ERROR);
    }

    @Test(expected = EOFException.class)
    public void truncatedFrameIsEof() throws IOException {
        read(bytes(0x81, 0x85, 0x37, 0xfa, 0x21), true, 100);
    }

    @Test
    public void closeCodesValidOnWire() {
        assertTrue(CloseCode.isValidOnWire(1000));
        assertTrue(CloseCode.isValidOnWire(4000));
        assertFalse(CloseCode.isValidOnWire(1005));
        assertFalse(CloseCode.isValidOnWire(1006));
        assertFalse(CloseCode.isValidOnWire(999));
        assertFalse(CloseCode.isValidOnWire(5000));
    }

    private static void expectClose(byte[] wire, boolean requireMask, long max, int code)
            throws IOException {
        try {
            read(wire, requireMask, max);
            fail("expected close " + code);
        } catch (WsProtocolException e) {
            assertEquals(code, e.closeCode);
        }
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
