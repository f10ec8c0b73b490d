// passrate Node.js suite harness: runs an answer's unit tests inside the sandbox against one
// implementation (the task's reference or one of its faulty variants). Reads the request from
// fd 3, loads the implementation from solution.js (deleted once loaded), then the tests with
// `node:test` replaced by a registry (test/it/describe, in registration order) and
// `./solution` resolving to the function under test, runs each test under a time budget and
// writes one framed result per test to fd 4. It never decides anything: the host reads the
// frames, in order, and a missing one is a failure.
'use strict';

// Captured before any code under test runs: built-in prototypes are mutable.
const fs = require('fs');
const path = require('path');
const vm = require('vm');
const url = require('url');
// The CommonJS loader itself (what `require('module')` returns), without loading the public
// `module` module's source-map helpers (~0.8 ms of CPU per execution).
const Module = module.constructor;
const writeSync = fs.writeSync;
const readFileSync = fs.readFileSync;
const writeFileSync = fs.writeFileSync;
const unlinkSync = fs.unlinkSync;
const closeSync = fs.closeSync;
const fstatSync = fs.fstatSync;
const runInThisContext = vm.runInThisContext;
// The native method `vm.Script#runInThisContext` calls through `super` (a lookup the tests
// could redirect by patching the prototype): its arguments are (context or null, timeout ms,
// display errors, break on SIGINT, break on the first line).
const ScriptRunInContext = Object.getPrototypeOf(vm.Script.prototype).runInContext;
const createRequire = Module.createRequire;
const pathToFileURL = url.pathToFileURL;
const resolvePath = path.resolve;
const cpuUsage = process.cpuUsage.bind(process);
const reallyExit = process.reallyExit.bind(process);
const BufferFrom = Buffer.from.bind(Buffer);
const BufferConcat = Buffer.concat.bind(Buffer);
const stringify = JSON.stringify;
const parseJson = JSON.parse;
const ObjectGetPrototypeOf = Object.getPrototypeOf;
const ObjectDefineProperty = Object.defineProperty;
const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const ObjectKeys = Object.keys;
const ArrayIsArray = Array.isArray;
const ArrayPush = Function.prototype.call.bind(Array.prototype.push);
const ArrayJoin = Function.prototype.call.bind(Array.prototype.join);
const StringSlice = Function.prototype.call.bind(String.prototype.slice);
const StringReplace = Function.prototype.call.bind(String.prototype.replace);
const StringIsWellFormed = Function.prototype.call.bind(String.prototype.isWellFormed);
const RegExpTest = Function.prototype.call.bind(RegExp.prototype.test);
const ReflectApply = Reflect.apply;
const ReflectConstruct = Reflect.construct;
const PromiseRace = Promise.race.bind(Promise);
const PromiseResolve = Promise.resolve.bind(Promise);
const setTimeoutFn = setTimeout;
const clearTimeoutFn = clearTimeout;
const StringCtor = String;

// Each test's synchronous part runs under the vm watchdog (endless loops). It is entered
// through one script compiled now, run by the captured native method, which calls the test
// in `current` via a global function the tests can neither replace nor shadow
// (non-writable, non-configurable): a new context per test cost ~1 ms of CPU each.
let current = null;
ObjectDefineProperty(globalThis, '__passrate_run_test', {
  value: function () { return current(); },
  writable: false, configurable: false, enumerable: false,
});
const runTestScript = new vm.Script('__passrate_run_test()', { filename: 'passrate-suite' });
// The native method's arguments are Node 20's. A runtime whose method takes others must not
// run or fail tests through it: checked once here, before `hello`, so that a mismatch is the
// harness failing to start (an infrastructure fault, retried), never a verdict on a suite.
current = function () { return 'passrate-probe'; };
if (ReflectApply(ScriptRunInContext, runTestScript, [null, 1000, true, false, false]) !== 'passrate-probe') {
  throw new Error('passrate suite harness: vm.Script runInContext does not take Node 20 arguments');
}
current = null;

const data = readFileSync(3);
closeSync(3);
const req = parseJson(data.toString('utf8'));
const nonce = req.nonce;
// Node cannot interrupt synchronous code by CPU time: the budget here is wall time, generous
// against load, for tests that wait; the jail stops a test at its CPU budget (frame budgets).
const budgetMs = req.test_cpu_ms * 3;
let seq = 0;

