// passrate's warm Java compiler: one JVM in a sandbox slot (uid 2000, the sandbox's
// COMPILER_UID, never the candidate's 1000; seccomp, its own cgroup) compiling one request
// after another with annotation processing off (-proc:none),
// so no code from a source ever runs here. Sources arrive and classes leave in memory.
// Protocol on stdin/stdout, big-endian (DataInput/DataOutput):
//   request:  u32 count, UTF class path ("": the default), u32 most class files, u32 longest
//             file name (bytes), u32 most class bytes in all, then per source: UTF name,
//             u32 length, bytes
//   response: u8 ok (1/0), u8 reused (1: compiled in a reused context), u8 spent (1: javac
//             crashed or ran out of memory; replace the JVM), u32 length + diagnostics bytes, u32 count,
//             then per class: UTF relative path ("pkg/Name.class"), u32 length, bytes
//
// The class files go into the run's size- and inode-capped work dir: the bounds make a
// compilation that would not fit there a compile error (javac reports the IOException the
// output manager throws as "error while writing"), never a failure to write them later.
// Running out of heap (or any javac crash) is the candidate's compile error too; the JVM is
// then replaced.
//
// Compiler state is reused (JDK-internal JavacTaskPool, as JShell does) only under checks;
// the argument is in passrate-sandbox/AGENTS.md ("Warm javac reuse"). In short: a request
// compiles in a pooled context only if that context's symbol table holds nothing any source
// entered; the context goes back to the pool only after an error-free compilation of
// sources without a package declaration, with every class it generated removed from the
// symbol table; anything else (errors, a crash, an exception, a dirty table) drops the
// context, and a dirty table or a crash means the request is compiled again by a fresh task.
// Argument "fresh": every request by a fresh task, as before reuse (tests compare the two).
import java.io.*;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.*;
import javax.tools.*;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.util.TaskEvent;
import com.sun.source.util.TaskListener;
import com.sun.tools.javac.api.BasicJavacTask;
import com.sun.tools.javac.api.JavacTaskImpl;
import com.sun.tools.javac.api.JavacTaskPool;
import com.sun.tools.javac.code.Symbol;
import com.sun.tools.javac.code.Symtab;
import com.sun.tools.javac.main.Main;
import com.sun.tools.javac.util.Context;
import com.sun.tools.javac.util.Log;

public final class JavacServer {
    static final class Source extends SimpleJavaFileObject {
        final String text;
        Source(String name, String text) {
            super(URI.create("string:///" + name), Kind.SOURCE);
            this.text = text;
        }
        @Override public CharSequence getCharContent(boolean ignore) { return text; }
        // Diagnostics then read "Name.java:3: error: ...", as from the javac command.
        @Override public String getName() { return uri.getPath().substring(1); }
    }

    /** The bounds of one request's output, and what it has produced so far. */
    static final class Bounds {
        final int files, nameBytes;
        final long bytes;
        int filesSoFar;
        long bytesSoFar;
        Bounds(int files, int nameBytes, long bytes) {
            this.files = files;
            this.nameBytes = nameBytes;
            this.bytes = bytes;
        }
        /** A new class file, or an IOException naming the bound it breaks. */
        ClassOut open(String binaryName) throws IOException {
            ClassOut c = new ClassOut(binaryName, this);
            String file = c.path.substring(c.path.lastIndexOf('/') + 1);
            int length = file.getBytes(StandardCharsets.UTF_8).length;
            if (length > nameBytes) {
                throw new IOException("class file name of " + length + " bytes, over the limit of " + nameBytes);
            }
            if (++filesSoFar > files) {
                throw new IOException("more than " + files + " class files");
            }
            return c;
        }
    }

    static final class ClassOut extends SimpleJavaFileObject {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final String path;
        final Bounds bounds;
        ClassOut(String binaryName, Bounds bounds) {
            super(URI.create("mem:///" + binaryName.replace('.', '/') + ".class"), Kind.CLASS);
            this.path = binaryName.replace('.', '/') + ".class";
            this.bounds = bounds;
        }
        @Override public OutputStream openOutputStream() {
            return new OutputStream() {
                @Override public void write(int b) throws IOException {
                    write(new byte[] {(byte) b}, 0, 1);
                }
                @Override public void write(byte[] b, int off, int len) throws IOException {
                    if (bounds.bytesSoFar + len > bounds.bytes) {
                        throw new IOException("class files over the limit of " + bounds.bytes + " bytes in all");
                    }
                    bounds.bytesSoFar += len;
                    bytes.write(b, off, len);
                }
            };
        }
    }

    // -XDstringConcat=inline: `a + b` as StringBuilder calls, not invokedynamic, whose
    // first bootstrap costs a short-lived JVM tens of ms (see runtimes.rs).
    static final List<String> OPTIONS = List.of("-proc:none", "-nowarn", "-encoding", "UTF-8", "-Xlint:none",
            "-XDstringConcat=inline");

