# passrate Python suite harness: runs an answer's unit tests inside the sandbox against one
# implementation (the task's reference or one of its faulty variants). Reads the request from
# fd 3, loads the implementation as module `solution` (file solution.py, deleted once loaded),
# loads the tests with the implementation's public names bound, discovers test functions in
# definition order (`@pytest.mark.parametrize` cases in order after their function; then
# classes: unittest.TestCase and pytest-style `Test*` methods, sorted by name), runs
# each under a CPU budget and writes one framed result per test to fd 4. It never decides
# anything: the host reads the frames, in order, and a missing one is a failure.
import sys, os, json, time, builtins, types, signal, random, linecache


def _pytest_standin():
    import math

    pytest = types.ModuleType("pytest")

    class _Raises:
        def __init__(self, expected, match=None):
            self.expected, self.match, self.value = expected, match, None

        def __enter__(self):
            return self

        def __exit__(self, kind, value, tb):
            if kind is None:
                raise AssertionError("DID NOT RAISE %r" % (self.expected,))
            if not issubclass(kind, self.expected):
                return False
            if self.match is not None:
                import re

                if not re.search(self.match, str(value)):
                    raise AssertionError("pattern %r not found in %r" % (self.match, str(value)))
            self.value = value
            return True

    def raises(expected, *args, match=None, **kwargs):
        if args:
            with _Raises(expected, match):
                args[0](*args[1:], **kwargs)
            return None
        return _Raises(expected, match)

    class _Approx:
        def __init__(self, expected, rel=None, abs=None):
            self.expected, self.rel, self.abs = expected, rel, abs

        def _close(self, a, b):
            if isinstance(b, (list, tuple)):
                return isinstance(a, (list, tuple)) and len(a) == len(b) and all(
                    self._close(x, y) for x, y in zip(a, b))
            if isinstance(b, dict):
                return isinstance(a, dict) and a.keys() == b.keys() and all(
                    self._close(a[k], b[k]) for k in b)
            rel = 1e-6 if self.rel is None and self.abs is None else (self.rel or 0)
            tol = max(rel * abs(b), self.abs if self.abs is not None else 1e-12)
            try:
                return a == b or math.isclose(a, b, rel_tol=0, abs_tol=tol)
            except TypeError:
                return False

        def __eq__(self, other):
            return self._close(other, self.expected)

        def __repr__(self):
            return "approx(%r)" % (self.expected,)

    def approx(expected, rel=None, abs=None):
        return _Approx(expected, rel, abs)

    class _Mark:
        def parametrize(self, argnames, argvalues, **kwargs):
            if isinstance(argnames, str):
                argnames = [a.strip() for a in argnames.split(",") if a.strip()]

            def wrap(fn):
                fn._passrate_params = [(tuple(argnames), list(argvalues))] + list(
                    getattr(fn, "_passrate_params", []))
                return fn

            return wrap

        def skip(self, *args, **kwargs):
            def wrap(fn):
                fn._passrate_skip = True
                return fn

            if args and callable(args[0]):
                return wrap(args[0])
            return wrap

        def __getattr__(self, name):
            # Other marks (slow, timeout, …) change nothing here.
            def mark(*args, **kwargs):
                if args and callable(args[0]) and not kwargs:
                    return args[0]
                return lambda fn: fn

            return mark

    def fail(msg=""):
        raise AssertionError(msg)

    pytest.raises, pytest.approx, pytest.mark, pytest.fail = raises, approx, _Mark(), fail
    return pytest


