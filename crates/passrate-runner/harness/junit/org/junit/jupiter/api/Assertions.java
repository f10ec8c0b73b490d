// passrate's JUnit stand-in (no JUnit in the sandbox): the assertions answers use.
package org.junit.jupiter.api;

public final class Assertions {
    private Assertions() {}

    public static void assertEquals(Object expected, Object actual) {
        if (!eq(expected, actual)) fail(format(null, expected, actual));
    }

    public static void assertEquals(Object expected, Object actual, String message) {
        if (!eq(expected, actual)) fail(format(message, expected, actual));
    }

    public static void assertNotEquals(Object unexpected, Object actual) {
        if (eq(unexpected, actual)) fail("expected: not equal but was: <" + show(actual) + ">");
    }

    public static void assertNotEquals(Object unexpected, Object actual, String message) {
        if (eq(unexpected, actual)) fail((message == null ? "" : message + " ==> ") + "expected: not equal but was: <" + show(actual) + ">");
    }

    public static void assertEquals(long expected, long actual) {
        if (expected != actual) fail(format(null, expected, actual));
    }

    public static void assertEquals(long expected, long actual, String message) {
        if (expected != actual) fail(format(message, expected, actual));
    }

    public static void assertNotEquals(long unexpected, long actual) {
        if (unexpected == actual) fail("expected: not equal but was: <" + actual + ">");
    }

    public static void assertNotEquals(long unexpected, long actual, String message) {
        if (unexpected == actual) fail((message == null ? "" : message + " ==> ") + "expected: not equal but was: <" + actual + ">");
    }

    public static void assertEquals(double expected, double actual) {
        if (!(Double.compare(expected, actual) == 0)) fail(format(null, expected, actual));
    }

    public static void assertEquals(double expected, double actual, String message) {
        if (!(Double.compare(expected, actual) == 0)) fail(format(message, expected, actual));
    }

    public static void assertNotEquals(double unexpected, double actual) {
        if (unexpected == actual) fail("expected: not equal but was: <" + actual + ">");
    }

    public static void assertNotEquals(double unexpected, double actual, String message) {
        if (unexpected == actual) fail((message == null ? "" : message + " ==> ") + "expected: not equal but was: <" + actual + ">");
    }

    public static void assertEquals(float expected, float actual) {
        if (!(Float.compare(expected, actual) == 0)) fail(format(null, expected, actual));
    }

    public static void assertEquals(float expected, float actual, String message) {
        if (!(Float.compare(expected, actual) == 0)) fail(format(message, expected, actual));
    }

    public static void assertEquals(char expected, char actual) {
        if (expected != actual) fail(format(null, expected, actual));
    }

    public static void assertEquals(char expected, char actual, String message) {
        if (expected != actual) fail(format(message, expected, actual));
    }

    public static void assertEquals(byte expected, byte actual) {
        if (expected != actual) fail(format(null, expected, actual));
    }

    public static void assertEquals(byte expected, byte actual, String message) {
        if (expected != actual) fail(format(message, expected, actual));
    }

    public static void assertEquals(short expected, short actual) {
        if (expected != actual) fail(format(null, expected, actual));
    }

    public static void assertEquals(short expected, short actual, String message) {
        if (expected != actual) fail(format(message, expected, actual));
    }

    public static void assertEquals(int expected, int actual) {
        if (expected != actual) fail(format(null, expected, actual));
    }

    public static void assertEquals(int expected, int actual, String message) {
        if (expected != actual) fail(format(message, expected, actual));
    }

    public static void assertNotEquals(int unexpected, int actual) {
        if (unexpected == actual) fail("expected: not equal but was: <" + actual + ">");
    }

    public static void assertNotEquals(int unexpected, int actual, String message) {
        if (unexpected == actual) fail((message == null ? "" : message + " ==> ") + "expected: not equal but was: <" + actual + ">");
    }

    public static void assertEquals(boolean expected, boolean actual) {
        if (expected != actual) fail(format(null, expected, actual));
    }

    public static void assertEquals(boolean expected, boolean actual, String message) {
        if (expected != actual) fail(format(message, expected, actual));
    }

    public static void assertEquals(double expected, double actual, double delta) {
        if (!(Math.abs(expected - actual) <= delta) && !(expected == actual)) fail(format(null, expected, actual));
    }

    public static void assertEquals(double expected, double actual, double delta, String message) {
        if (!(Math.abs(expected - actual) <= delta) && !(expected == actual)) fail(format(message, expected, actual));
    }

    public static void assertEquals(float expected, float actual, float delta) {
        if (!(Math.abs(expected - actual) <= delta) && !(expected == actual)) fail(format(null, expected, actual));
    }

    public static void assertEquals(float expected, float actual, float delta, String message) {
        if (!(Math.abs(expected - actual) <= delta) && !(expected == actual)) fail(format(message, expected, actual));
    }

    public static void assertTrue(boolean condition) {
        if (!condition) fail("expected: <true> but was: <false>");
    }

    public static void assertTrue(boolean condition, String message) {
        if (!condition) fail(message == null ? "expected: <true> but was: <false>" : message);
    }

    public static void assertFalse(boolean condition) {
        if (condition) fail("expected: <false> but was: <true>");
    }

    public static void assertFalse(boolean condition, String message) {
        if (condition) fail(message == null ? "expected: <false> but was: <true>" : message);
    }

    public static void assertNull(Object actual) {
        if (actual != null) fail(format(null, null, actual));
    }

    public static void assertNull(Object actual, String message) {
        if (actual != null) fail(format(message, null, actual));
    }

    public static void assertNotNull(Object actual) {
        if (actual == null) fail("expected: not <null>");
    }

    public static void assertNotNull(Object actual, String message) {
        if (actual == null) fail(message == null ? "expected: not <null>" : message);
    }

