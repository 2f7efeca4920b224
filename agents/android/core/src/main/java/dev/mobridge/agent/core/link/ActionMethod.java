package dev.mobridge.agent.core.link;

/** How a node action was dispatched. Constant names are the wire spellings. */
public enum ActionMethod {
    ACCESSIBILITY_ACTION, ACCESSIBILITY_ACTION_ANCESTOR, GESTURE_FALLBACK
}
