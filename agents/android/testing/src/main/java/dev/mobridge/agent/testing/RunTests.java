package dev.mobridge.agent.testing;

import java.util.ArrayList;
import java.util.List;
import org.junit.runner.JUnitCore;
import org.junit.runner.Result;
import org.junit.runner.notification.Failure;

/**
 * Runs the JUnit 4 classes named on the command line and ends with the one summary line
 * {@code N passed, M failed} (plus skipped when any); exits 1 on any failure or when nothing ran.
 */
public final class RunTests {
    private RunTests() {}

    public static void main(String[] args) throws ClassNotFoundException {
        List<Class<?>> classes = new ArrayList<>();
        for (String name : args) {
            classes.add(Class.forName(name));
        }
        JUnitCore core = new JUnitCore();
        Result result = core.run(classes.toArray(new Class<?>[0]));
        for (Failure f : result.getFailures()) {
            System.out.println("FAILED " + f.getTestHeader());
            // The trace down to the test method; JUnit's own frames add nothing.
            for (String line : f.getTrace().split("\n")) {
                if (line.contains("org.junit.") || line.contains("jdk.internal.reflect")
                        || line.contains("java.lang.reflect.Method")) {
                    continue;
                }
                System.out.println(line);
            }
        }
        int failed = result.getFailureCount();
        int skipped = result.getIgnoreCount() + result.getAssumptionFailureCount();
        int passed = result.getRunCount() - failed - result.getAssumptionFailureCount();
        System.out.println("java: " + result.getRunCount() + " tests in " + classes.size()
                + " classes, " + result.getRunTime() + " ms");
        System.out.println(passed + " passed, " + failed + " failed"
                + (skipped > 0 ? ", " + skipped + " skipped" : ""));
        System.exit(failed == 0 && result.getRunCount() > 0 ? 0 : 1);
    }
}