function send(payload) {
  const body = BufferFrom(payload, 'utf8');
  const head = BufferFrom('PASSRATE ' + nonce + ' ' + seq + ' ' + body.length + '\n', 'ascii');
  seq += 1;
  const buf = BufferConcat([head, body, BufferFrom('\n')]);
  let off = 0;
  while (off < buf.length) {
    try {
      off += writeSync(4, buf, off, buf.length - off);
    } catch (e) {
      if (e && e.code === 'EAGAIN') continue;
      throw e;
    }
  }
}

function quote(s) {
  return stringify(s);
}

function typeName(x) {
  try {
    const proto = ObjectGetPrototypeOf(x);
    const ctor = proto && proto.constructor;
    const name = ctor && ctor.name;
    return typeof name === 'string' && name ? name : 'Object';
  } catch (e) {
    return 'Object';
  }
}

function errorJson(e) {
  let kind = typeof e;
  let message = '';
  try {
    if (e !== null && typeof e === 'object') {
      kind = typeName(e);
      const m = e.message;
      message = typeof m === 'string' ? m : '';
    } else {
      message = StringCtor(e);
    }
  } catch (err) {
    message = '<unprintable>';
  }
  if (typeof message !== 'string') message = '';
  if (message.length > 1000) message = StringSlice(message, 0, 1000) + '...';
  if (!StringIsWellFormed(message)) message = '<ill-formed>';
  if (typeof kind !== 'string' || !StringIsWellFormed(kind)) kind = 'Error';
  return '{"kind":' + quote(kind) + ',"message":' + quote(message) + '}';
}

function cpuNow() {
  const u = cpuUsage();
  return u.user + u.system;
}

