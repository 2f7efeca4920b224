package dev.mobridge.agent.core.ws;

/** Websocket close status codes (RFC 6455 section 7.4.1) this server sends or accepts. */
public final class CloseCode {
    public static final int NORMAL = 1000;
    public static final int GOING_AWAY = 1001;
    public static final int PROTOCOL_ERROR = 1002;
    public static final int UNSUPPORTED_DATA = 1003;
    /** Reserved: "no status code present"; never sent on the wire. */
    public static final int NO_STATUS = 1005;
    /** Reserved: "closed without a close frame"; never sent on the wire. */
    public static final int ABNORMAL = 1006;
    public static final int INVALID_PAYLOAD = 1007;
    public static final int POLICY_VIOLATION = 1008;
    public static final int MESSAGE_TOO_BIG = 1009;
    public static final int INTERNAL_ERROR = 1011;

    private CloseCode() {}

    /** True when {@code code} may appear in a close frame received from a peer. */
    public static boolean isValidOnWire(int code) {
        if (code >= 3000 && code <= 4999) {
            return true;
        }
        switch (code) {
            case 1000: case 1001: case 1002: case 1003: case 1007: case 1008:
            case 1009: case 1010: case 1011:
                return true;
            default:
                return false;
        }
    }
}
