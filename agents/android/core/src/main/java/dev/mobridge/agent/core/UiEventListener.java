package dev.mobridge.agent.core;

/** Called by a backend (from any thread) when the UI may have changed. Must return quickly. */
public interface UiEventListener {
    void onUiEvent();
}
