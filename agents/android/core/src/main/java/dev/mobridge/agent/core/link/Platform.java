package dev.mobridge.agent.core.link;

/** The platform flavour of a raw tree. Constant names are the wire spellings. */
public enum Platform {
    ANDROID, IOS
}
