package dev.mobridge.agent.core.link;

/** System-wide actions. Constant names are the wire spellings. */
public enum GlobalAction {
    BACK, HOME, RECENTS, NOTIFICATION_SHADE
}
