package dev.mobridge.agent.core.link;

/** Limits of the raw tree shared with the hub (bridge/wire/raw.py). */
public final class Texts {
    /** Longest text field the hub accepts (in characters). */
    public static final int MAX_RAW_TEXT = 8192;
    /** Most nodes one capture may carry. */
    public static final int MAX_RAW_NODES = 20_000;

    private Texts() {}

    /** {@code s} cut to {@link #MAX_RAW_TEXT} UTF-16 units without splitting a surrogate pair. */
    public static String clip(String s) {
        if (s == null || s.length() <= MAX_RAW_TEXT) {
            return s;
        }
        int end = MAX_RAW_TEXT;
        if (Character.isHighSurrogate(s.charAt(end - 1))) {
            end--;
        }
        return s.substring(0, end);
    }

    /** Null for null or empty strings: the raw tree never carries empty text. */
    public static String emptyToNull(CharSequence s) {
        return s == null || s.length() == 0 ? null : clip(s.toString());
    }
}
