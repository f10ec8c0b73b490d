// passrate's JUnit stand-in (no JUnit in the sandbox): JUnit 4's assertions, message first,
// over the JUnit 5 ones in org.junit.jupiter.api.Assertions (one implementation, same
// failure messages).
package org.junit;

import org.junit.jupiter.api.Assertions;

public final class Assert {
    private Assert() {}

    public static void assertEquals(Object expected, Object actual) {
        Assertions.assertEquals(expected, actual);
    }

    public static void assertEquals(String message, Object expected, Object actual) {
        Assertions.assertEquals(expected, actual, message);
    }

    public static void assertNotEquals(Object unexpected, Object actual) {
        Assertions.assertNotEquals(unexpected, actual);
    }

    public static void assertNotEquals(String message, Object unexpected, Object actual) {
        Assertions.assertNotEquals(unexpected, actual, message);
    }

    public static void assertEquals(long expected, long actual) {
        Assertions.assertEquals(expected, actual);
    }

    public static void assertEquals(String message, long expected, long actual) {
        Assertions.assertEquals(expected, actual, message);
    }

    public static void assertNotEquals(long unexpected, long actual) {
        Assertions.assertNotEquals(unexpected, actual);
    }

    public static void assertNotEquals(String message, long unexpected, long actual) {
        Assertions.assertNotEquals(unexpected, actual, message);
    }

    public static void assertEquals(double expected, double actual) {
        Assertions.assertEquals(expected, actual);
    }

    public static void assertEquals(String message, double expected, double actual) {
        Assertions.assertEquals(expected, actual, message);
    }

    public static void assertNotEquals(double unexpected, double actual) {
        Assertions.assertNotEquals(unexpected, actual);
    }

    public static void assertNotEquals(String message, double unexpected, double actual) {
        Assertions.assertNotEquals(unexpected, actual, message);
    }

    public static void assertEquals(float expected, float actual) {
        Assertions.assertEquals(expected, actual);
    }

    public static void assertEquals(String message, float expected, float actual) {
        Assertions.assertEquals(expected, actual, message);
    }

    public static void assertEquals(char expected, char actual) {
        Assertions.assertEquals(expected, actual);
    }

    public static void assertEquals(String message, char expected, char actual) {
        Assertions.assertEquals(expected, actual, message);
    }

    public static void assertEquals(byte expected, byte actual) {
        Assertions.assertEquals(expected, actual);
    }

    public static void assertEquals(String message, byte expected, byte actual) {
        Assertions.assertEquals(expected, actual, message);
    }

    public static void assertEquals(short expected, short actual) {
        Assertions.assertEquals(expected, actual);
    }

    public static void assertEquals(String message, short expected, short actual) {
        Assertions.assertEquals(expected, actual, message);
    }

    public static void assertEquals(int expected, int actual) {
        Assertions.assertEquals(expected, actual);
    }

    public static void assertEquals(String message, int expected, int actual) {
        Assertions.assertEquals(expected, actual, message);
    }

    public static void assertNotEquals(int unexpected, int actual) {
        Assertions.assertNotEquals(unexpected, actual);
    }

    public static void assertNotEquals(String message, int unexpected, int actual) {
        Assertions.assertNotEquals(unexpected, actual, message);
    }

    public static void assertEquals(boolean expected, boolean actual) {
        Assertions.assertEquals(expected, actual);
    }

    public static void assertEquals(String message, boolean expected, boolean actual) {
        Assertions.assertEquals(expected, actual, message);
    }

    public static void assertEquals(double expected, double actual, double delta) {
        Assertions.assertEquals(expected, actual, delta);
    }

    public static void assertEquals(String message, double expected, double actual, double delta) {
        Assertions.assertEquals(expected, actual, delta, message);
    }

    public static void assertEquals(float expected, float actual, float delta) {
        Assertions.assertEquals(expected, actual, delta);
    }

    public static void assertEquals(String message, float expected, float actual, float delta) {
        Assertions.assertEquals(expected, actual, delta, message);
    }

    public static void assertTrue(boolean condition) {
        Assertions.assertTrue(condition);
    }

    public static void assertTrue(String message, boolean condition) {
        Assertions.assertTrue(condition, message);
    }

    public static void assertFalse(boolean condition) {
        Assertions.assertFalse(condition);
    }

