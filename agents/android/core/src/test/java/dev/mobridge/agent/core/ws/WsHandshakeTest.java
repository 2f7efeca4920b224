package dev.mobridge.agent.core.ws;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.Test;

public class WsHandshakeTest {
    private static final TokenCheck TOKENS = new TokenCheck("s3cret-token");
    private static final String KEY = "dGhlIHNhbXBsZSBub25jZQ==";

    @Test
    public void acceptKeyMatchesRfc6455Example() {
        assertEquals("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", WsHandshake.acceptKey(KEY));
    }

    static String request(String... headerLines) {
        StringBuilder sb = new StringBuilder("GET /agent HTTP/1.1\r\n");
        for (String h : headerLines) {
            sb.append(h).append("\r\n");
        }
        return sb.append("\r\n").toString();
    }

    static String[] good() {
        return new String[] {"Host: 127.0.0.1:9000", "Upgrade: websocket",
            "Connection: keep-alive, Upgrade", "Sec-WebSocket-Key: " + KEY,
            "Sec-WebSocket-Version: 13", "Authorization: Bearer s3cret-token"};
    }

    static String[] without(String prefix, String... replacement) {
        java.util.List<String> out = new java.util.ArrayList<>();
        for (String h : good()) {
            if (!h.startsWith(prefix)) {
                out.add(h);
            }
        }
        java.util.Collections.addAll(out, replacement);
        return out.toArray(new String[0]);
    }

    static final class Run {
        WsHandshake.Result result;
        String response;
        int leftover;
    }

    static Run run(String request) throws IOException {
        byte[] req = request.getBytes(StandardCharsets.ISO_8859_1);
        byte[] withFrame = WsFrameCodecTest.concat(req, new byte[] {(byte) 0x81, 0x00});
        ByteArrayInputStream in = new ByteArrayInputStream(withFrame);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Run r = new Run();
        r.result = WsHandshake.perform(in, out, TOKENS);
        r.response = out.toString(StandardCharsets.ISO_8859_1.name());
        r.leftover = in.available();
        return r;
    }

    @Test
    public void validUpgradeGets101WithAcceptAndLeavesFrameBytesUnread() throws IOException {
        Run r = run(request(good()));
        assertTrue(r.result.ok());
        assertEquals("/agent", r.result.path);
        assertTrue(r.response.startsWith("HTTP/1.1 101 Switching Protocols\r\n"));
        assertTrue(r.response.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"));
        assertFalse("no extension negotiated", r.response.contains("Extensions"));
        assertEquals(2, r.leftover);
    }

    @Test
    public void headerNamesAndBearerSchemeAreCaseInsensitive() throws IOException {
        Run r = run(request(without("Authorization", "AUTHORIZATION: bearer s3cret-token")));
        assertEquals(101, r.result.status);
    }

    @Test
    public void missingTokenIs401() throws IOException {
        Run r = run(request(without("Authorization")));
        assertEquals(401, r.result.status);
        assertTrue(r.response.startsWith("HTTP/1.1 401 Unauthorized\r\n"));
        assertTrue(r.response.contains("WWW-Authenticate: Bearer\r\n"));
    }

    @Test
    public void wrongTokenIs401() throws IOException {
        assertEquals(401, run(request(without("Authorization",
                "Authorization: Bearer s3cret-tokeN"))).result.status);
        assertEquals(401, run(request(without("Authorization",
                "Authorization: Basic czNjcmV0LXRva2Vu"))).result.status);
        assertEquals(401, run(request(without("Authorization",
                "Authorization: Bearer s3cret-token-and-more"))).result.status);
    }

    @Test
    public void tokenIsCheckedBeforeWebsocketHeaders() throws IOException {
        assertEquals(401, run(request("Host: x")).result.status);
    }

    @Test
    public void badHandshakesAre400() throws IOException {
        assertEquals(400, run(request(without("Upgrade"))).result.status);
        assertEquals(400, run(request(without("Upgrade", "Upgrade: h2c"))).result.status);
        assertEquals(400, run(request(without("Connection", "Connection: close")))
                .result.status);
        assertEquals(400, run(request(without("Host"))).result.status);
        assertEquals(400, run(request(without("Sec-WebSocket-Key"))).result.status);
        assertEquals(400, run(request(without("Sec-WebSocket-Key",
                "Sec-WebSocket-Key: c2hvcnQ="))).result.status);
        assertEquals(400, run(request(without("Sec-WebSocket-Key",
                "Sec-WebSocket-Key: !!!not-base64!!!"))).result.status);
        assertEquals(400, run("POST /agent HTTP/1.1\r\n\r\n").result.status);
        assertEquals(400, run("GET /agent HTTP/1.0\r\n\r\n").result.status);
        assertEquals(400, run("nonsense\r\n\r\n").result.status);
        assertEquals(400, run(request(without("Host", "no colon here"))).result.status);
    }

    @Test
    public void wrongVersionIs400AndNamesTheSupportedVersion() throws IOException {
        Run r = run(request(without("Sec-WebSocket-Version", "Sec-WebSocket-Version: 8")));
        assertEquals(400, r.result.status);
        assertTrue(r.response.contains("Sec-WebSocket-Version: 13\r\n"));
    }

    @Test
    public void oversizedOrTruncatedHeadIs400() throws IOException {
        StringBuilder big = new StringBuilder("GET / HTTP/1.1\r\n");
        while (big.length() < WsHandshake.MAX_HEAD_BYTES + 10) {
            big.append("X-Filler: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n");
        }
        assertEquals(400, run(big.append("\r\n").toString()).result.status);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        WsHandshake.Result r = WsHandshake.perform(new ByteArrayInputStream(
                "GET / HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII)), out, TOKENS);
        assertEquals(400, r.status);
    }

    @Test
    public void tokenCheckComparesWholeTokens() {
        assertTrue(TOKENS.matches("s3cret-token"));
        assertFalse(TOKENS.matches("s3cret-toke"));
        assertFalse(TOKENS.matches(""));
        assertFalse(TOKENS.matches(null));
    }

    @Test(expected = IllegalArgumentException.class)
    public void emptyConfiguredTokenIsRefused() {
        new TokenCheck("");
    }
}
