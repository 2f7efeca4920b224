package dev.mobridge.agent.core.link;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.json.JSONObject;

/**
 * The {@code tree_delta} from the last tree sent to the next one (protocol/README.md §10), in
 * the canonical form the hub's reference implementation writes ({@code
 * bridge.core.raw_delta.raw_delta}) and the fixtures hold: {@code remove} in the old tree's
 * order, {@code upsert} in the new tree's order with each node's parent as a handle, {@code
 * order} for exactly the parents whose child list changed ({@code ""}: the roots), {@code
 * meta} only when a tree-level field changed.
 *
 * <p>Nodes are matched by handle, so the backend must keep a node's handle across captures
 * while it is the same element. {@link #between} returns null — send the whole tree — when a
 * handle repeats in either tree, the platforms differ, or more than half of the nodes changed.
 */
public final class RawTreeDelta {
    /** More than this share of changed nodes: the whole tree is as good. */
    public static final double FULL_SHARE = 0.5;

    private RawTreeDelta() {}

    public static AgentMessage.TreeDelta between(RawTree prev, RawTree next, String reason,
            boolean stable, int quietMs) {
        if (prev.platform != next.platform) {
            return null;
        }
        Map<Integer, Integer> oldIndex = index(prev);
        Map<Integer, Integer> newIndex = index(next);
        if (oldIndex == null || newIndex == null) {
            return null;
        }
        int[] oldParents = parentHandles(prev);
        int[] newParents = parentHandles(next);
        AgentMessage.TreeDelta d =
                new AgentMessage.TreeDelta(reason, stable, prev.capture, next.capture);
        d.quietMs = quietMs;
        for (RawNode n : prev.nodes) {
            if (!newIndex.containsKey(n.handle)) {
                d.remove.add(n.handle);
            }
        }
        for (int i = 0; i < next.nodes.size(); i++) {
            RawNode node = next.nodes.get(i);
            int parent = newParents[i];
            Integer j = oldIndex.get(node.handle);
            if (j != null && oldParents[j] == parent
                    && sameContent(prev.nodes.get(j), node)) {
                continue;
            }
            d.upsert.add(withParent(node, parent));
        }
        if (d.upsert.size() > FULL_SHARE * Math.max(1, next.nodes.size())) {
            return null;
        }
        Map<Integer, List<Integer>> oldKids = childLists(prev, oldParents);
        Map<Integer, List<Integer>> newKids = childLists(next, newParents);
        List<Integer> parents = new ArrayList<>();
        parents.add(-1);
        for (RawNode n : next.nodes) {
            parents.add(n.handle);
        }
        for (int parent : parents) {
            List<Integer> kids = newKids.getOrDefault(parent, new ArrayList<>());
            if (!kids.equals(oldKids.getOrDefault(parent, new ArrayList<>()))) {
                d.order.put(parent == -1 ? "" : Integer.toString(parent), kids);
            }
        }
        RawMeta meta = RawMeta.of(next);
        d.meta = meta.sameAs(RawMeta.of(prev)) ? null : meta;
        return d;
    }

    /** Handle -> index, or null when a handle repeats. */
    private static Map<Integer, Integer> index(RawTree tree) {
        Map<Integer, Integer> out = new HashMap<>();
        for (int i = 0; i < tree.nodes.size(); i++) {
            if (out.put(tree.nodes.get(i).handle, i) != null) {
                return null;
            }
        }
        return out;
    }

    private static int[] parentHandles(RawTree tree) {
        int[] out = new int[tree.nodes.size()];
        for (int i = 0; i < out.length; i++) {
            int p = tree.nodes.get(i).parent;
            out[i] = p >= 0 ? tree.nodes.get(p).handle : -1;
        }
        return out;
    }

    private static Map<Integer, List<Integer>> childLists(RawTree tree, int[] parents) {
        Map<Integer, List<Integer>> out = new LinkedHashMap<>();
        out.put(-1, new ArrayList<>());
        for (int i = 0; i < parents.length; i++) {
            out.computeIfAbsent(parents[i], k -> new ArrayList<>()).add(tree.nodes.get(i).handle);
        }
        return out;
    }

    /** Every field but the parent index equal (the handles are equal by construction). */
    static boolean sameContent(RawNode a, RawNode b) {
        JSONObject x = a.toJson();
        JSONObject y = b.toJson();
        x.remove("parent");
        y.remove("parent");
        return JsonTreesEqual.same(x, y);
    }

    private static RawNode withParent(RawNode node, int parentHandle) {
        RawNode copy = node.copy();
        copy.parent = parentHandle;
        return copy;
    }
}
