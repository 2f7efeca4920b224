package dev.mobridge.agent.android;

import android.util.Log;
import dev.mobridge.agent.core.AgentLog;

/** Agent diagnostics to logcat under the tag {@code mobridge}. */
final class LogcatLog implements AgentLog {
    static final String TAG = "mobridge";

    @Override
    public void info(String message) {
        Log.i(TAG, message);
    }

    @Override
    public void warn(String message, Throwable error) {
        Log.w(TAG, message, error);
    }
}