    record Outcome(boolean ok, String diagnostics, List<ClassOut> classes, boolean reused, boolean spent) {
        Outcome(boolean ok, String diagnostics, List<ClassOut> classes, boolean reused) {
            this(ok, diagnostics, classes, reused, false);
        }
    }

    static Outcome outOfMemory(OutOfMemoryError e) {
        return new Outcome(false, "javac ran out of memory: " + e, List.of(), false, true);
    }

    /** Thrown by a pooled task's worker: the pool then drops the context. */
    static final class Drop extends RuntimeException {
        final Outcome kept;
        Drop(Outcome kept) { super(null, null, false, false); this.kept = kept; }
    }

    /**
     * Pooled contexts for the empty class path. Its file managers are fixed for the contexts' life:
     * javac's singletons (ClassWriter, ClassFinder) keep the manager of the context's first task,
     * and its packages keep what the class path listed. Output goes to the current request's list.
     */
    static final class Lane {
        final StandardJavaFileManager standard;
        final JavacTaskPool pool = new JavacTaskPool(1);
        List<ClassOut> sink = new ArrayList<>();
        Bounds bounds;
        /** The pool holds a context that served an earlier request. */
        boolean used;
        final JavaFileManager manager;
        Lane(JavaCompiler compiler, Iterable<? extends File> classPath) throws IOException {
            standard = compiler.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8);
            standard.setLocation(StandardLocation.CLASS_PATH, classPath);
            manager = new ForwardingJavaFileManager<JavaFileManager>(standard) {
                @Override
                public JavaFileObject getJavaFileForOutput(Location location, String className, JavaFileObject.Kind kind, FileObject sibling) throws IOException {
                    ClassOut c = bounds.open(className);
                    sink.add(c);
                    return c;
                }
            };
        }
    }

    // JDK 17's JavacTaskPool gives a reused Log a diagnostic listener that looks up the task's
    // listener and fails (NullPointerException) when there is none: reset to what a fresh Log
    // has. Null if this JDK has no such field: then every request gets a fresh task.
    static final java.lang.reflect.Field LOG_LISTENER = logListener();

    static java.lang.reflect.Field logListener() {
        try {
            java.lang.reflect.Field f = Log.class.getDeclaredField("diagListener");
            f.setAccessible(true);
            return f;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /**
     * True if no class entered from a source (of any earlier request) is left in the table.
     * A class read from a class file has its class file set (ClassReader also sets its source
     * file, from the SourceFile attribute); one entered from a source has a source file and no
     * class file, or our source as its file.
     */
    static boolean clean(Symtab syms) {
        for (Symbol.ClassSymbol c : syms.getAllClasses()) {
            if (fromSource(c)) return false;
        }
        Symbol.PackageSymbol unnamed = syms.unnamedModule.unnamedPackage;
        if (unnamed.members_field != null) {
            for (Symbol m : unnamed.members_field.getSymbols()) {
                if (!(m instanceof Symbol.ClassSymbol c) || fromSource(c) || c.classfile == null) return false;
            }
        }
        return true;
    }

    static boolean fromSource(Symbol.ClassSymbol c) {
        if (c.classfile != null && c.classfile.getKind() != JavaFileObject.Kind.CLASS) return true;
        if (c.sourcefile != null && (c.classfile == null || "string".equals(c.sourcefile.toUri().getScheme()))) return true;
        return false;
    }

    /** A pooled compilation, or null: the request must be compiled by a fresh task. */
    static Outcome pooled(Lane lane, List<Source> sources, Bounds bounds) {
        lane.sink = new ArrayList<>();
        lane.bounds = bounds;
        StringWriter diagnostics = new StringWriter();
        boolean reused = lane.used;
        lane.used = true;
        try {
            return lane.pool.getTask(diagnostics, lane.manager, null, OPTIONS, null, sources, t -> {
                Context context = ((BasicJavacTask) t).getContext();
                Symtab syms = Symtab.instance(context);
                if (!clean(syms)) throw new Drop(null);
                try {
                    LOG_LISTENER.set(Log.instance(context), null);
                } catch (IllegalAccessException e) {
                    throw new Drop(null);
                }
                List<CompilationUnitTree> units = new ArrayList<>();
                List<Symbol.ClassSymbol> generated = new ArrayList<>();
                t.addTaskListener(new TaskListener() {
                    @Override public void finished(TaskEvent e) {
                        if (e.getKind() == TaskEvent.Kind.PARSE) units.add(e.getCompilationUnit());
                        if (e.getKind() == TaskEvent.Kind.GENERATE) generated.add((Symbol.ClassSymbol) e.getTypeElement());
                    }
                });
                Main.Result result = ((JavacTaskImpl) t).doCall();
                if (result != Main.Result.OK && result != Main.Result.ERROR) throw new Drop(null);
                Outcome outcome = new Outcome(result == Main.Result.OK, diagnostics.toString(), lane.sink, reused);
                boolean packaged = units.stream().anyMatch(u -> u.getPackage() != null);
                // Errors found in a reused context are confirmed by a fresh compile: were any
                // state left behind, it could only invent errors, and an invented error would be
                // scored against the candidate.
                if (result != Main.Result.OK) throw new Drop(reused ? null : outcome);
                if (packaged) throw new Drop(outcome);
                // The pool removes only the top-level classes it finds in the (by now lowered)
                // trees, and leaves them in their package's scope: remove every class this
                // request generated from both; `clean` checks the result at the next request.
                for (Symbol.ClassSymbol c : generated) {
                    syms.removeClass(c.packge().modle, c.flatname);
                    if (c.owner instanceof Symbol.PackageSymbol p && p.members_field != null) p.members_field.remove(c);
                }
                return outcome;
            });
        } catch (Drop d) {
            lane.used = false;
            return d.kept;
        } catch (OutOfMemoryError e) {
            lane.used = false;
            lane.sink = new ArrayList<>();
            return outOfMemory(e);
        } catch (RuntimeException | LinkageError e) {
            lane.used = false;
            return null;
        }
    }

    static Outcome fresh(JavaCompiler compiler, StandardJavaFileManager standard, List<Source> sources, Bounds bounds) {
        List<ClassOut> classes = new ArrayList<>();
        JavaFileManager manager = new ForwardingJavaFileManager<JavaFileManager>(standard) {
            @Override
            public JavaFileObject getJavaFileForOutput(Location location, String className, JavaFileObject.Kind kind, FileObject sibling) throws IOException {
                ClassOut c = bounds.open(className);
                classes.add(c);
                return c;
            }
        };
        StringWriter diagnostics = new StringWriter();
        Main.Result result;
        try {
            result = ((JavacTaskImpl) compiler.getTask(diagnostics, manager, null, OPTIONS, null, sources)).doCall();
        } catch (OutOfMemoryError e) {
            classes.clear();
            return outOfMemory(e);
        } catch (RuntimeException e) {
            return new Outcome(false, e.toString(), List.of(), false, true);
        }
        // javac reports its own crashes (an OutOfMemoryError among them) as ABNORMAL or
        // SYSERR after catching them: the candidate's compile error, and a JVM not to trust
        // with the next request.
        boolean crashed = result != Main.Result.OK && result != Main.Result.ERROR;
        return new Outcome(result == Main.Result.OK, diagnostics.toString(), classes, false, crashed);
    }

    public static void main(String[] args) throws Exception {
        boolean reuse = LOG_LISTENER != null && !(args.length > 0 && args[0].equals("fresh"));
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        StandardJavaFileManager standard = compiler.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8);
        // Set per request on the shared file manager, so one request's class path never
        // stays for the next.
        Iterable<? extends File> defaultClassPath = standard.getLocation(StandardLocation.CLASS_PATH);
        // Only the empty class path is pooled: a candidate class named like a class of a class
        // path (the harness JAR's, in the unnamed package) takes over its symbol, and removing
        // it afterwards would hide that class from later compilations.
        Lane lane = null;
        DataInputStream in = new DataInputStream(new BufferedInputStream(System.in));
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(System.out));
        // Ready: start-up (including compiling this file) is not billed to a compilation.
        out.writeByte(42);
        out.flush();
        while (true) {
            int count;
            try {
                count = in.readInt();
            } catch (EOFException e) {
                return;
            }
            String classPath = in.readUTF();
            int maxFiles = in.readInt();
            int maxName = in.readInt();
            long maxBytes = in.readInt() & 0xffffffffL;
            Iterable<? extends File> path = classPath.isEmpty() ? defaultClassPath : List.of(new File(classPath));
            standard.setLocation(StandardLocation.CLASS_PATH, path);
            List<Source> sources = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                String name = in.readUTF();
                byte[] data = new byte[in.readInt()];
                in.readFully(data);
                sources.add(new Source(name, new String(data, StandardCharsets.UTF_8)));
            }
            Outcome outcome = null;
            if (reuse && classPath.isEmpty()) {
                if (lane == null) {
                    try {
                        lane = new Lane(compiler, path);
                    } catch (IOException e) {
                        lane = null;
                    }
                }
                if (lane != null) outcome = pooled(lane, sources, new Bounds(maxFiles, maxName, maxBytes));
            }
            if (outcome == null) outcome = fresh(compiler, standard, sources, new Bounds(maxFiles, maxName, maxBytes));
            boolean ok = outcome.ok();
            byte[] diag = outcome.diagnostics().getBytes(StandardCharsets.UTF_8);
            out.writeByte(ok ? 1 : 0);
            out.writeByte(outcome.reused() ? 1 : 0);
            out.writeByte(outcome.spent() ? 1 : 0);
            out.writeInt(diag.length);
            out.write(diag);
            out.writeInt(ok ? outcome.classes().size() : 0);
            if (ok) {
                for (ClassOut c : outcome.classes()) {
                    byte[] b = c.bytes.toByteArray();
                    out.writeUTF(c.path);
                    out.writeInt(b.length);
                    out.write(b);
                }
            }
            out.flush();
        }
    }
}
