package android.os;

import java.io.FileDescriptor;
import java.io.FileInputStream;

public class ParcelFileDescriptor {
    ParcelFileDescriptor() { throw new RuntimeException("Stub!"); }

    public static class AutoCloseInputStream extends FileInputStream {
        public AutoCloseInputStream(ParcelFileDescriptor pfd) {
            super(new FileDescriptor());
            throw new RuntimeException("Stub!");
        }
    }
}
