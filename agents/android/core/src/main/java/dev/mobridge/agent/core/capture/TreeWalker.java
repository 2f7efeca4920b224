package dev.mobridge.agent.core.capture;

import dev.mobridge.agent.core.UiBackend;
import dev.mobridge.agent.core.link.RawNode;
import dev.mobridge.agent.core.link.RawTree;
import dev.mobridge.agent.core.link.Texts;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The capture walk shared by every backend: pre-order, without recursion, limited in depth and
 * node count while walking, with the platform's child prefetching, and keeping each element's
 * handle from one capture to the next.
 *
 * <p>Invariants: a node deeper than {@link #maxDepth} levels below its window's root (depth 0)
 * is never read; nodes past {@link Texts#MAX_RAW_NODES} are never read; either limit sets
 * {@link RawTree#truncated} to a reason that says how much was left out, so the hub marks the
 * snapshot truncated instead of the capture failing. A node keeps the handle it had in the
 * previous capture when {@link Source#key} is equal; a key seen twice in one walk gets a fresh
 * handle the second time. The node objects of the newest {@link UiBackend#RETAINED_CAPTURES}
 * captures are kept by handle ({@link #node}). Not thread-safe: one capture at a time.
 *
 * @param <N> the platform's node type
 */
public final class TreeWalker<N> {
    /** The default depth limit: the hub's own ({@code bridge/core/raw_limits.py}). */
    public static final int MAX_DEPTH = 256;

    /** The thin platform half: one node's children and fields. */
    public interface Source<N> {
        int childCount(N node);

        /**
         * The child at {@code index}, fetched with {@code prefetch} ({@link Prefetch} flags; 0:
         * the plain one-node fetch). Null when the platform no longer has it.
         */
        N child(N node, int index, int prefetch);

        /** The node's fields (handle, parent and window are set by the walker). */
        RawNode read(N node);

        /** Equal for the same element in two captures (the handle's identity). */
        Object key(N node);
    }

    private final Source<N> source;
    private final int maxDepth;
    private final int maxNodes;
    private Map<Object, Integer> handleOf = new HashMap<>();
    private int nextHandle = 1;
    private final LinkedHashMap<Integer, Map<Integer, N>> captures = new LinkedHashMap<>();

    public TreeWalker(Source<N> source) {
        this(source, MAX_DEPTH, Texts.MAX_RAW_NODES);
    }

    public TreeWalker(Source<N> source, int maxDepth, int maxNodes) {
        if (maxDepth < 0 || maxNodes < 1) {
            throw new IllegalArgumentException("need maxDepth >= 0 and maxNodes >= 1");
        }
        this.source = source;
        this.maxDepth = maxDepth;
        this.maxNodes = maxNodes;
    }

    /** Forgets every capture and handle (a new hub connection starts numbering at 1). */
    public void reset() {
        captures.clear();
        handleOf.clear();
        nextHandle = 1;
    }

    /** One capture in progress: {@link #window} per window root, then {@link #finish}. */
    public final class Walk {
        private final RawTree tree;
        private final int prefetch;
        private final Map<Integer, N> handles = new HashMap<>();
        private final Map<Object, Integer> seen = new HashMap<>();
        private int skippedBelowDepth;
        private boolean nodeLimit;
        private int deepest;

        Walk(RawTree tree, int prefetch) {
            this.tree = tree;
            this.prefetch = prefetch;
        }

        /** Walks the tree under {@code root} (window {@code windowId}) into the capture. */
        public void window(N root, int windowId) {
            Deque<Object[]> stack = new ArrayDeque<>();
            stack.push(new Object[] {root, -1, 0});
            while (!stack.isEmpty()) {
                if (tree.nodes.size() >= maxNodes) {
                    nodeLimit = true;
                    return;
                }
                Object[] top = stack.pop();
                @SuppressWarnings("unchecked")
                N n = (N) top[0];
                int depth = (Integer) top[2];
                int index = tree.nodes.size();
                RawNode r = source.read(n);
                Object key = source.key(n);
                Integer handle = handleOf.get(key);
                if (handle == null || handles.containsKey(handle)) {
                    handle = nextHandle++;
                }
                r.handle = handle;
                r.parent = (Integer) top[1];
                r.window = windowId;
                tree.nodes.add(r);
                handles.put(handle, n);
                seen.put(key, handle);
                deepest = Math.max(deepest, depth);
                if (r.focused && tree.focus == null) {
                    tree.focus = handle;
                }
                int count = source.childCount(n);
                if (count <= 0) {
                    continue;
                }
                if (depth >= maxDepth) {
                    skippedBelowDepth += count;
                    continue;
                }
                for (int i = count - 1; i >= 0; i--) {
                    N c = source.child(n, i, prefetch);
                    if (c != null) {
                        stack.push(new Object[] {c, index, depth + 1});
                    }
                }
            }
        }

        /** The deepest level read (0: roots only). */
        public int deepest() {
            return deepest;
        }

        /** Ends the capture: sets {@code truncated} when a limit was hit, keeps the handles. */
        public RawTree finish() {
            if (skippedBelowDepth > 0 || nodeLimit) {
                StringBuilder why = new StringBuilder();
                if (skippedBelowDepth > 0) {
                    why.append("depth limit ").append(maxDepth).append(" reached: ")
                            .append(skippedBelowDepth).append(" child nodes (and their subtrees)"
                                    + " not read");
                }
                if (nodeLimit) {
                    why.append(why.length() > 0 ? "; " : "").append("node limit ")
                            .append(maxNodes).append(" reached");
                }
                tree.truncated = why.toString();
            }
            handleOf = seen;
            captures.put(tree.capture, handles);
            Iterator<Integer> oldest = captures.keySet().iterator();
            while (captures.size() > UiBackend.RETAINED_CAPTURES) {
                oldest.next();
                oldest.remove();
            }
            return tree;
        }
    }

    /** Starts capture {@code tree.capture}, fetching children with {@code prefetch} flags. */
    public Walk begin(RawTree tree, int prefetch) {
        return new Walk(tree, prefetch);
    }

    /** Whether capture {@code capture} is still held. */
    public boolean holds(int capture) {
        return captures.containsKey(capture);
    }

    /** The node behind {@code handle} in capture {@code capture}, or null. */
    public N node(int capture, int handle) {
        Map<Integer, N> handles = captures.get(capture);
        return handles == null ? null : handles.get(handle);
    }
}
