// passrate Node.js harness: runs inside the sandbox. Reads the request from fd 3, loads the
// candidate (CommonJS or ESM), calls it, and writes framed typed results to fd 4. It never
// compares anything: expected values are not here, the host judges.
'use strict';

// Primordials captured before any candidate code runs: built-in prototypes are mutable, so
// the harness never calls a method through a prototype lookup after loading the candidate.
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
const BufferFrom = Buffer.from.bind(Buffer);
const BufferConcat = Buffer.concat.bind(Buffer);
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
const ArrayJoin = uncurry(Array.prototype.join);
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

function readRequest() {
  const data = readFileSync(3);
  closeSync(3);
  return parseJson(data.toString('utf8'));
}

// Set once the request has arrived (see the end of this file).
let req = null;
let nonce = null;
let seq = 0;

function send(payload) {
  const data = BufferFrom(payload, 'utf8');
  const head = BufferFrom('PASSRATE ' + nonce + ' ' + seq + ' ' + data.length + '\n', 'ascii');
  seq += 1;
  let buf = BufferConcat([head, data, BufferFrom('\n')]);
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

function enc(x, depth, out) {
  if (depth > MAX_DEPTH) {
    ArrayPush(out, '{"opaque":"too deep"}');
    return;
  }
  const t = typeof x;
  if (x === null || x === undefined) {
    ArrayPush(out, 'null');
  } else if (t === 'boolean') {
    ArrayPush(out, x ? 'true' : 'false');
  } else if (t === 'number') {
    if (x !== x) ArrayPush(out, '{"float":"nan"}');
    else if (x === Infinity) ArrayPush(out, '{"float":"inf"}');
    else if (x === -Infinity) ArrayPush(out, '{"float":"-inf"}');
    else if (NumberIsInteger(x)) ArrayPush(out, '{"int":"' + BigIntToString(BigIntCtor(x)) + '"}');
    else ArrayPush(out, '{"float":' + NumberToString(x) + '}');
  } else if (t === 'bigint') {
    ArrayPush(out, '{"int":"' + BigIntToString(x) + '"}');
  } else if (t === 'string') {
    if (!StringIsWellFormed(x)) ArrayPush(out, '{"opaque":"string with lone surrogates"}');
    else ArrayPush(out, quote(x));
  } else if (t === 'object') {
    const proto = ObjectGetPrototypeOf(x);
    if (proto === ArrayPrototype && ArrayIsArray(x)) {
      ArrayPush(out, '[');
      const n = x.length;
      for (let i = 0; i < n; i++) {
        if (i > 0) ArrayPush(out, ',');
        enc(x[i], depth + 1, out);
      }
      ArrayPush(out, ']');
    } else if (proto === MapPrototype) {
      ArrayPush(out, '{"map":[');
      const it = MapEntries(x);
      let first = true;
      for (let r = IteratorNext(it); !r.done; r = IteratorNext(it)) {
        if (!first) ArrayPush(out, ',');
        first = false;
        ArrayPush(out, '[');
        enc(r.value[0], depth + 1, out);
        ArrayPush(out, ',');
        enc(r.value[1], depth + 1, out);
        ArrayPush(out, ']');
      }
      ArrayPush(out, ']}');
    } else if (proto === SetPrototype) {
      ArrayPush(out, '{"set":[');
      const it = SetValues(x);
      let first = true;
      for (let r = SetIteratorNext(it); !r.done; r = SetIteratorNext(it)) {
        if (!first) ArrayPush(out, ',');
        first = false;
        enc(r.value, depth + 1, out);
      }
      ArrayPush(out, ']}');
    } else if (proto === ObjectPrototype || proto === null) {
      ArrayPush(out, '{"map":[');
      const keys = ObjectKeys(x);
      for (let i = 0; i < keys.length; i++) {
        if (i > 0) ArrayPush(out, ',');
        ArrayPush(out, '[');
        enc(keys[i], depth + 1, out);
        ArrayPush(out, ',');
        enc(x[keys[i]], depth + 1, out);
        ArrayPush(out, ']');
      }
      ArrayPush(out, ']}');
    } else {
      ArrayPush(out, '{"opaque":' + quote(typeName(x)) + '}');
    }
  } else {
    ArrayPush(out, '{"opaque":' + quote(t) + '}');
  }
}

function encode(x) {
  const out = [];
  try {
    enc(x, 0, out);
  } catch (e) {
    return '{"opaque":"unencodable"}';
  }
  return ArrayJoin(out, '');
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
      if (!(typeof k === 'string' || (k !== null && typeof k === 'object' && 'int' in k))) plain = false;
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

// Calls fn; the result is encoded at once so that a mutable alias the candidate keeps cannot
// change it afterwards.
function outcome(fn, thisArg, args) {
  const t0 = cpuNow();
  let r;
  try {
    r = ReflectApply(fn, thisArg, args);
  } catch (e) {
    return ['{"error":' + errorJson(e) + '}', cpuNow() - t0];
  }
  const us = cpuNow() - t0;
  return ['{"ok":' + encode(r) + '}', us];
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
    return [entry, null];
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
  return [entry, res[1] || null];
}

async function main() {
  send('{"hello":{"runtime":' + quote('node ' + process.versions.node) + '}}');
  const target = req.class || req.entry;
  let entry, checkRunner;
  try {
    const checkSrc = req.mode === 'record' ? readFileSync(resolvePath(req.check_file), 'utf8') : null;
    [entry, checkRunner] = await load(req.file, target, checkSrc);
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
      const argsJson = '[' + ArrayJoin(args.map(encode), ',') + ']';
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
      const parts = [];
      for (let s = 0; s < test.steps.length; s++) {
        const step = test.steps[s];
        let fn;
        try {
          fn = obj[step.method];
          if (typeof fn !== 'function') throw new TypeError(step.method + ' is not a function');
        } catch (e) {
          ArrayPush(parts, '{"error":' + errorJson(e) + '}');
          continue;
        }
        const [res, us] = outcome(fn, obj, dec(step.args));
        total += us;
        ArrayPush(parts, res);
      }
      send('{"test":' + i + ',"result":{"steps":[' + ArrayJoin(parts, ',') + ']},"cpu_us":' + total + '}');
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
      const [res, us] = outcome(fn, self, dec(test.args));
      send('{"test":' + i + ',"result":' + res + ',"cpu_us":' + us + '}');
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

main().catch((e) => {
  try {
    send('{"harness_error":' + errorJson(e) + '}');
  } finally {
    reallyExit(1);
  }
});
