package dev.mobridge.agent.core.capture;

/**
 * Which child prefetching a capture asks the platform for.
 *
 * <p>From API 33, {@code AccessibilityNodeInfo.getChild(int, int)} and {@code
 * AccessibilityWindowInfo.getRoot(int)} take a prefetching strategy: the one binder call that
 * fetches a node also brings up to {@link #MAX_PREFETCHED} of its descendants into the
 * accessibility cache, so most of a walk's {@code getChild} calls are answered from the cache.
 * Below API 33 only the platform's default prefetching exists and the plain calls are used
 * (strategy 0). The flag values are the platform's ({@code FLAG_PREFETCH_*}, API 33).
 */
public final class Prefetch {
    public static final int FLAG_PREFETCH_ANCESTORS = 0x1;
    public static final int FLAG_PREFETCH_SIBLINGS = 0x2;
    public static final int FLAG_PREFETCH_DESCENDANTS_HYBRID = 0x4;
    public static final int FLAG_PREFETCH_DESCENDANTS_DEPTH_FIRST = 0x8;
    public static final int FLAG_PREFETCH_DESCENDANTS_BREADTH_FIRST = 0x10;
    public static final int FLAG_PREFETCH_UNINTERRUPTIBLE = 0x20;
    /** The platform's cap on nodes prefetched by one request. */
    public static final int MAX_PREFETCHED = 50;
    /** The first API level with prefetching strategies. */
    public static final int MIN_SDK = 33;

    private Prefetch() {}

    /**
     * The strategy for a capture on API level {@code sdkInt}: descendants depth first (the
     * order the walk visits them, so one fetch serves the next {@link #MAX_PREFETCHED} nodes
     * of the walk), uninterruptible so a burst of UI events does not cut a prefetch short; 0
     * below API 33.
     */
    public static int strategyFor(int sdkInt) {
        if (sdkInt < MIN_SDK) {
            return 0;
        }
        return FLAG_PREFETCH_DESCENDANTS_DEPTH_FIRST | FLAG_PREFETCH_UNINTERRUPTIBLE;
    }
}