def _main():
    # Bound before any code under test runs: later rebinding of builtins or modules cannot
    # reach the harness.
    _write, _read, _close, _unlink, _exit = os.write, os.read, os.close, os.unlink, os._exit
    _memoryview = memoryview
    _type, _len, _str, _isinstance = type, len, str, isinstance
    _quote = json.encoder.encode_basestring_ascii  # C function: cannot be monkeypatched
    _cpu = time.process_time_ns
    _BaseException = BaseException
    _enc_utf8 = str.encode
    _setitimer, _ITIMER_PROF = signal.setitimer, signal.ITIMER_PROF
    _FunctionType = types.FunctionType
    _seed = random.seed
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(0)

    chunks = []
    while True:
        b = _read(3, 1 << 20)
        if not b:
            break
        chunks.append(b)
    _close(3)
    req = json.loads(b"".join(chunks))
    del chunks
    os.set_inheritable(4, False)
    nonce = req["nonce"]
    seq = [0]
    budget_s = req["test_cpu_ms"] / 1000.0

    def send(payload):
        data = _enc_utf8(payload, "utf-8")
        head = _enc_utf8("PASSRATE %s %d %d\n" % (nonce, seq[0], _len(data)), "ascii")
        seq[0] += 1
        # A view: slicing the bytes would copy the rest of the frame after each partial write.
        buf = _memoryview(head + data + b"\n")
        while buf:
            n = _write(4, buf)
            buf = buf[n:]

    def error_json(e, where=""):
        t = _type(e)
        try:
            name = t.__name__ if t.__module__ == "builtins" else t.__module__ + "." + t.__qualname__
        except _BaseException:
            name = "BaseException"
        try:
            msg = _str(e)
            if _type(msg) is not _str:
                msg = ""
        except _BaseException:
            msg = "<unprintable>"
        if not msg and where:
            msg = where
        if _len(msg) > 1000:
            msg = msg[:1000] + "..."
        try:
            _enc_utf8(msg, "utf-8")
        except UnicodeEncodeError:
            msg = "<ill-formed>"
        return '{"kind":' + _quote(name) + ',"message":' + _quote(msg) + "}"

    tests_file = req["tests_file"]

    def failing_line(e):
        # A bare `assert` has no message: name the tests' line that failed instead.
        try:
            tb = e.__traceback__
            line = None
            while tb is not None:
                if tb.tb_frame.f_code.co_filename == tests_file:
                    line = tb.tb_lineno
                tb = tb.tb_next
            if line is None:
                return ""
            text = linecache.getline(tests_file, line).strip()
            return "line %d: %s" % (line, text)
        except _BaseException:
            return ""

    send('{"hello":{"runtime":' + _quote("python " + sys.version.split()[0]) + "}}")

    # The implementation: the same file name, module name and path for the reference and
    # every faulty variant; its source leaves the process's reach once it is compiled.
    impl_file = req["file"]
    module = types.ModuleType("solution")
    module.__file__ = os.path.abspath(impl_file)
    try:
        with open(impl_file, "r", encoding="utf-8") as f:
            code = compile(f.read(), impl_file, "exec")
        _unlink(impl_file)
        linecache.clearcache()
        sys.modules["solution"] = module
        exec(code, module.__dict__)
        del code
        target = req.get("class") or req["entry"]
        if target not in module.__dict__:
            send('{"load_error":{"kind":"MissingEntryPoint","message":' + _quote(target) + "}}")
            _exit(0)
    except _BaseException as e:
        send('{"load_error":' + error_json(e) + "}")
        _exit(0)
    send('{"loaded":null}')

    # pytest is not in the sandbox: a stand-in with what tests commonly use (raises, approx,
    # mark.parametrize, mark.skip). Fixtures are not supported.
    if "pytest" not in sys.modules:
        sys.modules["pytest"] = _pytest_standin()

    # The tests see the implementation's public names (and may `from solution import f`).
    ns = {"__name__": "test_solution", "__file__": os.path.abspath(tests_file), "__builtins__": builtins}
    for k, v in list(module.__dict__.items()):
        if not k.startswith("__"):
            ns[k] = v
    _seed(0)
    try:
        with open(tests_file, "r", encoding="utf-8") as f:
            exec(compile(f.read(), tests_file, "exec"), ns)
    except _BaseException as e:
        send('{"suite_error":' + error_json(e, failing_line(e)) + "}")
        _exit(0)

    names, runs = [], []

    def add_function(name, fn, owner):
        if getattr(fn, "_passrate_skip", False):
            return
        params = getattr(fn, "_passrate_params", None)
        if not params:
            names.append(name)
            runs.append(("fn", fn, owner))
            return
        # Stacked parametrize decorators multiply, as in pytest.
        combos = [{}]
        for argnames, values in params:
            new = []
            for combo in combos:
                for v in values:
                    if _len(argnames) == 1:
                        v = (v,)
                    c = dict(combo)
                    c.update(zip(argnames, v))
                    new.append(c)
            combos = new
        for k, kwargs in enumerate(combos):
            names.append("%s[%d]" % (name, k))
            runs.append(("fn", fn, (owner, kwargs)))

    for name, obj in list(ns.items()):
        if (
            _type(obj) is _FunctionType
            and name.startswith("test")
            and obj.__code__.co_filename == tests_file
        ):
            add_function(name, obj, None)
    unittest = sys.modules.get("unittest")
    classes = sorted(
        (name, obj) for name, obj in list(ns.items())
        if _isinstance(obj, type) and getattr(obj, "__module__", None) == "test_solution"
    )
    for name, obj in classes:
        is_case = unittest is not None and issubclass(obj, unittest.TestCase)
        if is_case:
            try:
                methods = unittest.TestLoader().getTestCaseNames(obj)
            except _BaseException:
                methods = []
            for m in methods:
                names.append(name + "." + m)
                runs.append(("case", obj, m))
        elif name.startswith("Test"):
            for m in sorted(vars(obj)):
                fn = vars(obj)[m]
                if m.startswith("test") and _type(fn) is _FunctionType:
                    add_function(name + "." + m, fn, obj)
    send('{"suite":[' + ",".join(_quote(n) for n in names) + "]}")

    fired = [False]

    class _Budget(_BaseException):
        pass

    def on_budget(signum, frame):
        fired[0] = True
        raise _Budget("the test used more than its CPU budget")

    signal.signal(signal.SIGPROF, on_budget)

    def run_one(kind, obj, method):
        # Returns the error frame body, or None when the test passed.
        if kind == "fn":
            owner, kwargs = method if _type(method) is tuple else (method, {})
            if owner is not None:
                r = obj(owner(), **kwargs)
            else:
                r = obj(**kwargs)
            if _type(r) is types.CoroutineType:
                import asyncio

                asyncio.run(r)
            return None
        case = obj(method)
        result = unittest.TestResult()
        case.run(result)
        problems = list(result.errors) + list(result.failures)
        if result.unexpectedSuccesses:
            return '{"kind":"UnexpectedSuccess","message":' + _quote(method) + "}"
        if problems:
            text = problems[0][1].strip().splitlines()
            last = text[-1] if text else ""
            kind_, _, msg = last.partition(": ")
            kind_ = kind_ if kind_ and " " not in kind_ else "AssertionError"
            return '{"kind":' + _quote(kind_[:200]) + ',"message":' + _quote(msg[:1000]) + "}"
        return None

    for i, (kind, obj, method) in enumerate(runs):
        _seed(0)
        t0 = _cpu()
        err = None
        try:
            _setitimer(_ITIMER_PROF, budget_s)
            try:
                err = run_one(kind, obj, method)
            finally:
                _setitimer(_ITIMER_PROF, 0)
        except _BaseException as e:  # SystemExit and KeyboardInterrupt too
            err = error_json(e, failing_line(e))
        us = (_cpu() - t0) // 1000
        if fired[0]:
            # Whatever the test did with the interruption, it ran out of budget; the rest of
            # the suite is not run (the host counts those tests as not run).
            send('{"case":%d,"error":{"kind":"TestTimeout","message":"the test used more than its CPU budget"},"cpu_us":%d}' % (i, us))
            _exit(0)
        if err is None:
            send('{"case":%d,"ok":null,"cpu_us":%d}' % (i, us))
        else:
            send('{"case":%d,"error":%s,"cpu_us":%d}' % (i, err, us))
    send('{"done":null}')
    # Leave without running atexit handlers or waiting for threads the tests started.
    _exit(0)


_main()
