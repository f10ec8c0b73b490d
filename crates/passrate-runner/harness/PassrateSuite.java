// passrate Java suite harness: runs an answer's unit tests inside the sandbox against one
// implementation (the task's reference or one of its faulty variants), compiled beside it.
// Reads the request from fd 3, loads every implementation class, deletes the class and
// source files (the tests cannot read what they test), loads the test classes the host names,
// discovers test methods (static no-argument `test*` methods and `@Test` methods, sorted by
// class then method name), runs each on its own thread under a CPU budget and writes one
// framed result per test to fd 4. It never decides anything: the host reads the frames, in
// order, and a missing one is a failure.

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.lang.annotation.Annotation;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

public final class PassrateSuite {
    private static OutputStream channel;
    private static String nonce;
    private static long seq = 0;
    private static final Runtime RUNTIME = Runtime.getRuntime();

    public static void main(String[] args) {
        try {
            run();
        } catch (Throwable t) {
            try {
                send("{\"harness_error\":" + errorJson(t) + "}");
            } catch (Throwable ignored) {
                // Nothing more can be reported; the host sees the missing frames.
            }
            RUNTIME.halt(1);
        }
        RUNTIME.halt(0);
    }

    /** One discovered test: the method, and whether it needs a fresh instance. */
    private static final class Case {
        final String name;
        final Method method;

        Case(String name, Method method) {
            this.name = name;
            this.method = method;
        }
    }

    /** The outcome of one test, filled by its thread. */
    private static final class Slot {
        volatile Throwable error;
        volatile boolean finished;
        /** The test's CPU in ns, measured by its own thread around the call; -1: not measured. */
        volatile long cpuNs = -1;
        /** The test thread's clock for the watcher's budget checks (null: none, see `opened`). */
        volatile Clock watch;
        /** The test thread has tried to open its clocks (`watch` is then final). */
        volatile boolean opened;
    }

    // No lambdas or method references in this harness: the first invokedynamic of a JVM links
    // LambdaMetafactory and spins its classes, ~8 ms of CPU per suite run whose tests use none.
    private static final Comparator<File> BY_FILE_NAME = new Comparator<File>() {
        @Override
        public int compare(File a, File b) {
            return a.getName().compareTo(b.getName());
        }
    };
    private static final Comparator<Method> BY_METHOD_NAME = new Comparator<Method>() {
        @Override
        public int compare(Method a, Method b) {
            return a.getName().compareTo(b.getName());
        }
    };

    /** Only when schedstat cannot be read: java.lang.management costs ~15 ms of CPU to start. */
    private static ThreadMXBean threads;

    /**
     * The CPU clock of the thread that opened it: its `/proc/thread-self/schedstat`, which
     * stays bound to that thread whoever reads it. Its first field is the thread's
     * sum_exec_runtime (what ThreadMXBean's thread CPU time reads, CLOCK_THREAD_CPUTIME_ID),
     * which the kernel brings up to date at scheduler events (ticks: up to 4 ms late at
     * HZ=250) and when the thread itself reads its process's `/proc/self/stat`
     * (thread_group_cputime runs task_sched_runtime on the caller), as PassrateHarness.cpuNow
     * does. So the test thread reads its own, exact, figure; the watcher's readings of a
     * running test lag by at most a tick, within its 5 ms polling. One instance per reading
     * thread: a RandomAccessFile's position is not shared safely.
     */
    private static final class Clock {
        final RandomAccessFile schedstat;
        final RandomAccessFile processStat;
        final byte[] buf = new byte[64];
        final byte[] statBuf = new byte[1024];

        Clock(boolean own) throws IOException {
            schedstat = new RandomAccessFile("/proc/thread-self/schedstat", "r");
            processStat = own ? new RandomAccessFile("/proc/self/stat", "r") : null;
        }

        /** The opening thread's CPU in ns, or -1 when schedstat does not parse. */
        long nanos() throws IOException {
            if (processStat != null) {
                processStat.seek(0);
                processStat.read(statBuf);
            }
            schedstat.seek(0);
            int n = schedstat.read(buf);
            long v = 0;
            int i = 0;
            for (; i < n && i < 20 && buf[i] >= '0' && buf[i] <= '9'; i++) {
                v = v * 10 + (buf[i] - '0');
            }
            return i > 0 && i < n && buf[i] == ' ' ? v : -1;
        }

