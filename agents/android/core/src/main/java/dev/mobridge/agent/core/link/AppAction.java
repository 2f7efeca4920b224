package dev.mobridge.agent.core.link;

/** App control; APP_CLOSE_UI is Back/Home and never guarantees process death. Constant names are the wire spellings. */
public enum AppAction {
    APP_OPEN, APP_DEEP_LINK, APP_BRING_TO_FRONT, APP_CLOSE_UI
}
