// passrate's warm Java compiler: one JVM in a sandbox slot (uid 1000, seccomp, its own
// cgroup) compiling one request after another with annotation processing off (-proc:none),
// so no code from a source ever runs here. Sources arrive and classes leave in memory.
// Protocol on stdin/stdout, big-endian (DataInput/DataOutput):
//   request:  u32 count, UTF class path ("": the default), then per source: UTF name,
//             u32 length, bytes
//   response: u8 ok (1/0), u32 length + diagnostics bytes, u32 count, then per class:
//             UTF relative path ("pkg/Name.class"), u32 length, bytes
import java.io.*;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.*;
import javax.tools.*;

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

    static final class ClassOut extends SimpleJavaFileObject {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final String path;
        ClassOut(String binaryName) {
            super(URI.create("mem:///" + binaryName.replace('.', '/') + ".class"), Kind.CLASS);
            this.path = binaryName.replace('.', '/') + ".class";
        }
        @Override public OutputStream openOutputStream() { return bytes; }
    }

    public static void main(String[] args) throws Exception {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        StandardJavaFileManager standard = compiler.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8);
        // Set per request on the shared file manager, so one request's class path never
        // stays for the next.
        Iterable<? extends File> defaultClassPath = standard.getLocation(StandardLocation.CLASS_PATH);
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
            standard.setLocation(StandardLocation.CLASS_PATH,
                classPath.isEmpty() ? defaultClassPath : List.of(new File(classPath)));
            List<Source> sources = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                String name = in.readUTF();
                byte[] data = new byte[in.readInt()];
                in.readFully(data);
                sources.add(new Source(name, new String(data, StandardCharsets.UTF_8)));
            }
            List<ClassOut> classes = new ArrayList<>();
            JavaFileManager manager = new ForwardingJavaFileManager<JavaFileManager>(standard) {
                @Override
                public JavaFileObject getJavaFileForOutput(Location location, String className, JavaFileObject.Kind kind, FileObject sibling) {
                    ClassOut c = new ClassOut(className);
                    classes.add(c);
                    return c;
                }
            };
            StringWriter diagnostics = new StringWriter();
            // -XDstringConcat=inline: `a + b` as StringBuilder calls, not invokedynamic, whose
            // first bootstrap costs a short-lived JVM tens of ms (see runtimes.rs).
            List<String> options = List.of("-proc:none", "-nowarn", "-encoding", "UTF-8", "-Xlint:none",
                    "-XDstringConcat=inline");
            boolean ok;
            try {
                ok = compiler.getTask(diagnostics, manager, null, options, null, sources).call();
            } catch (RuntimeException e) {
                ok = false;
                diagnostics.write("javac crashed: " + e);
            }
            byte[] diag = diagnostics.toString().getBytes(StandardCharsets.UTF_8);
            out.writeByte(ok ? 1 : 0);
            out.writeInt(diag.length);
            out.write(diag);
            out.writeInt(ok ? classes.size() : 0);
            if (ok) {
                for (ClassOut c : classes) {
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