        void close() {
            try {
                schedstat.close();
                if (processStat != null) {
                    processStat.close();
                }
            } catch (IOException ignored) {
                // Read-only /proc files: nothing to lose.
            }
        }
    }

    /** Opens this thread's clock (`own`: read by this thread), or null when unusable. */
    private static Clock openClock(boolean own) {
        Clock c = null;
        try {
            c = new Clock(own);
            if (c.nanos() >= 0) {
                return c;
            }
        } catch (Throwable e) {
            // Fall back to ThreadMXBean.
        }
        if (c != null) {
            c.close();
        }
        return null;
    }

    @SuppressWarnings("unchecked")
    private static void run() throws Exception {
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        try (InputStream in = new FileInputStream("/proc/self/fd/3")) {
            byte[] chunk = new byte[1 << 16];
            for (int n; (n = in.read(chunk)) > 0; ) {
                request.write(chunk, 0, n);
            }
        }
        channel = new FileOutputStream("/proc/self/fd/4");
        Map<String, Object> req = (Map<String, Object>) new PassrateHarnessJson(
            new String(request.toByteArray(), StandardCharsets.UTF_8)).parse();
        nonce = (String) req.get("nonce");
        long budgetNs = ((Number) req.get("test_cpu_ms")).longValue() * 1_000_000L;
        List<Object> testClassNames = (List<Object>) req.get("test_classes");
        send("{\"hello\":{\"runtime\":" + quote("java " + System.getProperty("java.version")) + "}}");

        ClassLoader loader = PassrateSuite.class.getClassLoader();
        // Plain `assert` statements in the tests must fail when false, as under `java -ea`.
        loader.setDefaultAssertionStatus(true);
        Set<String> testOuter = new HashSet<>();
        for (Object o : testClassNames) {
            testOuter.add((String) o);
        }
        // Every class file that is neither the harness, the JUnit stand-in nor a test class
        // belongs to the implementation: load it now, then delete it with every source file,
        // so the same names and no readable code remain whichever implementation this is.
        File dir = new File(".");
        File[] listing = dir.listFiles();
        if (listing == null) {
            listing = new File[0];
        }
        Arrays.sort(listing, BY_FILE_NAME);
        String className = (String) req.get("class");
        String entry = (String) req.get("entry");
        List<File> implementation = new ArrayList<>();
        try {
            for (File f : listing) {
                String name = f.getName();
                if (!name.endsWith(".class")) {
                    continue;
                }
                String binary = name.substring(0, name.length() - 6);
                String outer = binary.contains("$") ? binary.substring(0, binary.indexOf('$')) : binary;
                if (outer.equals("PassrateSuite") || outer.equals("PassrateHarnessJson") || testOuter.contains(outer)) {
                    continue;
                }
                Class.forName(binary, false, loader);
                implementation.add(f);
            }
            Class<?> cls = Class.forName(className, true, loader);
            boolean anyEntry = false;
            for (Method m : cls.getDeclaredMethods()) {
                anyEntry |= m.getName().equals(entry);
            }
            if (!anyEntry) {
                send("{\"load_error\":{\"kind\":\"MissingEntryPoint\",\"message\":" + quote(className + "." + entry) + "}}");
                return;
            }
        } catch (ClassNotFoundException e) {
            send("{\"load_error\":{\"kind\":\"MissingEntryPoint\",\"message\":" + quote(className) + "}}");
            return;
        } catch (ExceptionInInitializerError e) {
            send("{\"load_error\":" + errorJson(e.getCause() != null ? e.getCause() : e) + "}");
            return;
        } catch (Throwable e) {
            send("{\"load_error\":" + errorJson(e) + "}");
            return;
        }
        for (File f : implementation) {
            f.delete();
        }
        for (File f : listing) {
            if (f.getName().endsWith(".java")) {
                f.delete();
            }
        }
        send("{\"loaded\":null}");

        List<Case> cases = new ArrayList<>();
        try {
            List<String> sorted = new ArrayList<>(testOuter);
            sorted.sort(null);
            for (String name : sorted) {
                Class<?> tc = Class.forName(name, true, loader);
                Method[] methods = tc.getDeclaredMethods();
                Arrays.sort(methods, BY_METHOD_NAME);
                for (Method m : methods) {
                    if (isTest(m)) {
                        cases.add(new Case(tc.getSimpleName() + "." + m.getName(), m));
                    }
                }
            }
        } catch (ExceptionInInitializerError e) {
            send("{\"suite_error\":" + errorJson(e.getCause() != null ? e.getCause() : e) + "}");
            return;
        } catch (Throwable e) {
            send("{\"suite_error\":" + errorJson(e) + "}");
            return;
        }
        StringBuilder names = new StringBuilder("{\"suite\":[");
        for (int i = 0; i < cases.size(); i++) {
            if (i > 0) {
                names.append(',');
            }
            names.append(quote(cases.get(i).name));
        }
        send(names.append("]}").toString());

        for (int i = 0; i < cases.size(); i++) {
            Case c = cases.get(i);
            Slot slot = new Slot();
            Thread t = new Thread(null, new Runnable() {
              @Override
              public void run() {
                // The test's CPU, read by this thread before and after the call: exact (see
                // Clock). Opened here, so the figure excludes the thread's start.
                Clock own = openClock(true);
                slot.watch = own == null ? null : openClock(false);
                slot.opened = true;
                long t0 = -1;
                try {
                    t0 = own != null ? own.nanos() : -1;
                } catch (Throwable e) {
                    t0 = -1;
                }
                try {
                    invoke(c.method);
                } catch (Throwable e) {
                    slot.error = e;
                }
                try {
                    long t1 = own != null && t0 >= 0 ? own.nanos() : -1;
                    if (t1 >= t0 && t0 >= 0) {
                        slot.cpuNs = t1 - t0;
                    }
                } catch (Throwable e) {
                    // Not measured: the watcher's reading stands.
                }
                if (own != null) {
                    own.close();
                }
                slot.finished = true;
              }
            }, "passrate-test", 64L << 20);
            t.setDaemon(true);
            t.start();
            long cpu = 0;
            boolean timedOut = false;
            while (true) {
                t.join(5);
                if (!t.isAlive()) {
                    break;
                }
                cpu = threadCpu(t, slot);
                if (cpu > budgetNs) {
                    timedOut = true;
                    break;
                }
            }
            if (!timedOut && slot.cpuNs >= 0) {
                cpu = slot.cpuNs;
            }
            Clock watch = slot.watch;
            if (watch != null) {
                watch.close();
            }
            long us = Math.max(0, cpu) / 1000;
            if (timedOut) {
                // The thread cannot be stopped safely: report, and leave the rest not run.
                send("{\"case\":" + i + ",\"error\":{\"kind\":\"TestTimeout\",\"message\":\"the test used more than its CPU budget\"},\"cpu_us\":" + us + "}");
                RUNTIME.halt(0);
            }
            if (!slot.finished && slot.error == null) {
                send("{\"case\":" + i + ",\"error\":{\"kind\":\"ThreadDeath\",\"message\":\"the test's thread ended abnormally\"},\"cpu_us\":" + us + "}");
            } else if (slot.error == null) {
                send("{\"case\":" + i + ",\"ok\":null,\"cpu_us\":" + us + "}");
            } else {
                send("{\"case\":" + i + ",\"error\":" + errorJson(slot.error) + ",\"cpu_us\":" + us + "}");
            }
        }
        send("{\"done\":null}");
    }

