package dev.mobridge.agent.host;

import dev.mobridge.agent.core.link.AgentMessage;
import dev.mobridge.agent.core.link.BadMessageException;
import dev.mobridge.agent.core.ws.WsFrame;
import dev.mobridge.agent.core.ws.WsFrameCodec;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * A minimal websocket client over a real java.net.Socket, for tests: it does the HTTP upgrade
 * itself, masks every frame, and decodes every agent message strictly.
 */
final class TestWsClient implements Closeable {
    final Socket socket;
    final InputStream in;
    final OutputStream out;
    final int status;
    final String responseHead;
    private final SecureRandom random = new SecureRandom();
    /** Close code received from the server, -1 while open. */
    int closeCode = -1;
    final StringBuilder transcript = new StringBuilder();

    TestWsClient(int port, String authorization, String... extraHeaders) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(5000);
        in = new BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
        byte[] nonce = new byte[16];
        random.nextBytes(nonce);
        StringBuilder req = new StringBuilder("GET / HTTP/1.1\r\nHost: 127.0.0.1:" + port
                + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: "
                + Base64.getEncoder().encodeToString(nonce) + "\r\nSec-WebSocket-Version: 13\r\n");
        if (authorization != null) {
            req.append("Authorization: ").append(authorization).append("\r\n");
        }
        for (String h : extraHeaders) {
            req.append(h).append("\r\n");
        }
        out.write(req.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII));
        out.flush();
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString("ISO-8859-1").endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            head.write(b);
        }
        responseHead = head.toString("ISO-8859-1");
        String[] statusLine = responseHead.split(" ", 3);
        status = statusLine.length > 1 ? Integer.parseInt(statusLine[1]) : -1;
    }

    void sendText(String text) throws IOException {
        sendFrame(true, WsFrame.OP_TEXT, text.getBytes(StandardCharsets.UTF_8));
    }

    void sendFrame(boolean fin, int opcode, byte[] payload) throws IOException {
        byte[] mask = new byte[4];
        random.nextBytes(mask);
        out.write(WsFrameCodec.encode(fin, opcode, payload, mask));
        out.flush();
    }

    void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** The next text message, answering nothing; null when the server closed (code kept). */
    String readText(int timeoutMs) throws IOException {
        socket.setSoTimeout(timeoutMs);
        while (true) {
            WsFrame f = WsFrameCodec.read(in, false, 64 << 20);
            if (f == null) {
                return null;
            }
            if (f.masked) {
                throw new AssertionError("server frames must not be masked");
            }
            if (f.opcode == WsFrame.OP_CLOSE) {
                closeCode = f.payload.length >= 2
                        ? ((f.payload[0] & 0xFF) << 8) | (f.payload[1] & 0xFF) : 1005;
                return null;
            }
            if (f.opcode == WsFrame.OP_PING) {
                sendFrame(true, WsFrame.OP_PONG, f.payload);
                continue;
            }
            if (f.opcode == WsFrame.OP_TEXT && f.fin) {
                String s = new String(f.payload, StandardCharsets.UTF_8);
                transcript.append(s).append('\n');
                return s;
            }
            if (f.opcode == WsFrame.OP_PONG) {
                continue;
            }
            throw new AssertionError("unexpected frame opcode " + f.opcode);
        }
    }

    /** The next agent message, decoded strictly; null when closed. */
    AgentMessage read(int timeoutMs) throws IOException {
        String s = readText(timeoutMs);
        if (s == null) {
            return null;
        }
        try {
            return AgentMessage.decode(s);
        } catch (BadMessageException e) {
            throw new AssertionError("agent sent an invalid message: " + e.getMessage() + ": " + s);
        }
    }

    /** Reads until a message matching {@code type} (and reply id when >= 0) arrives. */
    AgentMessage await(Class<? extends AgentMessage> type, long replyId, int timeoutMs)
            throws IOException {
        long end = System.currentTimeMillis() + timeoutMs;
        while (true) {
            long left = end - System.currentTimeMillis();
            if (left <= 0) {
                throw new AssertionError("timed out waiting for " + type.getSimpleName());
            }
            AgentMessage m;
            try {
                m = read((int) left);
            } catch (SocketTimeoutException e) {
                throw new AssertionError("timed out waiting for " + type.getSimpleName());
            }
            if (m == null) {
                throw new AssertionError("closed (" + closeCode + ") while waiting for "
                        + type.getSimpleName());
            }
            if (type.isInstance(m) && (replyId < 0
                    || ((AgentMessage.Reply) m).id == replyId)) {
                return m;
            }
        }
    }

    /** Waits for the server's close frame and returns its code. */
    int awaitClose(int timeoutMs) throws IOException {
        while (true) {
            String s;
            try {
                s = readText(timeoutMs);
            } catch (SocketTimeoutException e) {
                throw new AssertionError("no close within " + timeoutMs + " ms");
            } catch (java.io.EOFException e) {
                return closeCode;
            }
            if (s == null) {
                return closeCode;
            }
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Test teardown.
        }
    }
}
