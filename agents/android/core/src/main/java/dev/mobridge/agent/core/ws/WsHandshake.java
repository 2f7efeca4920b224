package dev.mobridge.agent.core.ws;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Server side of the RFC 6455 opening handshake with bearer-token authentication.
 *
 * <p>Order of checks: the request head must fit in {@link #MAX_HEAD_BYTES} and parse as an
 * HTTP/1.1 GET (else 400); then the {@code Authorization: Bearer} token is checked (else 401,
 * before anything about the websocket upgrade is revealed); then Host, Upgrade, Connection,
 * Sec-WebSocket-Version 13 and a 16-byte base64 Sec-WebSocket-Key are required (else 400).
 * Only then is 101 sent. No extension or subprotocol is ever negotiated. The head is read byte
 * by byte so not a single byte of the first frame is consumed.
 */
public final class WsHandshake {
    public static final int MAX_HEAD_BYTES = 8192;
    private static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

    /** What happened; {@code status} is 101 on success. */
    public static final class Result {
        public final int status;
        public final String reason;
        public final String path;

        Result(int status, String reason, String path) {
            this.status = status;
            this.reason = reason;
            this.path = path;
        }

        public boolean ok() {
            return status == 101;
        }
    }

    private WsHandshake() {}

    /** The Sec-WebSocket-Accept value for a client key (RFC 6455 section 4.2.2). */
    public static String acceptKey(String clientKey) {
        try {
            MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
            byte[] digest = sha1.digest((clientKey + GUID).getBytes(StandardCharsets.US_ASCII));
            return Base64.getEncoder().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 unavailable", e);
        }
    }

    /** Reads the request head, answers it, and reports the outcome; never throws for bad input. */
    public static Result perform(InputStream in, OutputStream out, TokenCheck tokens)
            throws IOException {
        String head = readHead(in);
        if (head == null) {
            return reject(out, 400, "request head missing, truncated or larger than 8 KiB", null);
        }
        String[] lines = head.split("\r\n", -1);
        String[] request = lines[0].split(" ", -1);
        if (request.length != 3 || !request[0].equals("GET") || !request[2].equals("HTTP/1.1")
                || !request[1].startsWith("/")) {
            return reject(out, 400, "expected 'GET /path HTTP/1.1'", null);
        }
        String path = request[1];
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            String line = lines[i];
            if (line.isEmpty()) {
                continue;
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                return reject(out, 400, "malformed header line", path);
            }
            String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).trim();
            headers.merge(name, value, (a, b) -> a + ", " + b);
        }
        if (!tokens.matches(bearer(headers.get("authorization")))) {
            return reject(out, 401, "missing or wrong bearer token", path);
        }
        if (!headers.containsKey("host")) {
            return reject(out, 400, "Host header missing", path);
        }
        if (!hasToken(headers.get("upgrade"), "websocket")) {
            return reject(out, 400, "Upgrade: websocket required", path);
        }
        if (!hasToken(headers.get("connection"), "upgrade")) {
            return reject(out, 400, "Connection: Upgrade required", path);
        }
        if (!"13".equals(headers.get("sec-websocket-version"))) {
            return reject(out, 400, "Sec-WebSocket-Version 13 required", path);
        }
        String key = headers.get("sec-websocket-key");
        if (!isValidKey(key)) {
            return reject(out, 400, "Sec-WebSocket-Key must be 16 bytes in base64", path);
        }
        String response = "HTTP/1.1 101 Switching Protocols\r\n"
                + "Upgrade: websocket\r\n"
                + "Connection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: " + acceptKey(key) + "\r\n\r\n";
        out.write(response.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return new Result(101, "switching protocols", path);
    }

    private static String bearer(String authorization) {
        if (authorization == null) {
            return null;
        }
        String v = authorization.trim();
        if (v.length() < 7 || !v.substring(0, 7).equalsIgnoreCase("bearer ")) {
            return null;
        }
        return v.substring(7).trim();
    }

    private static boolean hasToken(String headerValue, String token) {
        if (headerValue == null) {
            return false;
        }
        for (String part : headerValue.split(",")) {
            if (part.trim().equalsIgnoreCase(token)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isValidKey(String key) {
        if (key == null) {
            return false;
        }
        try {
            return Base64.getDecoder().decode(key).length == 16;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** Reads up to the blank line; null when the stream ends first or the head is too large. */
    private static String readHead(InputStream in) throws IOException {
        byte[] buf = new byte[MAX_HEAD_BYTES];
        int n = 0;
        while (n < buf.length) {
            int b = in.read();
            if (b < 0) {
                return null;
            }
            buf[n++] = (byte) b;
            if (n >= 4 && buf[n - 4] == '\r' && buf[n - 3] == '\n' && buf[n - 2] == '\r'
                    && buf[n - 1] == '\n') {
                return new String(buf, 0, n - 4, StandardCharsets.ISO_8859_1);
            }
        }
        return null;
    }

    private static Result reject(OutputStream out, int status, String reason, String path)
            throws IOException {
        String statusText = status == 401 ? "Unauthorized" : "Bad Request";
        byte[] body = (reason + "\n").getBytes(StandardCharsets.UTF_8);
        StringBuilder sb = new StringBuilder();
        sb.append("HTTP/1.1 ").append(status).append(' ').append(statusText).append("\r\n");
        if (status == 401) {
            sb.append("WWW-Authenticate: Bearer\r\n");
        }
        if (reason.startsWith("Sec-WebSocket-Version")) {
            sb.append("Sec-WebSocket-Version: 13\r\n");
        }
        sb.append("Content-Type: text/plain; charset=utf-8\r\n");
        sb.append("Content-Length: ").append(body.length).append("\r\n");
        sb.append("Connection: close\r\n\r\n");
        out.write(sb.toString().getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
        return new Result(status, reason, path);
    }
}
