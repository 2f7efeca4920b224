package dev.mobridge.agent.core.link;

/** Primitive actions on a node. Constant names are the wire spellings. */
public enum ActionVerb {
    CLICK, LONG_CLICK, SET_TEXT, CLEAR_TEXT, FOCUS, SCROLL_FORWARD, SCROLL_BACKWARD, SELECT, EXPAND, COLLAPSE, DISMISS, COPY, PASTE
}