    public static void assertFalse(String message, boolean condition) {
        Assertions.assertFalse(condition, message);
    }

    public static void assertNull(Object actual) {
        Assertions.assertNull(actual);
    }

    public static void assertNull(String message, Object actual) {
        Assertions.assertNull(actual, message);
    }

    public static void assertNotNull(Object actual) {
        Assertions.assertNotNull(actual);
    }

    public static void assertNotNull(String message, Object actual) {
        Assertions.assertNotNull(actual, message);
    }

    public static void assertSame(Object expected, Object actual) {
        Assertions.assertSame(expected, actual);
    }

    public static void assertSame(String message, Object expected, Object actual) {
        Assertions.assertSame(expected, actual, message);
    }

    public static void assertNotSame(Object unexpected, Object actual) {
        Assertions.assertNotSame(unexpected, actual);
    }

    public static void assertNotSame(String message, Object unexpected, Object actual) {
        Assertions.assertNotSame(unexpected, actual, message);
    }

    public static void assertArrayEquals(Object[] expected, Object[] actual) {
        Assertions.assertArrayEquals(expected, actual);
    }

    public static void assertArrayEquals(String message, Object[] expected, Object[] actual) {
        Assertions.assertArrayEquals(expected, actual, message);
    }

    public static void assertArrayEquals(long[] expected, long[] actual) {
        Assertions.assertArrayEquals(expected, actual);
    }

    public static void assertArrayEquals(String message, long[] expected, long[] actual) {
        Assertions.assertArrayEquals(expected, actual, message);
    }

    public static void assertArrayEquals(int[] expected, int[] actual) {
        Assertions.assertArrayEquals(expected, actual);
    }

    public static void assertArrayEquals(String message, int[] expected, int[] actual) {
        Assertions.assertArrayEquals(expected, actual, message);
    }

    public static void assertArrayEquals(short[] expected, short[] actual) {
        Assertions.assertArrayEquals(expected, actual);
    }

    public static void assertArrayEquals(String message, short[] expected, short[] actual) {
        Assertions.assertArrayEquals(expected, actual, message);
    }

    public static void assertArrayEquals(byte[] expected, byte[] actual) {
        Assertions.assertArrayEquals(expected, actual);
    }

    public static void assertArrayEquals(String message, byte[] expected, byte[] actual) {
        Assertions.assertArrayEquals(expected, actual, message);
    }

    public static void assertArrayEquals(char[] expected, char[] actual) {
        Assertions.assertArrayEquals(expected, actual);
    }

    public static void assertArrayEquals(String message, char[] expected, char[] actual) {
        Assertions.assertArrayEquals(expected, actual, message);
    }

    public static void assertArrayEquals(boolean[] expected, boolean[] actual) {
        Assertions.assertArrayEquals(expected, actual);
    }

    public static void assertArrayEquals(String message, boolean[] expected, boolean[] actual) {
        Assertions.assertArrayEquals(expected, actual, message);
    }

    public static void assertArrayEquals(double[] expected, double[] actual) {
        Assertions.assertArrayEquals(expected, actual);
    }

    public static void assertArrayEquals(String message, double[] expected, double[] actual) {
        Assertions.assertArrayEquals(expected, actual, message);
    }

    public static void assertArrayEquals(float[] expected, float[] actual) {
        Assertions.assertArrayEquals(expected, actual);
    }

    public static void assertArrayEquals(String message, float[] expected, float[] actual) {
        Assertions.assertArrayEquals(expected, actual, message);
    }

    public static void assertIterableEquals(Iterable<?> expected, Iterable<?> actual) {
        Assertions.assertIterableEquals(expected, actual);
    }

    public static void assertIterableEquals(String message, Iterable<?> expected, Iterable<?> actual) {
        Assertions.assertIterableEquals(expected, actual, message);
    }

    public static void fail(String message) {
        Assertions.fail(message);
    }

    public static void fail() {
        Assertions.fail();
    }

    public static <T extends Throwable> T assertThrows(Class<T> expected, org.junit.function.ThrowingRunnable body) {
        return Assertions.assertThrows(expected, body::run);
    }

    public static <T extends Throwable> T assertThrows(Class<T> expected, org.junit.function.ThrowingRunnable body, String message) {
        return Assertions.assertThrows(expected, body::run, message);
    }
}
