# passrate Python harness: runs inside the sandbox. Reads the request from fd 3, loads the
# candidate, calls it, and writes framed typed results to fd 4. It never compares anything:
# expected values are not here, the host judges.
import sys, os, json, time, traceback, builtins, resource, decimal, signal, _signal


def _prepare():
    # Everything that depends on neither the request nor the candidate, returning `run`, which
    # does the rest. In a warm sandbox slot the fork server runs this once (the harness is the
    # host's trusted bytecode) and each execution's fresh child only calls `run`: nothing a
    # candidate does reaches the fork server's copy. Run as a script, both happen here.
    # Everything the harness needs is bound to locals now, before any candidate code runs, so
    # rebinding builtins, json, os or this module's globals later cannot reach the harness.
    _write, _read, _close = os.write, os.read, os.close
    _open, _O_RDONLY, _dec_utf8 = os.open, os.O_RDONLY | os.O_CLOEXEC, bytes.decode
    _type, _len, _isinstance, _id = type, len, isinstance, id
    _int, _float, _str, _bool, _list, _tuple, _dict = int, float, str, bool, list, tuple, dict
    _set, _frozenset, _none = set, frozenset, type(None)
    _memoryview = memoryview
    _int_repr, _float_repr = int.__repr__, float.__repr__
    _quote = json.encoder.encode_basestring_ascii  # C function: cannot be monkeypatched
    # Not time.process_time: with RLIMIT_CPU set (the sandbox's backstop) the kernel samples
    # the process clock from its CPU timer, updated only at ticks, so short tests read 0.
    # getrusage sums the threads' exact run times (microseconds).
    _getrusage, _RUSAGE_SELF = resource.getrusage, resource.RUSAGE_SELF
    _round = round

    def _cpu():
        r = _getrusage(_RUSAGE_SELF)
        return _int(_round((r[0] + r[1]) * 1e9))

    _BaseException, _Exception = BaseException, Exception
    _drop_traceback = BaseException.__dict__["__traceback__"].__set__
    _enc_utf8 = str.encode
    _join = "".join
    _exit = os._exit
    # Process-wide: set by `run`, so the fork server and other programs keep the default.
    _set_int_max_str_digits = getattr(sys, "set_int_max_str_digits", None)
    _loads, _set_inheritable = json.loads, os.set_inheritable
    # Builtins `run` calls after the candidate loads: it may rebind the builtins module's names.
    _compile, _exec, _enumerate, _getattr, _callable = compile, exec, enumerate, getattr, callable
    _addaudithook, _startswith, _ValueError = sys.addaudithook, str.startswith, ValueError
    _modules_pop = _dict.pop
    _signal_signal, _frozenset_contains = _signal.signal, frozenset.__contains__
    _signal_module, _signal_c_module = signal, _signal

    # The candidate runs in this process, below the harness's frames. Through a frame
    # (sys._getframe, a traceback's tb_frame, a generator's gi_frame, a tracer's or a signal
    # handler's argument) or the garbage collector it would reach the harness's functions,
    # whose closure cells and defaults are writable without any check, and rewrite what gets
    # reported (`outcome`, `encode`, `send`). The audit hook `run` installs before loading
    # the candidate refuses those ways in; audit hooks cannot be removed. ctypes (raw
    # memory) is refused too. Frame requests raise ValueError, what the standard library's
    # callers (namedtuple, typing, enum, logging) already handle as "no caller frame".
    _frame_events = _frozenset((
        "sys._getframe", "sys._current_frames", "sys._current_exceptions",
        "sys.settrace", "sys.setprofile", "sys.addaudithook",
        "gc.get_objects", "gc.get_referrers", "gc.get_referents",
    ))
    _frame_attributes = _frozenset(("tb_frame", "gi_frame", "cr_frame", "ag_frame"))

    def _audit(event, args, _in=_frozenset_contains, _events=_frame_events,
               _attrs=_frame_attributes, _starts=_startswith, _type=_type, _str=_str,
               _error=_ValueError):
        if _in(_events, event):
            raise _error("passrate: %s is not available to candidate code" % event)
        if event == "object.__getattr__":
            name = args[1]
            if _type(name) is _str and _in(_attrs, name):
                raise _error("passrate: %s is not available to candidate code" % name)
        elif _starts(event, "ctypes."):
            raise _error("passrate: ctypes is not available to candidate code")

    def _handler_without_frame(handler):
        # A signal handler is called with the frame that was running: a harness frame.
        def call(signum, frame):
            return handler(signum, None)
        return call

    def _signal_without_frame(signalnum, handler):
        if _callable(handler):
            handler = _handler_without_frame(handler)
        return _signal_signal(signalnum, handler)

    # CPython before 3.12 converts ints to decimal text in quadratic time (half a million
    # digits take seconds of the candidate's budget). Above 2**32768, split the number in
    # halves by powers of two and recombine them with libmpdec's exact, sub-quadratic
    # arithmetic, as CPython 3.12's _pylong does.
    _SMALL_BITS = 1 << 15
    _SMALL = 1 << _SMALL_BITS
    _Decimal, _Context, _dstr = decimal.Decimal, decimal.Context, decimal.Decimal.__str__
    _prec, _emax, _emin = decimal.MAX_PREC, decimal.MAX_EMAX, decimal.MIN_EMIN
    _pow2 = {}
    # The context is made from the classes bound above on first use: making it in every
    # execution cost ~0.1 ms of CPU (a fresh fork server child), and few results are huge.
    _dctx = []

    def _int_text(x):
        if -_SMALL < x < _SMALL:
            return _int_repr(x)
        if not _dctx:
            c = _Context(prec=_prec, Emax=_emax, Emin=_emin)
            _dctx[:] = (c.multiply, c.add, c.power)
        _dmul, _dadd, _dpow = _dctx

        def to_decimal(v, bits):
            if bits <= _SMALL_BITS:
                return _Decimal(v)
            half = bits >> 1
            hi = v >> half
            p = _pow2.get(half)
            if p is None:
                p = _pow2[half] = _dpow(_Decimal(2), half)
            return _dadd(_dmul(to_decimal(hi, bits - half), p), to_decimal(v - (hi << half), half))

        if x < 0:
            return "-" + _dstr(to_decimal(-x, (-x).bit_length()))
        return _dstr(to_decimal(x, x.bit_length()))

    # Each value level is up to 3 JSON levels; the host parser stops at 128.
    max_depth = 40
    _globals = globals()

    def enc(x, depth, out):
        t = _type(x)
        if depth > max_depth:
            out.append('{"opaque":"too deep"}')
        elif x is None:
            out.append("null")
        elif t is _bool:
            out.append("true" if x else "false")
        elif t is _int:
            out.append('{"int":"' + _int_text(x) + '"}')
        elif t is _float:
            if x != x:
                out.append('{"float":"nan"}')
            elif x == 1e999:
                out.append('{"float":"inf"}')
            elif x == -1e999:
                out.append('{"float":"-inf"}')
            else:
                out.append('{"float":' + _float_repr(x) + "}")
        elif t is _str:
            try:
                _enc_utf8(x, "utf-8")
            except UnicodeEncodeError:
                out.append('{"opaque":"str with lone surrogates"}')
                return
            out.append(_quote(x))
        elif t is _list or t is _tuple or t is _set or t is _frozenset:
            if t is _tuple:
                out.append('{"tuple":[')
            elif t is _list:
                out.append("[")
            else:
                out.append('{"set":[')
            first = True
            for item in _list(x) if t is not _list else x[:]:
                if not first:
                    out.append(",")
                first = False
                enc(item, depth + 1, out)
            out.append("]" if t is _list else "]}")
        elif t is _dict:
            out.append('{"map":[')
            first = True
            for k, v in _list(_dict.items(x)):
                if not first:
                    out.append(",")
                first = False
                out.append("[")
                enc(k, depth + 1, out)
                out.append(",")
                enc(v, depth + 1, out)
                out.append("]")
            out.append("]}")
        else:
            try:
                name = t.__qualname__
                if _type(name) is not _str:
                    name = "object"
            except _BaseException:
                name = "object"
            out.append('{"opaque":' + _quote(name) + "}")

    def encode(x):
        # A value that cannot even be walked (e.g. a dict mutated by a thread) is opaque.
        out = []
        try:
            enc(x, 0, out)
        except RecursionError:
            return '{"opaque":"too deep"}'
        except _BaseException as e:
            return '{"opaque":' + _quote("unencodable " + _type(e).__name__) + "}"
        return _join(out)

    def dec(j):
        t = _type(j)
        if j is None or t is _bool or t is _str:
            return j
        if t is _list:
            return [dec(v) for v in j]
        (tag, v), = j.items()
        if tag == "int":
            return _int(v)
        if tag == "float":
            return _float(v)
        if tag == "tuple":
            return _tuple(dec(i) for i in v)
        if tag == "set":
            return _set(dec(i) for i in v)
        if tag == "map":
            return {dec(k): dec(w) for k, w in v}
        raise ValueError("cannot decode %r" % tag)

    def forget_frames(e):
        # The traceback holds the failed call's frames and whatever they hold (a list that
        # filled the heap): released before the harness allocates again, or its own next
        # allocation could fail and end the process (mbpp/392's reference on its largest
        # inputs, now and then).
        try:
            _drop_traceback(e, None)
        except _BaseException:
            pass

    def error_json(e):
        forget_frames(e)
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
        if _len(msg) > 1000:
            msg = msg[:1000] + "..."
        return '{"kind":' + _quote(name) + ',"message":' + _quote(msg) + "}"

    def outcome(fn, args):
        # Returns the encoded result and the CPU time; the result is encoded at once so a
        # mutable alias kept by the candidate cannot change it afterwards.
        t0 = _cpu()
        try:
            r = fn(*args)
        except _BaseException as e:  # SystemExit and KeyboardInterrupt too
            # Before anything that allocates (see error_json).
            forget_frames(e)
            t1 = _cpu()
            return '{"error":' + error_json(e) + "}", (t1 - t0) // 1000
        t1 = _cpu()
        return '{"ok":' + encode(r) + "}", (t1 - t0) // 1000

    def read_text(path):
        # What open(path, encoding="utf-8").read() gives compile(), which translates "\r\n"
        # and "\r" itself: the same code object, without building a text file object (~30
        # fewer page copies in each fresh child).
        fd = _open(path, _O_RDONLY)
        try:
            chunks = []
            while True:
                b = _read(fd, 1 << 16)
                if not b:
                    break
                chunks.append(b)
        finally:
            _close(fd)
        return _dec_utf8(b"".join(chunks), "utf-8")

    def run():
        # The zygote keeps `run` as the module's `__passrate_main__`, from which its closure
        # is reachable: gone before the candidate exists.
        _modules_pop(_globals, "__passrate_main__", None)
        if _set_int_max_str_digits is not None:
            _set_int_max_str_digits(0)
        chunks = []
        while True:
            b = _read(3, 1 << 20)
            if not b:
                break
            chunks.append(b)
        _close(3)
        req = _loads(b"".join(chunks))
        _set_inheritable(4, False)
        nonce = req["nonce"]
        seq = [0]

        def send(payload):
            data = _enc_utf8(payload, "utf-8")
            head = _enc_utf8("PASSRATE %s %d %d\n" % (nonce, seq[0], _len(data)), "ascii")
            seq[0] += 1
            # A view, not slices of the bytes: each partial write of a large frame would copy
            # (and allocate) the rest again, quadratic in the frame's size.
            buf = _memoryview(head + data + b"\n")
            while buf:
                n = _write(4, buf)
                buf = buf[n:]

        send('{"hello":{"runtime":' + _quote("python " + sys.version.split()[0]) + "}}")

        ns = {"__name__": "solution", "__builtins__": builtins}
        # `signal.signal` too: its `__wrapped__` is the C function.
        # Recording (intake) runs a dataset's check code on the reference, never a candidate's
        # answer; that code may use what the hook refuses (unittest's assertRaises clears a
        # traceback's frames).
        if req["mode"] != "record":
            _signal_module.signal = _signal_c_module.signal = _signal_without_frame
            _addaudithook(_audit)
        try:
            code = _compile(read_text(req["file"]), req["file"], "exec")
            _exec(code, ns)
            target_name = req.get("class") or req["entry"]
            if req["mode"] == "tests" and target_name not in ns:
                send('{"load_error":{"kind":"MissingEntryPoint","message":' + _quote(target_name) + "}}")
                _exit(0)
        except _BaseException as e:
            send('{"load_error":' + error_json(e) + "}")
            _exit(0)
        send('{"loaded":null}')

        if req["mode"] == "record":
            entry = req["entry"]
            original = ns.get(entry)
            if not _callable(original):
                send('{"load_error":{"kind":"MissingEntryPoint","message":' + _quote(entry) + "}}")
                _exit(0)
            depth = [0]
            count = [0]

            def recorder(*args, **kwargs):
                if kwargs or depth[0] > 0:
                    # Keyword calls cannot be replayed positionally; inner (recursive) calls are
                    # the reference's own business.
                    if kwargs and depth[0] == 0:
                        raise TypeError("passrate: keyword arguments are not recorded")
                    return original(*args, **kwargs)
                args_json = "[" + ",".join(encode(a) for a in args) + "]"
                depth[0] += 1
                try:
                    r = original(*args)
                except _BaseException as e:
                    send('{"call":{"args":' + args_json + ',"error":' + error_json(e) + "}}")
                    raise
                finally:
                    depth[0] -= 1
                send('{"call":{"args":' + args_json + ',"ok":' + encode(r) + "}}")
                count[0] += 1
                return r

            ns[entry] = recorder
            try:
                _exec(_compile(read_text(req["check_file"]), req["check_file"], "exec"), ns)
                if count[0] == 0 and _callable(ns.get("check")):
                    ns["check"](recorder)
            except _BaseException as e:
                send('{"check_error":' + error_json(e) + "}")
                _exit(0)
            send('{"done":null}')
            _exit(0)

        cls = None
        if req.get("class"):
            cls = ns[req["class"]]
        for i, test in _enumerate(req["tests"]):
            if "steps" in test:
                t0 = _cpu()
                try:
                    obj = cls(*dec(test["ctor"]))
                except _BaseException as e:
                    send('{"test":%d,"result":{"error":%s},"cpu_us":%d}' % (i, error_json(e), (_cpu() - t0) // 1000))
                    continue
                parts = []
                total = (_cpu() - t0) // 1000
                for step in test["steps"]:
                    try:
                        fn = _getattr(obj, step["method"])
                    except _BaseException as e:
                        parts.append('{"error":' + error_json(e) + "}")
                        continue
                    res, us = outcome(fn, dec(step["args"]))
                    total += us
                    parts.append(res)
                send('{"test":%d,"result":{"steps":[%s]},"cpu_us":%d}' % (i, ",".join(parts), total))
            else:
                if cls is not None:
                    try:
                        fn = _getattr(cls(), req["entry"])
                    except _BaseException as e:
                        send('{"test":%d,"result":{"error":%s},"cpu_us":0}' % (i, error_json(e)))
                        continue
                else:
                    fn = ns[req["entry"]]
                res, us = outcome(fn, dec(test["args"]))
                send('{"test":%d,"result":%s,"cpu_us":%d}' % (i, res, us))
        send('{"done":null}')
        # Leave without running candidate atexit handlers or waiting for its threads.
        _exit(0)

    return run


# A warm slot's fork server runs this trusted bytecode once under this name and keeps
# `__passrate_main__`; each execution's child calls it instead of running the file again.
if __name__ == "__passrate_prepare__":
    __passrate_main__ = _prepare()
else:
    _prepare()()