    public static void assertSame(Object expected, Object actual) {
        if (expected != actual) fail(format(null, expected, actual));
    }

    public static void assertSame(Object expected, Object actual, String message) {
        if (expected != actual) fail(format(message, expected, actual));
    }

    public static void assertNotSame(Object unexpected, Object actual) {
        if (unexpected == actual) fail("expected: not same");
    }

    public static void assertNotSame(Object unexpected, Object actual, String message) {
        if (unexpected == actual) fail(message == null ? "expected: not same" : message);
    }

    public static void assertArrayEquals(Object[] expected, Object[] actual) {
        arrays(null, expected, actual);
    }

    public static void assertArrayEquals(Object[] expected, Object[] actual, String message) {
        arrays(message, expected, actual);
    }

    public static void assertArrayEquals(long[] expected, long[] actual) {
        arrays(null, expected, actual);
    }

    public static void assertArrayEquals(long[] expected, long[] actual, String message) {
        arrays(message, expected, actual);
    }

    public static void assertArrayEquals(int[] expected, int[] actual) {
        arrays(null, expected, actual);
    }

    public static void assertArrayEquals(int[] expected, int[] actual, String message) {
        arrays(message, expected, actual);
    }

    public static void assertArrayEquals(short[] expected, short[] actual) {
        arrays(null, expected, actual);
    }

    public static void assertArrayEquals(short[] expected, short[] actual, String message) {
        arrays(message, expected, actual);
    }

    public static void assertArrayEquals(byte[] expected, byte[] actual) {
        arrays(null, expected, actual);
    }

    public static void assertArrayEquals(byte[] expected, byte[] actual, String message) {
        arrays(message, expected, actual);
    }

    public static void assertArrayEquals(char[] expected, char[] actual) {
        arrays(null, expected, actual);
    }

    public static void assertArrayEquals(char[] expected, char[] actual, String message) {
        arrays(message, expected, actual);
    }

    public static void assertArrayEquals(boolean[] expected, boolean[] actual) {
        arrays(null, expected, actual);
    }

    public static void assertArrayEquals(boolean[] expected, boolean[] actual, String message) {
        arrays(message, expected, actual);
    }

    public static void assertArrayEquals(double[] expected, double[] actual) {
        arrays(null, expected, actual);
    }

    public static void assertArrayEquals(double[] expected, double[] actual, String message) {
        arrays(message, expected, actual);
    }

    public static void assertArrayEquals(float[] expected, float[] actual) {
        arrays(null, expected, actual);
    }

    public static void assertArrayEquals(float[] expected, float[] actual, String message) {
        arrays(message, expected, actual);
    }

    public static void assertIterableEquals(Iterable<?> expected, Iterable<?> actual) {
        java.util.List<Object> a = new java.util.ArrayList<>();
        java.util.List<Object> b = new java.util.ArrayList<>();
        if (expected != null) for (Object o : expected) a.add(o);
        if (actual != null) for (Object o : actual) b.add(o);
        if (!a.equals(b)) fail(format(null, a, b));
    }

    public static void assertIterableEquals(Iterable<?> expected, Iterable<?> actual, String message) {
        java.util.List<Object> a = new java.util.ArrayList<>();
        java.util.List<Object> b = new java.util.ArrayList<>();
        if (expected != null) for (Object o : expected) a.add(o);
        if (actual != null) for (Object o : actual) b.add(o);
        if (!a.equals(b)) fail(format(message, a, b));
    }

    public static void fail(String message) {
        throw new AssertionError(message);
    }

    public static void fail() {
        throw new AssertionError();
    }

    public static <T extends Throwable> T assertThrows(Class<T> expected, org.junit.jupiter.api.function.Executable body) {
        try {
            body.execute();
        } catch (Throwable t) {
            if (expected.isInstance(t)) {
                return expected.cast(t);
            }
            throw new AssertionError("expected " + expected.getName() + " but " + t.getClass().getName() + " was thrown", t);
        }
        throw new AssertionError("expected " + expected.getName() + " to be thrown, but nothing was thrown");
    }

    public static <T extends Throwable> T assertThrows(Class<T> expected, org.junit.jupiter.api.function.Executable body, String message) {
        return assertThrows(expected, body);
    }

    public static void assertDoesNotThrow(org.junit.jupiter.api.function.Executable body) {
        try {
            body.execute();
        } catch (Throwable t) {
            throw new AssertionError("unexpected exception thrown: " + t, t);
        }
    }

    private static String format(String message, Object expected, Object actual) {
        String prefix = message == null || message.isEmpty() ? "" : message + " ==> ";
        return prefix + "expected: <" + show(expected) + "> but was: <" + show(actual) + ">";
    }

    private static String show(Object o) {
        if (o instanceof Object[]) {
            return java.util.Arrays.deepToString((Object[]) o);
        }
        if (o != null && o.getClass().isArray()) {
            StringBuilder sb = new StringBuilder("[");
            int n = java.lang.reflect.Array.getLength(o);
            for (int i = 0; i < n; i++) {
                if (i > 0) {
                    sb.append(", ");
                }
                sb.append(java.lang.reflect.Array.get(o, i));
            }
            return sb.append("]").toString();
        }
        return String.valueOf(o);
    }

    private static boolean eq(Object a, Object b) {
        if (a == b) {
            return true;
        }
        if (a == null || b == null) {
            return false;
        }
        if (a.getClass().isArray() && b.getClass().isArray()) {
            return java.util.Objects.deepEquals(a, b);
        }
        return a.equals(b);
    }

    private static void arrays(String message, Object expected, Object actual) {
        if (!java.util.Objects.deepEquals(expected, actual)) {
            fail(format(message, expected, actual));
        }
    }
}
