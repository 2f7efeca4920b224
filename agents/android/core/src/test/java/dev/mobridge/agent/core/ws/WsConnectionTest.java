package dev.mobridge.agent.core.ws;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.Test;

/** Message assembly and close handling of a server connection, fed client frames. */
public class WsConnectionTest {
    private static final byte[] MASK = {1, 2, 3, 4};

    static byte[] client(boolean fin, int opcode, byte[] payload) {
        return WsFrameCodec.encode(fin, opcode, payload, MASK);
    }

    static byte[] text(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static final class Wire {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final WsConnection conn;

        Wire(long max, byte[]... frames) {
            ByteArrayOutputStream in = new ByteArrayOutputStream();
            for (byte[] f : frames) {
                in.write(f, 0, f.length);
            }
            conn = new WsConnection(new ByteArrayInputStream(in.toByteArray()), out, max);
        }

        List<WsFrame> sent() throws IOException {
            ByteArrayInputStream in = new ByteArrayInputStream(out.toByteArray());
            List<WsFrame> frames = new ArrayList<>();
            WsFrame f;
            while ((f = WsFrameCodec.read(in, false, 1 << 20)) != null) {
                assertFalse("server frames are never masked", f.masked);
                frames.add(f);
            }
            return frames;
        }

        int sentCloseCode() throws IOException {
            List<WsFrame> frames = sent();
            WsFrame last = frames.get(frames.size() - 1);
            assertEquals(WsFrame.OP_CLOSE, last.opcode);
            return ((last.payload[0] & 0xFF) << 8) | (last.payload[1] & 0xFF);
        }
    }

    @Test
    public void reassemblesFragmentsAndAnswersInterleavedPing() throws IOException {
        Wire w = new Wire(1000,
                client(false, WsFrame.OP_TEXT, text("{\"type\":")),
                client(true, WsFrame.OP_PING, text("hb")),
                client(false, WsFrame.OP_CONTINUATION, text("\"ping\",")),
                client(true, WsFrame.OP_CONTINUATION, text("\"id\":1}")));
        assertEquals("{\"type\":\"ping\",\"id\":1}", w.conn.readMessage());
        List<WsFrame> sent = w.sent();
        assertEquals(1, sent.size());
        assertEquals(WsFrame.OP_PONG, sent.get(0).opcode);
        assertArrayEquals(text("hb"), sent.get(0).payload);
    }

    @Test
    public void multiByteCharacterSplitAcrossFragments() throws IOException {
        byte[] euro = text("\u20ac");
        Wire w = new Wire(1000,
                client(false, WsFrame.OP_TEXT, new byte[] {euro[0]}),
                client(true, WsFrame.OP_CONTINUATION, new byte[] {euro[1], euro[2]}));
        assertEquals("\u20ac", w.conn.readMessage());
    }

    @Test
    public void binaryUtf8MessagesAreReadAsText() throws IOException {
        Wire w = new Wire(1000, client(true, WsFrame.OP_BINARY, text("{\"a\":1}")));
        assertEquals("{\"a\":1}", w.conn.readMessage());
    }

    @Test
    public void unmaskedClientFrameCloses1002() throws IOException {
        Wire w = new Wire(1000, WsFrameCodec.encode(true, WsFrame.OP_TEXT, text("hi"), null));
        assertNull(w.conn.readMessage());
        assertEquals(CloseCode.PROTOCOL_ERROR, w.sentCloseCode());
        assertFalse(w.conn.isOpen());
    }

    @Test
    public void oversizedFrameAndOversizedMessageClose1009() throws IOException {
        Wire w = new Wire(10, client(true, WsFrame.OP_TEXT, new byte[11]));
        assertNull(w.conn.readMessage());
        assertEquals(CloseCode.MESSAGE_TOO_BIG, w.sentCloseCode());
        Wire frags = new Wire(10, client(false, WsFrame.OP_TEXT, text("123456")),
                client(true, WsFrame.OP_CONTINUATION, text("78901")));
        assertNull(frags.conn.readMessage());
        assertEquals(CloseCode.MESSAGE_TOO_BIG, frags.sentCloseCode());
    }

    @Test
    public void invalidUtf8Closes1007() throws IOException {
        Wire w = new Wire(100, client(true, WsFrame.OP_TEXT, new byte[] {(byte) 0xC3, 0x28}));
        assertNull(w.conn.readMessage());
        assertEquals(CloseCode.INVALID_PAYLOAD, w.sentCloseCode());
    }

    @Test
    public void fragmentationErrorsClose1002() throws IOException {
        Wire orphan = new Wire(100, client(true, WsFrame.OP_CONTINUATION, text("x")));
        assertNull(orphan.conn.readMessage());
        assertEquals(CloseCode.PROTOCOL_ERROR, orphan.sentCloseCode());
        Wire nested = new Wire(100, client(false, WsFrame.OP_TEXT, text("a")),
                client(true, WsFrame.OP_TEXT, text("b")));
        assertNull(nested.conn.readMessage());
        assertEquals(CloseCode.PROTOCOL_ERROR, nested.sentCloseCode());
    }

    @Test
    public void peerCloseIsEchoedWithItsCode() throws IOException {
        Wire w = new Wire(100, client(true, WsFrame.OP_CLOSE, new byte[] {0x03, (byte) 0xE9}));
        assertNull(w.conn.readMessage());
        assertEquals(CloseCode.GOING_AWAY, w.conn.closeCode());
        assertEquals(CloseCode.GOING_AWAY, w.sentCloseCode());
        assertEquals(1, w.sent().size());
    }

    @Test
    public void emptyCloseIsAnsweredWithNormalClosure() throws IOException {
        Wire w = new Wire(100, client(true, WsFrame.OP_CLOSE, new byte[0]));
        assertNull(w.conn.readMessage());
        assertEquals(CloseCode.NO_STATUS, w.conn.closeCode());
        assertEquals(CloseCode.NORMAL, w.sentCloseCode());
    }

    @Test
    public void malformedCloseFramesAre1002() throws IOException {
        Wire oneByte = new Wire(100, client(true, WsFrame.OP_CLOSE, new byte[] {0x03}));
        assertNull(oneByte.conn.readMessage());
        assertEquals(CloseCode.PROTOCOL_ERROR, oneByte.sentCloseCode());
        Wire reserved = new Wire(100, client(true, WsFrame.OP_CLOSE, new byte[] {0x03, (byte) 0xED}));
        assertNull(reserved.conn.readMessage());
        assertEquals(CloseCode.PROTOCOL_ERROR, reserved.sentCloseCode());
    }

    @Test
    public void endOfStreamWithoutCloseIsAbnormal() throws IOException {
        Wire w = new Wire(100);
        assertNull(w.conn.readMessage());
        assertEquals(CloseCode.ABNORMAL, w.conn.closeCode());
    }

    @Test
    public void sendsUnmaskedTextAndOnlyOneClose() throws IOException {
        Wire w = new Wire(100);
        w.conn.sendText("h\u00e9");
        w.conn.close(CloseCode.GOING_AWAY, "bye");
        w.conn.close(CloseCode.NORMAL, "again");
        List<WsFrame> sent = w.sent();
        assertEquals(2, sent.size());
        assertEquals("h\u00e9", new String(sent.get(0).payload, StandardCharsets.UTF_8));
        assertEquals(CloseCode.GOING_AWAY, w.sentCloseCode());
        try {
            w.conn.sendText("after close");
            assertTrue("sending after close must fail", false);
        } catch (IOException expected) {
            assertEquals(2, w.sent().size());
        }
    }

    @Test
    public void longCloseReasonIsClippedToAControlFrame() throws IOException {
        Wire w = new Wire(100);
        StringBuilder reason = new StringBuilder();
        for (int i = 0; i < 100; i++) {
            reason.append('\u00e9');
        }
        w.conn.close(CloseCode.POLICY_VIOLATION, reason.toString());
        WsFrame f = w.sent().get(0);
        assertTrue(f.payload.length <= 125);
        assertEquals(CloseCode.POLICY_VIOLATION, w.sentCloseCode());
    }
}
