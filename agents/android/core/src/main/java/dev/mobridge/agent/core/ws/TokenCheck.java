package dev.mobridge.agent.core.ws;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Compares a presented bearer token with the configured one in constant time.
 *
 * <p>Both sides are hashed to fixed-width SHA-256 digests first and compared with
 * {@link MessageDigest#isEqual}, so neither the content nor the length of the secret leaks
 * through timing. The token itself is never logged or exposed by this class.
 */
public final class TokenCheck {
    private final byte[] expectedDigest;

    public TokenCheck(String token) {
        if (token == null || token.isEmpty()) {
            throw new IllegalArgumentException("an agent token is required");
        }
        this.expectedDigest = sha256(token);
    }

    public boolean matches(String presented) {
        byte[] digest = sha256(presented == null ? "" : presented);
        boolean equal = MessageDigest.isEqual(digest, expectedDigest);
        return equal && presented != null;
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }
}
