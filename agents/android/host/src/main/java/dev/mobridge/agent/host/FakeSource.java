package dev.mobridge.agent.host;

import dev.mobridge.agent.core.capture.LayoutMode;
import dev.mobridge.agent.core.capture.Prefetch;
import dev.mobridge.agent.core.capture.TreeWalker;
import dev.mobridge.agent.core.link.RawNode;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The fake's accessibility service side: what the walk reads, in the chosen layout, with a
 * model of the platform's node cache that counts "binder calls" (node fetches that would cross
 * into the app's process).
 *
 * <p>Model: a plain fetch (strategy 0: the pre-API-33 path this agent used) costs one call per
 * node. A fetch with a descendant prefetching strategy costs one call and puts the node and up
 * to {@link Prefetch#MAX_PREFETCHED} - 1 of its descendants (children first) in the cache,
 * where later fetches cost nothing. The cache is emptied by {@link #clearCache} (each capture
 * clears it first). Compressed layout: a node not important for accessibility is replaced by
 * its children (as the platform does without FLAG_INCLUDE_NOT_IMPORTANT_VIEWS).
 */
final class FakeSource implements TreeWalker.Source<FakeNode> {
    LayoutMode layout = LayoutMode.FULL;
    private int calls;
    private final Set<FakeNode> cache = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Map<FakeNode, List<FakeNode>> kids = new IdentityHashMap<>();
    /** Reads a node's fields (the backend's own conversion). */
    private final java.util.function.Function<FakeNode, RawNode> reader;

    FakeSource(java.util.function.Function<FakeNode, RawNode> reader) {
        this.reader = reader;
    }

    int calls() {
        return calls;
    }

    void clearCache() {
        cache.clear();
        kids.clear();
    }

    /** The window root, fetched as {@code AccessibilityWindowInfo.getRoot} would. */
    FakeNode root(FakeNode root, int prefetch) {
        fetch(root, prefetch);
        return root;
    }

    List<FakeNode> children(FakeNode n) {
        List<FakeNode> out = kids.get(n);
        if (out == null) {
            out = new ArrayList<>();
            collect(n, out);
            kids.put(n, out);
        }
        return out;
    }

    private void collect(FakeNode n, List<FakeNode> out) {
        for (FakeNode c : n.children) {
            if (c.important || layout == LayoutMode.FULL) {
                out.add(c);
            } else {
                collect(c, out);
            }
        }
    }

    @Override
    public int childCount(FakeNode n) {
        return children(n).size();
    }

    @Override
    public FakeNode child(FakeNode n, int index, int prefetch) {
        FakeNode c = children(n).get(index);
        fetch(c, prefetch);
        return c;
    }

    private void fetch(FakeNode n, int prefetch) {
        if (prefetch != 0 && cache.contains(n)) {
            return;
        }
        calls++;
        if ((prefetch & (Prefetch.FLAG_PREFETCH_DESCENDANTS_HYBRID
                | Prefetch.FLAG_PREFETCH_DESCENDANTS_BREADTH_FIRST
                | Prefetch.FLAG_PREFETCH_DESCENDANTS_DEPTH_FIRST)) == 0) {
            return;
        }
        cache.add(n);
        int[] budget = {Prefetch.MAX_PREFETCHED - 1};
        if ((prefetch & Prefetch.FLAG_PREFETCH_DESCENDANTS_DEPTH_FIRST) != 0) {
            depthFirst(n, budget);
        } else if ((prefetch & Prefetch.FLAG_PREFETCH_DESCENDANTS_HYBRID) != 0) {
            hybrid(n, budget);
        } else {
            Deque<FakeNode> queue = new ArrayDeque<>(children(n));
            while (budget[0] > 0 && !queue.isEmpty()) {
                FakeNode d = queue.poll();
                take(d, budget);
                queue.addAll(children(d));
            }
        }
    }

    private void take(FakeNode d, int[] budget) {
        if (cache.add(d)) {
            budget[0]--;
        }
    }

    /** Pre-order below {@code n} (the walk's own order). */
    private void depthFirst(FakeNode n, int[] budget) {
        Deque<FakeNode> stack = new ArrayDeque<>();
        List<FakeNode> first = children(n);
        for (int i = first.size() - 1; i >= 0; i--) {
            stack.push(first.get(i));
        }
        while (budget[0] > 0 && !stack.isEmpty()) {
            FakeNode d = stack.pop();
            take(d, budget);
            List<FakeNode> kids = children(d);
            for (int i = kids.size() - 1; i >= 0; i--) {
                stack.push(kids.get(i));
            }
        }
    }

    /** A node's children first, then each child's subtree the same way. */
    private void hybrid(FakeNode n, int[] budget) {
        List<FakeNode> kids = children(n);
        for (FakeNode c : kids) {
            if (budget[0] <= 0) {
                return;
            }
            take(c, budget);
        }
        for (FakeNode c : kids) {
            if (budget[0] <= 0) {
                return;
            }
            hybrid(c, budget);
        }
    }

    @Override
    public RawNode read(FakeNode n) {
        return reader.apply(n);
    }

    @Override
    public Object key(FakeNode n) {
        return n.key;
    }
}
