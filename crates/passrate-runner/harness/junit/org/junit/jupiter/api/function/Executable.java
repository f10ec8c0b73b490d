// passrate's JUnit stand-in.
package org.junit.jupiter.api.function;

@FunctionalInterface
public interface Executable {
    void execute() throws Throwable;
}