    /**
     * A running test thread's CPU in ns, for its budget: from its own schedstat (opened by it,
     * see Clock), or ThreadMXBean when that cannot be read; 0 before the thread has tried to
     * open it (its start is not the test's).
     */
    private static long threadCpu(Thread t, Slot slot) {
        try {
            Clock watch = slot.watch;
            if (watch != null) {
                return Math.max(0, watch.nanos());
            }
            if (!slot.opened) {
                return 0;
            }
            if (threads == null) {
                threads = ManagementFactory.getThreadMXBean();
            }
            return threads.getThreadCpuTime(t.getId());
        } catch (Throwable e) {
            return 0;
        }
    }

    private static boolean isTest(Method m) {
        if (m.isSynthetic() || m.isBridge() || m.getParameterCount() != 0) {
            return false;
        }
        for (Annotation a : m.getDeclaredAnnotations()) {
            if (a.annotationType().getSimpleName().equals("Test")) {
                return true;
            }
        }
        return Modifier.isStatic(m.getModifiers()) && m.getName().startsWith("test");
    }

    /** Runs one test: static, or on a fresh instance (JUnit's rule), unwrapping reflection. */
    private static void invoke(Method m) throws Throwable {
        m.setAccessible(true);
        Object self = null;
        if (!Modifier.isStatic(m.getModifiers())) {
            Constructor<?> ctor = m.getDeclaringClass().getDeclaredConstructor();
            ctor.setAccessible(true);
            try {
                self = ctor.newInstance();
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
        try {
            m.invoke(self);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }

    private static String errorJson(Throwable e) {
        if (e == null) {
            return "{\"kind\":\"Throwable\",\"message\":\"\"}";
        }
        Class<?> c = e.getClass();
        String kind = c.getName().startsWith("java.") ? c.getSimpleName() : c.getName();
        String message;
        try {
            message = e.getMessage();
            if (message == null) {
                message = "";
            }
        } catch (Throwable t) {
            message = "<unprintable>";
        }
        if (message.isEmpty()) {
            // A bare `assert` has no message: name the line of the tests that failed.
            for (StackTraceElement el : e.getStackTrace()) {
                String file = el.getFileName();
                if (file != null && !file.equals("PassrateSuite.java") && !file.equals("Assert.java")
                        && !file.equals("Assertions.java") && !file.equals("Solution.java")) {
                    message = "at " + file + ":" + el.getLineNumber() + " (" + el.getMethodName() + ")";
                    break;
                }
            }
        }
        if (message.length() > 1000) {
            message = message.substring(0, 1000) + "...";
        }
        return "{\"kind\":" + quote(kind) + ",\"message\":" + quote(message) + "}";
    }

    private static void send(String payload) throws Exception {
        byte[] data = payload.getBytes(StandardCharsets.UTF_8);
        byte[] head = ("PASSRATE " + nonce + " " + seq + " " + data.length + "\n").getBytes(StandardCharsets.US_ASCII);
        seq++;
        ByteArrayOutputStream buf = new ByteArrayOutputStream(head.length + data.length + 1);
        buf.write(head);
        buf.write(data);
        buf.write('\n');
        channel.write(buf.toByteArray());
        channel.flush();
    }
}

/** A small JSON reader for the request: objects, arrays, strings, numbers, literals. */
final class PassrateHarnessJson {
    private final String s;
    private int i = 0;

    PassrateHarnessJson(String s) {
        this.s = s;
    }

    Object parse() {
        Object v = value();
        ws();
        if (i != s.length()) {
            throw new IllegalArgumentException("trailing data at " + i);
        }
        return v;
    }

    private void ws() {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
    }

    private Object value() {
        ws();
        char c = s.charAt(i);
        switch (c) {
            case '{': {
                i++;
                Map<String, Object> m = new LinkedHashMap<>();
                ws();
                if (s.charAt(i) == '}') {
                    i++;
                    return m;
                }
                while (true) {
                    ws();
                    String k = string();
                    ws();
                    expect(':');
                    m.put(k, value());
                    ws();
                    if (s.charAt(i) == ',') {
                        i++;
                    } else {
                        expect('}');
                        return m;
                    }
                }
            }
            case '[': {
                i++;
                List<Object> l = new ArrayList<>();
                ws();
                if (s.charAt(i) == ']') {
                    i++;
                    return l;
                }
                while (true) {
                    l.add(value());
                    ws();
                    if (s.charAt(i) == ',') {
                        i++;
                    } else {
                        expect(']');
                        return l;
                    }
                }
            }
            case '"':
                return string();
            case 't':
                literal("true");
                return Boolean.TRUE;
            case 'f':
                literal("false");
                return Boolean.FALSE;
            case 'n':
                literal("null");
                return null;
            default: {
                int start = i;
                while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                    i++;
                }
                return Double.parseDouble(s.substring(start, i));
            }
        }
    }

    private void expect(char c) {
        if (s.charAt(i) != c) {
            throw new IllegalArgumentException("expected " + c + " at " + i);
        }
        i++;
    }

    private void literal(String word) {
        if (!s.startsWith(word, i)) {
            throw new IllegalArgumentException("bad literal at " + i);
        }
        i += word.length();
    }

    private String string() {
        expect('"');
        StringBuilder sb = new StringBuilder();
        while (true) {
            char c = s.charAt(i++);
            if (c == '"') {
                return sb.toString();
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            char e = s.charAt(i++);
            switch (e) {
                case 'n': sb.append('\n'); break;
                case 't': sb.append('\t'); break;
                case 'r': sb.append('\r'); break;
                case 'b': sb.append('\b'); break;
                case 'f': sb.append('\f'); break;
                case 'u':
                    sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                    i += 4;
                    break;
                default: sb.append(e);
            }
        }
    }
}
