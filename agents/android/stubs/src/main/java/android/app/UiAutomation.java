package android.app;

import android.accessibilityservice.AccessibilityServiceInfo;
import android.graphics.Bitmap;
import android.os.ParcelFileDescriptor;
import android.view.InputEvent;
import android.view.accessibility.AccessibilityEvent;
import android.view.accessibility.AccessibilityNodeInfo;
import android.view.accessibility.AccessibilityWindowInfo;
import java.util.List;

public final class UiAutomation {
    public static final int FLAG_DONT_SUPPRESS_ACCESSIBILITY_SERVICES = 0x00000001;
    public static final int ROTATION_FREEZE_0 = 0;
    public static final int ROTATION_FREEZE_90 = 1;

    UiAutomation() { throw new RuntimeException("Stub!"); }

    public interface OnAccessibilityEventListener {
        void onAccessibilityEvent(AccessibilityEvent event);
    }

    public void setOnAccessibilityEventListener(UiAutomation.OnAccessibilityEventListener listener) { throw new RuntimeException("Stub!"); }
    public AccessibilityServiceInfo getServiceInfo() { throw new RuntimeException("Stub!"); }
    public void setServiceInfo(AccessibilityServiceInfo info) { throw new RuntimeException("Stub!"); }
    public List<AccessibilityWindowInfo> getWindows() { throw new RuntimeException("Stub!"); }
    public AccessibilityNodeInfo findFocus(int focus) { throw new RuntimeException("Stub!"); }
    public boolean performGlobalAction(int action) { throw new RuntimeException("Stub!"); }
    public boolean injectInputEvent(InputEvent event, boolean sync) { throw new RuntimeException("Stub!"); }
    public Bitmap takeScreenshot() { throw new RuntimeException("Stub!"); }
    public ParcelFileDescriptor executeShellCommand(String command) { throw new RuntimeException("Stub!"); }
    /** Freezes the screen at a rotation (API 18). */
    public boolean setRotation(int rotation) { throw new RuntimeException("Stub!"); }
    /** Added in API 34. */
    public boolean clearCache() { throw new RuntimeException("Stub!"); }
}
