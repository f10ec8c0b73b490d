// passrate Node.js harness: runs inside the sandbox. Reads the request from fd 3, loads the
// candidate (CommonJS or ESM), calls it, and writes framed typed results to fd 4. It never
// compares anything: expected values are not here, the host judges.
'use strict';

// Primordials captured before any candidate code runs: built-in prototypes are mutable, so
// the harness never calls a method or reads a property through a prototype lookup after
// loading the candidate. That rules out destructuring and spreading (they go through
// Array.prototype[Symbol.iterator]), arrays it fills with push or `[i] =` (accessors on
// Array.prototype's indices catch the stores), reads of keys a request object may lack
// (getters on Object.prototype answer for them; the request is copied into null-prototype
// objects first), Buffer methods (`Buffer.from` writes through Buffer.prototype.utf8Write)
// and `length`/`byteLength` getters of typed arrays.
const uncurry = Function.prototype.bind.bind(Function.prototype.call);
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
const closeSync = fs.closeSync;
const runInThisContext = vm.runInThisContext;
const createRequire = Module.createRequire;
const pathToFileURL = url.pathToFileURL;
const resolvePath = path.resolve;
const cpuUsage = process.cpuUsage.bind(process);
const reallyExit = process.reallyExit.bind(process);
const BufferAllocUnsafeSlow = Buffer.allocUnsafeSlow.bind(Buffer);
const BufferByteLength = Buffer.byteLength.bind(Buffer);
const Utf8Write = uncurry(Buffer.prototype.utf8Write);
const ObjectHasOwn = Object.hasOwn;
const PromisePrototypeThen = uncurry(Promise.prototype.then);
const stringify = JSON.stringify;
const parseJson = JSON.parse;
const ObjectGetPrototypeOf = Object.getPrototypeOf;
const ObjectKeys = Object.keys;
const ArrayIsArray = Array.isArray;
const ArrayPrototype = Array.prototype;
const ObjectPrototype = Object.prototype;
const MapPrototype = Map.prototype;
const SetPrototype = Set.prototype;
const NumberIsInteger = Number.isInteger;
const NumberToString = uncurry(Number.prototype.toString);
const BigIntToString = uncurry(BigInt.prototype.toString);
const BigIntCtor = BigInt;
const NumberCtor = Number;
const StringCtor = String;
const StringIsWellFormed = uncurry(String.prototype.isWellFormed);
const StringSlice = uncurry(String.prototype.slice);
const RegExpTest = uncurry(RegExp.prototype.test);
const ArrayPush = uncurry(Array.prototype.push);
const MapEntries = uncurry(Map.prototype.entries);
const MapSet = uncurry(Map.prototype.set);
const SetValues = uncurry(Set.prototype.values);
const SetAdd = uncurry(Set.prototype.add);
const IteratorNext = uncurry(Object.getPrototypeOf(new Map().entries()).next);
const SetIteratorNext = uncurry(Object.getPrototypeOf(new Set().values()).next);
const ReflectApply = Reflect.apply;
const ReflectConstruct = Reflect.construct;
// Each value level is up to 3 JSON levels; the host parser stops at 128.
const MAX_DEPTH = 40;

// `o[k]` when `o` is an object that has `k` itself, else undefined: never a prototype's.
function own(o, k) {
  return o !== null && typeof o === 'object' && ObjectHasOwn(o, k) ? o[k] : undefined;
}

// The request with every key the harness reads copied into null-prototype objects, before
// the candidate loads (JSON arrays are dense: their items and lengths are their own).
function readRequest() {
  const data = readFileSync(3);
  closeSync(3);
  const r = parseJson(data.toString('utf8'));
  const tests = [];
  const given = own(r, 'tests') || [];
  for (let i = 0; i < given.length; i++) {
    const t = given[i];
    let steps = own(t, 'steps');
    if (steps !== undefined) {
      const copied = [];
      for (let k = 0; k < steps.length; k++) {
        copied[k] = { __proto__: null, method: own(steps[k], 'method'), args: own(steps[k], 'args') };
      }
      steps = copied;
    }
    tests[i] = { __proto__: null, args: own(t, 'args'), ctor: own(t, 'ctor'), steps };
  }
  return {
    __proto__: null,
    nonce: own(r, 'nonce'),
    mode: own(r, 'mode'),
    entry: own(r, 'entry'),
    class: own(r, 'class') || null,
    file: own(r, 'file'),
    check_file: own(r, 'check_file'),
    tests,
  };
}