function isEsm(src) {
  return RegExpTest(/^\s*(import\s*[\w{*'"]|export\s)/m, src);
}

// The implementation's top-level names (functions, classes, bindings), which the tests may
// use besides the entry point (HumanEval's decodeCyclic tests call encodeCyclic).
function topLevelNames(src, name) {
  const names = [name];
  const re = /^(?:export\s+)?(?:async\s+)?(?:function\s*\*?|const|let|var|class)\s+([A-Za-z_$][\w$]*)/gm;
  for (let m = re.exec(src); m !== null; m = re.exec(src)) {
    if (names.indexOf(m[1]) < 0) ArrayPush(names, m[1]);
  }
  return names;
}

function probeOf(names) {
  const parts = [];
  for (let i = 0; i < names.length; i++) {
    ArrayPush(parts, names[i] + ': typeof ' + names[i] + " === 'undefined' ? undefined : " + names[i]);
  }
  return '{' + ArrayJoin(parts, ', ') + '}';
}

// Loads the implementation and returns its top-level values by name. The file (and the ESM
// copy) is removed afterwards, so tests cannot read the source of the implementation.
async function loadImplementation(file, name) {
  const abs = resolvePath(file);
  const src = readFileSync(abs, 'utf8');
  const names = topLevelNames(src, name);
  if (isEsm(src)) {
    const mjs = StringReplace(abs, /\.[cm]?js$/, '') + '.passrate.mjs';
    writeFileSync(mjs, src + '\nexport const __passrate_names__ = ' + probeOf(names) + ';\n');
    unlinkSync(abs);
    try {
      const ns = await import(pathToFileURL(mjs).href);
      const values = ns.__passrate_names__;
      if (values[name] === undefined && ns.default !== undefined) {
        values[name] = typeof ns.default === 'function' ? ns.default : ns.default[name];
      }
      return values;
    } finally {
      unlinkSync(mjs);
    }
  }
  unlinkSync(abs);
  const probe = '\n;return ' + probeOf(names) + ';\n})';
  const fn = runInThisContext('(function (exports, require, module, __filename, __dirname) {' + src + probe,
    { filename: abs });
  const mod = { exports: {} };
  const values = fn(mod.exports, createRequire(abs), mod, abs, resolvePath('.'));
  if (values[name] === undefined && mod.exports !== null && typeof mod.exports === 'object') values[name] = mod.exports[name];
  if (values[name] === undefined && typeof mod.exports === 'function') values[name] = mod.exports;
  return values;
}

// ESM import lines of the tests become require calls (the tests are run as CommonJS).
function toCommonJs(src) {
  return StringReplace(
    src,
    /^[ \t]*import\s+(?:(\*\s+as\s+[\w$]+|[\w$]+|\{[^}]*\})(?:\s*,\s*(\{[^}]*\}|\*\s+as\s+[\w$]+))?\s+from\s+)?(['"][^'"\n]+['"])\s*;?/gm,
    (all, a, b, spec) => {
      const binds = [];
      for (const part of [a, b]) {
        if (!part) continue;
        if (part[0] === '{') ArrayPush(binds, 'const ' + StringReplace(part, /\s+as\s+/g, ': ') + ' = require(' + spec + ');');
        else if (part[0] === '*') ArrayPush(binds, 'const ' + StringReplace(part, /^\*\s+as\s+/, '') + ' = require(' + spec + ');');
        else ArrayPush(binds, 'const ' + part + ' = __passrate_default(require(' + spec + '));');
      }
      return binds.length ? ArrayJoin(binds, ' ') : 'require(' + spec + ');';
    });
}

async function main() {
  send('{"hello":{"runtime":' + quote('node ' + process.versions.node) + '}}');
  const target = req.class || req.entry;
  let impl, values;
  try {
    values = await loadImplementation(req.file, target);
    impl = values[target];
    if (typeof impl !== 'function') {
      send('{"load_error":{"kind":"MissingEntryPoint","message":' + quote(target) + '}}');
      reallyExit(0);
    }
  } catch (e) {
    send('{"load_error":' + errorJson(e) + '}');
    reallyExit(0);
  }
  send('{"loaded":null}');

  // What the tests get: forwarders with the functions' names and arities, so their source
  // text (Function.prototype.toString) is the same for every implementation.
  const forwarder = (fn, name) => {
    const f = function (...args) {
      return new.target ? ReflectConstruct(fn, args, new.target) : ReflectApply(fn, this, args);
    };
    ObjectDefineProperty(f, 'name', { value: name });
    ObjectDefineProperty(f, 'length', { value: fn.length });
    return f;
  };
  const solutionExports = {};
  for (const k of ObjectKeys(values)) {
    const v = values[k];
    if (v !== undefined) solutionExports[k] = typeof v === 'function' ? forwarder(v, k) : v;
  }
  const exposed = solutionExports[target];
  solutionExports.default = exposed;

  // The node:test registry: tests in registration order, describe blocks run at once.
  const tests = [];
  const prefix = [];
  const hooks = [{ beforeEach: [], afterEach: [] }];
  function register(name, opts, fn) {
    if (typeof name === 'function') { fn = name; name = fn.name || '<anonymous>'; }
    if (typeof opts === 'function') fn = opts;
    if (opts && typeof opts === 'object' && (opts.skip || opts.todo)) return PromiseResolve();
    if (typeof fn !== 'function') return PromiseResolve();
    const scopes = hooks.slice();
    ArrayPush(tests, { name: ArrayJoin(prefix.concat([StringCtor(name)]), ' > '), fn, scopes });
    return PromiseResolve();
  }
  function group(name, opts, fn) {
    if (typeof name === 'function') { fn = name; name = fn.name || '<anonymous>'; }
    if (typeof opts === 'function') fn = opts;
    if (opts && typeof opts === 'object' && (opts.skip || opts.todo)) return PromiseResolve();
    if (typeof fn !== 'function') return PromiseResolve();
    ArrayPush(prefix, StringCtor(name));
    ArrayPush(hooks, { beforeEach: [], afterEach: [] });
    try {
      fn();
    } finally {
      prefix.pop();
      hooks.pop();
    }
    return PromiseResolve();
  }
  const skip = () => PromiseResolve();
  for (const f of [register, group]) {
    f.skip = skip;
    f.todo = skip;
    f.only = f;
  }
  const hook = (kind) => (fn) => { if (typeof fn === 'function') ArrayPush(hooks[hooks.length - 1][kind], fn); };
  const nodeTest = register;
  nodeTest.test = register;
  nodeTest.it = register;
  nodeTest.describe = group;
  nodeTest.suite = group;
  nodeTest.beforeEach = hook('beforeEach');
  nodeTest.afterEach = hook('afterEach');
  // before/after run around the whole suite's registration-time code, as node runs them.
  nodeTest.before = (fn) => { if (typeof fn === 'function') fn(); };
  nodeTest.after = () => {};
  nodeTest.default = nodeTest;

  const testsAbs = resolvePath(req.tests_file);
  const realRequire = createRequire(testsAbs);
  const testRequire = function (spec) {
    if (spec === 'node:test' || spec === 'test') return nodeTest;
    if (RegExpTest(/^\.\/solution(\.[cm]?js)?$/, spec)) return solutionExports;
    if (RegExpTest(/^(node:)?assert(\/strict)?$/, spec)) return requireAssert(spec);
    return realRequire(spec);
  };
  // `node:assert` reads `process.stderr.isTTY` once, when it loads (its colours), and
  // creating the stream for a pipe loads net and the whole streams stack: ~11 ms of CPU of a
  // ~45 ms suite run. When fd 2 is a pipe or a file (never a terminal: the same answer as the
  // real stream) assert loads with a stand-in that only answers that; the real lazy
  // `process.stderr` is put back before the tests' next line runs.
  let assertLoaded = false;
  const requireAssert = (spec) => {
    if (assertLoaded) return realRequire(spec);
    assertLoaded = true;
    let quiet = false;
    try {
      const st = fstatSync(2);
      quiet = st.isFIFO() || st.isFile();
    } catch (e) {}
    const real = ObjectGetOwnPropertyDescriptor(process, 'stderr');
    if (!quiet || !real || !real.configurable) return realRequire(spec);
    ObjectDefineProperty(process, 'stderr', {
      configurable: true, enumerable: real.enumerable, get: () => ({ isTTY: false }),
    });
    try {
      return realRequire(spec);
    } finally {
      ObjectDefineProperty(process, 'stderr', real);
    }
  };
  const defaultOf = (m) => (m !== null && m !== undefined && m.default !== undefined ? m.default : m);
  try {
    const src = toCommonJs(readFileSync(testsAbs, 'utf8'));
    const wrapper = runInThisContext(
      '(function (exports, require, module, __filename, __dirname, __passrate_default) {' +
      src + '\n})', { filename: testsAbs });
    const mod = { exports: {} };
    // Globals, not parameters: the tests may declare the names themselves (from require).
    for (const k of ObjectKeys(solutionExports)) if (k !== 'default' && !(k in globalThis)) globalThis[k] = solutionExports[k];
    const loaded = wrapper(mod.exports, testRequire, mod, testsAbs, resolvePath('.'), defaultOf);
    await loaded;
  } catch (e) {
    send('{"suite_error":' + errorJson(e) + '}');
    reallyExit(0);
  }
  const names = [];
  for (let i = 0; i < tests.length; i++) ArrayPush(names, quote(tests[i].name));
  send('{"suite":[' + ArrayJoin(names, ',') + ']}');

  const context = (name) => ({
    name,
    skip() {},
    todo() {},
    diagnostic() {},
    plan() {},
    // Subtests run inline; their failure is the test's failure.
    test: async (n, o, f) => {
      const fn = typeof o === 'function' ? o : f;
      if (typeof fn === 'function') await fn(context(n));
    },
  });

  for (let i = 0; i < tests.length; i++) {
    const t = tests[i];
    const t0 = cpuNow();
    let error = null;
    let timedOut = false;
    try {
      const body = async () => {
        for (const s of t.scopes) for (const h of s.beforeEach) await h();
        try {
          await t.fn(context(t.name));
        } finally {
          for (const s of t.scopes) for (const h of s.afterEach) await h();
        }
      };
      // The synchronous part runs under the vm watchdog, which stops endless loops; a
      // returned promise races a timer.
      current = body;
      const promise = ReflectApply(ScriptRunInContext, runTestScript, [null, budgetMs, true, false, false]);
      let timer;
      const timeout = new Promise((resolve, reject) => {
        timer = setTimeoutFn(() => reject({ __passrate_timeout: true }), budgetMs);
      });
      try {
        await PromiseRace([promise, timeout]);
      } finally {
        clearTimeoutFn(timer);
      }
    } catch (e) {
      if ((e !== null && typeof e === 'object' && e.__passrate_timeout === true) ||
          (e !== null && typeof e === 'object' && e.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT')) {
        timedOut = true;
      } else {
        error = errorJson(e);
      }
    }
    const us = cpuNow() - t0;
    if (timedOut) {
      send('{"case":' + i + ',"error":{"kind":"TestTimeout","message":"the test ran longer than its budget"},"cpu_us":' + us + '}');
      reallyExit(0);
    }
    if (error === null) send('{"case":' + i + ',"ok":null,"cpu_us":' + us + '}');
    else send('{"case":' + i + ',"error":' + error + ',"cpu_us":' + us + '}');
  }
  send('{"done":null}');
  // Leave without running 'exit' handlers or waiting for timers the tests started.
  reallyExit(0);
}

main().catch((e) => {
  try {
    send('{"harness_error":' + errorJson(e) + '}');
  } finally {
    reallyExit(1);
  }
});