// Set once the request has arrived (see the end of this file).
let req = null;
let nonce = null;
let seq = 0;

function send(payload) {
  // One string encoded once by the C++ writer captured above: header and newline are ASCII.
  const n = BufferByteLength(payload, 'utf8');
  const frame = 'PASSRATE ' + nonce + ' ' + seq + ' ' + n + '\n' + payload + '\n';
  seq += 1;
  const len = BufferByteLength(frame, 'utf8');
  const buf = BufferAllocUnsafeSlow(len);
  Utf8Write(buf, frame, 0, len);
  let off = 0;
  while (off < len) {
    try {
      off += writeSync(4, buf, off, len - off);
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

// Returns the encoding of `x` as a string: strings are built by concatenation, never in
// arrays (see the top of this file).
function enc(x, depth) {
  if (depth > MAX_DEPTH) return '{"opaque":"too deep"}';
  const t = typeof x;
  if (x === null || x === undefined) return 'null';
  if (t === 'boolean') return x ? 'true' : 'false';
  if (t === 'number') {
    if (x !== x) return '{"float":"nan"}';
    if (x === Infinity) return '{"float":"inf"}';
    if (x === -Infinity) return '{"float":"-inf"}';
    if (NumberIsInteger(x)) return '{"int":"' + BigIntToString(BigIntCtor(x)) + '"}';
    return '{"float":' + NumberToString(x) + '}';
  }
  if (t === 'bigint') return '{"int":"' + BigIntToString(x) + '"}';
  if (t === 'string') {
    if (!StringIsWellFormed(x)) return '{"opaque":"string with lone surrogates"}';
    return quote(x);
  }
  if (t !== 'object') return '{"opaque":' + quote(t) + '}';
  const proto = ObjectGetPrototypeOf(x);
  if (proto === ArrayPrototype && ArrayIsArray(x)) {
    let out = '[';
    const n = x.length;
    for (let i = 0; i < n; i++) {
      if (i > 0) out += ',';
      out += enc(x[i], depth + 1);
    }
    return out + ']';
  }
  if (proto === MapPrototype) {
    let out = '{"map":[';
    const it = MapEntries(x);
    let first = true;
    for (let r = IteratorNext(it); !r.done; r = IteratorNext(it)) {
      if (!first) out += ',';
      first = false;
      out += '[' + enc(r.value[0], depth + 1) + ',' + enc(r.value[1], depth + 1) + ']';
    }
    return out + ']}';
  }
  if (proto === SetPrototype) {
    let out = '{"set":[';
    const it = SetValues(x);
    let first = true;
    for (let r = SetIteratorNext(it); !r.done; r = SetIteratorNext(it)) {
      if (!first) out += ',';
      first = false;
      out += enc(r.value, depth + 1);
    }
    return out + ']}';
  }
  if (proto === ObjectPrototype || proto === null) {
    let out = '{"map":[';
    const keys = ObjectKeys(x);
    for (let i = 0; i < keys.length; i++) {
      if (i > 0) out += ',';
      out += '[' + enc(keys[i], depth + 1) + ',' + enc(x[keys[i]], depth + 1) + ']';
    }
    return out + ']}';
  }
  return '{"opaque":' + quote(typeName(x)) + '}';
}

function encode(x) {
  try {
    return enc(x, 0);
  } catch (e) {
    return '{"opaque":"unencodable"}';
  }
}

function dec(j) {
  if (j === null || typeof j === 'boolean' || typeof j === 'string') return j;
  if (ArrayIsArray(j)) {
    const out = [];
    for (let i = 0; i < j.length; i++) ArrayPush(out, dec(j[i]));
    return out;
  }
  const tag = ObjectKeys(j)[0];
  const v = j[tag];
  if (tag === 'int' || tag === 'float') {
    if (v === 'nan') return NaN;
    if (v === 'inf') return Infinity;
    if (v === '-inf') return -Infinity;
    return NumberCtor(v);
  }
  if (tag === 'tuple') return dec(v);
  if (tag === 'set') {
    const s = new Set();
    for (let i = 0; i < v.length; i++) SetAdd(s, dec(v[i]));
    return s;
  }
  if (tag === 'map') {
    // String (or integer) keys become a plain object, as JavaScript code expects of a
    // dictionary; other keys need a Map.
    let plain = true;
    for (let i = 0; i < v.length; i++) {
      const k = v[i][0];
      if (!(typeof k === 'string' || (k !== null && typeof k === 'object' && ObjectHasOwn(k, 'int')))) plain = false;
    }
    if (plain) {
      const o = {};
      for (let i = 0; i < v.length; i++) o[StringCtor(dec(v[i][0]))] = dec(v[i][1]);
      return o;
    }
    const m = new Map();
    for (let i = 0; i < v.length; i++) MapSet(m, dec(v[i][0]), dec(v[i][1]));
    return m;
  }
  throw new TypeError('cannot decode ' + tag);
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
  return '{"kind":' + quote(kind) + ',"message":' + quote(message) + '}';
}

function cpuNow() {
  const u = cpuUsage();
  return u.user + u.system;
}

// Calls fn and returns its encoded outcome; the result is encoded at once so that a mutable
// alias the candidate keeps cannot change it afterwards. The call's CPU time is left in
// `outcomeUs`: a returned pair would be read back through Array.prototype's iterator.
let outcomeUs = 0;
function outcome(fn, thisArg, args) {
  const t0 = cpuNow();
  let r;
  try {
    r = ReflectApply(fn, thisArg, args);
  } catch (e) {
    outcomeUs = cpuNow() - t0;
    return '{"error":' + errorJson(e) + '}';
  }
  outcomeUs = cpuNow() - t0;
  return '{"ok":' + encode(r) + '}';
}

function isEsm(src) {
  return RegExpTest(/^\s*(import\s*[\w{*'"]|export\s)/m, src);
}

async function load(file, name, checkSrc) {
  const abs = resolvePath(file);
  const src = readFileSync(abs, 'utf8');
  const probe = '\n;return [typeof ' + name + " === 'undefined' ? undefined : " + name;
  if (isEsm(src)) {
    const mjs = abs.replace(/\.[cm]?js$/, '') + '.passrate.mjs';
    writeFileSync(mjs, src + '\nexport const __passrate_entry__ = typeof ' + name +
      " === 'undefined' ? undefined : " + name + ';\n');
    const ns = await import(pathToFileURL(mjs).href);
    let entry = ns.__passrate_entry__;
    if (entry === undefined && ns.default !== undefined) {
      entry = typeof ns.default === 'function' ? ns.default : ns.default[name];
    }
    return { __proto__: null, entry, check: null };
  }
  let wrapped = '(function (exports, require, module, __filename, __dirname) {' + src + probe;
  if (checkSrc !== null) wrapped += ', function (' + name + ') {\n' + checkSrc + '\n}';
  wrapped += '];\n})';
  const fn = runInThisContext(wrapped, { filename: abs });
  const mod = { exports: {} };
  const res = fn(mod.exports, createRequire(abs), mod, abs, resolvePath('.'));
  let entry = res[0];
  if (entry === undefined && mod.exports !== null && typeof mod.exports === 'object') entry = mod.exports[name];
  if (entry === undefined && typeof mod.exports === 'function' && checkSrc === null) entry = mod.exports;
  return { __proto__: null, entry, check: res[1] || null };
}

async function main() {
  send('{"hello":{"runtime":' + quote('node ' + process.versions.node) + '}}');
  const target = req.class || req.entry;
  let entry, checkRunner;
  try {
    const checkSrc = req.mode === 'record' ? readFileSync(resolvePath(req.check_file), 'utf8') : null;
    const loaded = await load(req.file, target, checkSrc);
    if (loaded === null || typeof loaded !== 'object' || ObjectGetPrototypeOf(loaded) !== null) {
      throw new TypeError('the candidate replaced how modules load');
    }
    entry = loaded.entry;
    checkRunner = loaded.check;
    if (typeof entry !== 'function') {
      send('{"load_error":{"kind":"MissingEntryPoint","message":' + quote(target) + '}}');
      reallyExit(0);
    }
  } catch (e) {
    send('{"load_error":' + errorJson(e) + '}');
    reallyExit(0);
  }
  send('{"loaded":null}');

  if (req.mode === 'record') {
    let depth = 0;
    let failures = 0;
    const original = entry;
    const recorder = function (...args) {
      if (depth > 0) return ReflectApply(original, this, args);
      let argsJson = '[';
      for (let k = 0; k < args.length; k++) argsJson += (k > 0 ? ',' : '') + encode(args[k]);
      argsJson += ']';
      depth += 1;
      let r;
      try {
        r = ReflectApply(original, this, args);
      } catch (e) {
        send('{"call":{"args":' + argsJson + ',"error":' + errorJson(e) + '}}');
        throw e;
      } finally {
        depth -= 1;
      }
      send('{"call":{"args":' + argsJson + ',"ok":' + encode(r) + '}}');
      return r;
    };
    // The datasets' JavaScript checks use console.assert, which only prints: count failures so a
    // reference that fails its own check is reported.
    console.assert = (cond) => { if (!cond) failures += 1; };
    try {
      checkRunner(recorder);
      if (failures > 0) throw new Error(failures + ' console.assert failure(s)');
    } catch (e) {
      send('{"check_error":' + errorJson(e) + '}');
      reallyExit(0);
    }
    send('{"done":null}');
    reallyExit(0);
  }

  const tests = req.tests;
  for (let i = 0; i < tests.length; i++) {
    const test = tests[i];
    if (test.steps !== undefined) {
      const t0 = cpuNow();
      let obj;
      try {
        obj = ReflectConstruct(entry, dec(test.ctor));
      } catch (e) {
        send('{"test":' + i + ',"result":{"error":' + errorJson(e) + '},"cpu_us":' + (cpuNow() - t0) + '}');
        continue;
      }
      let total = cpuNow() - t0;
      let parts = '';
      for (let s = 0; s < test.steps.length; s++) {
        const step = test.steps[s];
        if (s > 0) parts += ',';
        let fn;
        try {
          fn = obj[step.method];
          if (typeof fn !== 'function') throw new TypeError(step.method + ' is not a function');
        } catch (e) {
          parts += '{"error":' + errorJson(e) + '}';
          continue;
        }
        parts += outcome(fn, obj, dec(step.args));
        total += outcomeUs;
      }
      send('{"test":' + i + ',"result":{"steps":[' + parts + ']},"cpu_us":' + total + '}');
    } else {
      let fn = entry;
      let self;
      if (req.class) {
        try {
          self = ReflectConstruct(entry, []);
          fn = self[req.entry];
          if (typeof fn !== 'function') throw new TypeError(req.entry + ' is not a function');
        } catch (e) {
          send('{"test":' + i + ',"result":{"error":' + errorJson(e) + '},"cpu_us":0}');
          continue;
        }
      }
      const res = outcome(fn, self, dec(test.args));
      send('{"test":' + i + ',"result":' + res + ',"cpu_us":' + outcomeUs + '}');
    }
  }
  send('{"done":null}');
  // Leave without running candidate 'exit' handlers or waiting for its timers.
  reallyExit(0);
}

// Pre-started by the sandbox (ExecRequest::prestart): everything above is loaded; say so with
// one byte on fd 4 (the sandbox strips it), then block until the request arrives.
if (process.env.PASSRATE_PRESTARTED !== undefined) {
  delete process.env.PASSRATE_PRESTARTED;
  writeSync(4, '\n');
}
req = readRequest();
nonce = req.nonce;

PromisePrototypeThen(main(), undefined, (e) => {
  try {
    send('{"harness_error":' + errorJson(e) + '}');
  } finally {
    reallyExit(1);
  }
});
