// arbiter's JavaScript solution host (runs in the sandbox as host.js). Two roles:
// - required by the driver (main.js, the harness process): exports the value codec, the only
//   form in which values cross between the two processes;
// - run as a program (the solution's process, started by the driver as a fresh node with no
//   argument, variable or file that holds the tests or the nonce): loads solution.js and serves
//   the driver's calls over fd 3, one length-prefixed JSON message each way per request.
// The codec checks every value's exact type without running any of its code (no getters, valueOf,
// toJSON or Proxy traps) and keeps only plain data: null, undefined, booleans, numbers (NaN,
// ±Infinity and -0 included), BigInt, strings, arrays, plain objects (own enumerable string keys),
// Map, Set and Date. Anything else is an opaque mark that the decoder turns into a fresh Symbol,
// equal to nothing else. The decoder builds fresh values of its own from parsed JSON only.
'use strict';
const util = require('node:util');

const LIMITS = { depth: 200, nodes: 2_000_000, bigintDigits: 100_000, text: 2000 };

const makeCodec = () => {
  const t = util.types;
  const { isProxy, isDate, isMap, isSet } = t;
  const isArray = Array.isArray;
  const getProto = Object.getPrototypeOf;
  const ownKeys = Reflect.ownKeys;
  const getDesc = Reflect.getOwnPropertyDescriptor;
  const defineProperty = Object.defineProperty;
  const apply = Reflect.apply;
  const is = Object.is;
  const numIsFinite = Number.isFinite;
  const numIsNaN = Number.isNaN;
  const ObjectProto = Object.prototype;
  const bigToString = BigInt.prototype.toString;
  const getTime = Date.prototype.getTime;
  const mapForEach = Map.prototype.forEach;
  const setForEach = Set.prototype.forEach;
  const MapC = Map;
  const SetC = Set;
  const DateC = Date;
  const SymbolC = Symbol;
  const BigIntC = BigInt;
  const mapSet = Map.prototype.set;
  const setAdd = Set.prototype.add;
  const regexTest = RegExp.prototype.test;
  const push = Array.prototype.push;
  const DIGITS = /^-?[0-9]+$/;
  const SPECIAL = { __proto__: null, NaN: Number.NaN, Infinity: Number.POSITIVE_INFINITY, '-Infinity': Number.NEGATIVE_INFINITY, '-0': -0 };

  class OverBound extends Error {}

  /** The kind of an object that does not cross, without running any of its code. */
  const kindOf = (v) => {
    if (typeof v === 'function') return 'a function';
    if (typeof v === 'symbol') return 'a symbol';
    if (isProxy(v)) return 'a Proxy';
    if (t.isPromise(v)) return 'a Promise';
    try {
      const p = getProto(v);
      const c = p === null ? undefined : getDesc(p, 'constructor');
      const n = c && 'value' in c && typeof c.value === 'function' ? getDesc(c.value, 'name') : undefined;
      if (n && typeof n.value === 'string') return `a ${n.value.slice(0, 60)} object`;
    } catch {
      // fall through
    }
    return 'an object that is not plain data';
  };

  /** Plain data as a JSON-able tree: finite numbers, strings, booleans and null as they are, the rest tagged. */
  const encode = (root) => {
    let nodes = 0;
    const path = new SetC();
    const enc = (v, depth) => {
      if (++nodes > LIMITS.nodes) throw new OverBound(`the value has more than ${LIMITS.nodes} parts`);
      if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
      if (v === undefined) return ['u'];
      if (typeof v === 'number') {
        if (numIsFinite(v) && !is(v, -0)) return v;
        return ['n', is(v, -0) ? '-0' : numIsNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity'];
      }
      if (typeof v === 'bigint') return ['b', apply(bigToString, v, [])];
      if (typeof v !== 'object') return ['x', kindOf(v)];
      if (isProxy(v)) return ['x', 'a Proxy'];
      if (depth >= LIMITS.depth) throw new OverBound(`the value is nested more than ${LIMITS.depth} deep`);
      if (path.has(v)) throw new OverBound('the value contains itself (a cycle)');
      path.add(v);
      let out;
      if (isArray(v)) {
        const len = getDesc(v, 'length').value;
        out = ['a'];
        for (let i = 0; i < len; i++) {
          const d = getDesc(v, i);
          apply(push, out, [d === undefined ? ['u'] : 'value' in d ? enc(d.value, depth + 1) : ['x', 'a getter']]);
        }
      } else if (isDate(v)) out = ['d', apply(getTime, v, [])];
      else if (isMap(v)) {
        out = ['m'];
        apply(mapForEach, v, [(val, key) => apply(push, out, [enc(key, depth + 1), enc(val, depth + 1)])]);
      } else if (isSet(v)) {
        out = ['S'];
        apply(setForEach, v, [(val) => apply(push, out, [enc(val, depth + 1)])]);
      } else {
        const p = getProto(v);
        if (p !== ObjectProto && p !== null) out = ['x', kindOf(v)];
        else {
          out = [p === null ? 'O' : 'o'];
          for (const k of ownKeys(v)) {
            if (typeof k !== 'string') continue;
            const d = getDesc(v, k);
            if (!d.enumerable) continue;
            apply(push, out, [k, 'value' in d ? enc(d.value, depth + 1) : ['x', 'a getter']]);
          }
        }
      }
      path.delete(v);
      return out;
    };
    return enc(root, 0);
  };

  class Malformed extends Error {}
  const bad = (what) => {
    throw new Malformed(what);
  };
  const text = (s) => (typeof s === 'string' ? s.slice(0, LIMITS.text) : bad('a description that is not a string'));
  const put = (o, k, v) => defineProperty(o, k, { __proto__: null, value: v, writable: true, enumerable: true, configurable: true });

  /** Fresh values built from a parsed tree; anything not of the encoder's forms is an error. */
  const decode = (root) => {
    const dec = (x, depth) => {
      if (x === null || typeof x === 'boolean' || typeof x === 'string') return x;
      if (typeof x === 'number') return x;
      if (!isArray(x) || x.length === 0 || typeof x[0] !== 'string') return bad('a value of no known form');
      if (depth >= LIMITS.depth + 1) return bad(`a value nested more than ${LIMITS.depth} deep`);
      const tag = x[0];
      const n = x.length;
      switch (tag) {
        case 'u':
          return undefined;
        case 'n':
          return typeof x[1] === 'string' && x[1] in SPECIAL ? SPECIAL[x[1]] : bad('a number of no known form');
        case 'b':
          if (typeof x[1] !== 'string' || x[1].length > LIMITS.bigintDigits + 1 || !apply(regexTest, DIGITS, [x[1]])) return bad('a BigInt of no known form');
          return BigIntC(x[1]);
        case 'd':
          return typeof x[1] === 'number' ? new DateC(x[1]) : bad('a Date of no known form');
        case 'x':
          return SymbolC(`opaque: ${text(x[1])} (not plain data; equal to nothing else)`);
        case 'a': {
          const a = [];
          for (let i = 1; i < n; i++) apply(push, a, [dec(x[i], depth + 1)]);
          return a;
        }
        case 'o':
        case 'O': {
          if (n % 2 !== 1) bad('an object of no known form');
          const o = tag === 'O' ? { __proto__: null } : {};
          for (let i = 1; i < n; i += 2) put(o, typeof x[i] === 'string' ? x[i] : bad('an object key that is not a string'), dec(x[i + 1], depth + 1));
          return o;
        }
        case 'm': {
          if (n % 2 !== 1) bad('a Map of no known form');
          const m = new MapC();
          for (let i = 1; i < n; i += 2) apply(mapSet, m, [dec(x[i], depth + 1), dec(x[i + 1], depth + 1)]);
          return m;
        }
        case 'S': {
          const s = new SetC();
          for (let i = 1; i < n; i++) apply(setAdd, s, [dec(x[i], depth + 1)]);
          return s;
        }
        default:
          return bad('a value of no known form');
      }
    };
    return dec(root, 0);
  };

  return { encode, decode, OverBound, Malformed, text };
};

const codec = makeCodec();
module.exports = { makeCodec, codec, LIMITS };

// ---- the solution's process ----------------------------------------------------------------
if (require.main === module) {
  const fs = require('node:fs');
  const vm = require('node:vm');
  const { encode, decode, OverBound } = codec;
  const readSync = fs.readSync;
  const writeSync = fs.writeSync;
  const readFileSync = fs.readFileSync;
  const runInThisContext = vm.runInThisContext;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const apply = Reflect.apply;
  const isNativeError = util.types.isNativeError;
  const getDesc = Reflect.getOwnPropertyDescriptor;
  const alloc = Buffer.alloc;
  const bufferFrom = Buffer.from;
  const concat = Buffer.concat;
  const toStr = Buffer.prototype.toString;
  const readU32 = Buffer.prototype.readUInt32BE;
  const writeU32 = Buffer.prototype.writeUInt32BE;
  const exit = typeof process.reallyExit === 'function' ? process.reallyExit.bind(process) : process.exit.bind(process);
  const nap = new Int32Array(new SharedArrayBuffer(4));
  const CH = 3;

  const readExact = (n) => {
    const b = alloc(n);
    for (let off = 0; off < n; ) {
      let k;
      try {
        k = readSync(CH, b, off, n - off, null);
      } catch (e) {
        if (e?.code !== 'EAGAIN') throw e;
        Atomics.wait(nap, 0, 0, 1);
        continue;
      }
      if (k === 0) exit(0); // the driver is gone
      off += k;
    }
    return b;
  };
  const send = (msg) => {
    const body = bufferFrom(stringify(msg), 'utf8');
    const head = alloc(4);
    apply(writeU32, head, [body.length, 0]);
    const b = concat([head, body]);
    for (let off = 0; off < b.length; ) {
      try {
        off += writeSync(CH, b, off, b.length - off);
      } catch (e) {
        if (e?.code !== 'EAGAIN') throw e;
        Atomics.wait(nap, 0, 0, 1);
      }
    }
  };
  const receive = () => parse(apply(toStr, readExact(apply(readU32, readExact(4), [0])), ['utf8']));

  const str = (v) => {
    try {
      return typeof v === 'string' ? v.slice(0, 4000) : undefined;
    } catch {
      return undefined;
    }
  };
  /** A thrown value as a reply: an Error as its class name, message and stack; anything else as a value. */
  const thrown = (e) => {
    if (isNativeError(e) || (e !== null && typeof e === 'object' && e instanceof Error)) {
      let name;
      let message;
      let stack;
      try {
        name = str(e.name);
        message = str(e.message);
        stack = str(e.stack);
      } catch {
        // keep what was read
      }
      return ['err', name ?? 'Error', message ?? '', stack ?? ''];
    }
    try {
      return ['throw', encode(e)];
    } catch {
      return ['throw', ['x', 'a value that cannot be sent']];
    }
  };
  const result = (v) => {
    try {
      return ['ret', encode(v)];
    } catch (e) {
      if (e instanceof OverBound) return ['big', e.message];
      throw e;
    }
  };
  const IDENT = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;
  const lookup = (path) => {
    if (!IDENT.test(path)) return { ok: false };
    try {
      return { ok: true, v: runInThisContext(path, { filename: 'lookup.js' }) };
    } catch {
      return { ok: false };
    }
  };

  const NONE = Symbol('none');
  const RESERVED = new Set(
    (
      'break case catch class const continue debugger default delete do else enum export extends false finally for function if import in ' +
      'instanceof new null return super switch this throw true try typeof var void while with yield let static await implements package ' +
      'protected interface private public arguments eval undefined require module exports'
    ).split(' '),
  );
  /** The values of global names (NONE where not defined), in one script. */
  const lookupAll = (names) => {
    if (names.length === 0) return [];
    const body = names.map((n) => `try { r.push(typeof ${n} === 'undefined' ? N : ${n}); } catch { r.push(N); }`).join('\n');
    try {
      return runInThisContext(`(function (N) { 'use strict'; const r = []; ${body}\nreturn r; })`, { filename: 'lookup.js' })(NONE);
    } catch {
      return names.map(() => NONE);
    }
  };

  // the solution sees the globals it had under the old single-process driver
  globalThis.require = require;
  globalThis.module = module;
  globalThis.exports = exports;

  for (;;) {
    const req = receive();
    if (req[0] === 'load') {
      // the names the solution defines: the identifiers of its source, and the globals it adds (the
      // driver never says which names the tests use: they could tell expected answers)
      const [, file, setup, entry] = req;
      let src;
      try {
        src = readFileSync(file, 'utf8');
      } catch (e) {
        send(thrown(e));
        continue;
      }
      const found = new Set();
      for (const m of src.matchAll(/(?<![\w$.])[A-Za-z_$][\w$]*/g)) if (!RESERVED.has(m[0]) && found.size < 20000) found.add(m[0]);
      const globalsBefore = new Set(Object.getOwnPropertyNames(globalThis));
      let names = [...found];
      const before = lookupAll(names);
      try {
        runInThisContext(src, { filename: file });
        if (setup) runInThisContext(setup, { filename: 'setup.js' });
      } catch (e) {
        send(thrown(e));
        continue;
      }
      // the globals it added (under a name not in its source); then what each name is now
      const added = Object.getOwnPropertyNames(globalThis).filter((n) => !globalsBefore.has(n) && !found.has(n) && IDENT.test(n) && !RESERVED.has(n));
      const beforeAll = [...before, ...added.map(() => NONE)];
      names = [...names, ...added];
      const after = lookupAll(names);
      // each name the solution defined or redefined, as a function (called by name) or a value
      // (sent when the driver asks for it)
      const defs = [];
      for (let i = 0; i < names.length; i++) {
        const v = after[i];
        if (v === NONE || v === undefined || v === beforeAll[i]) continue;
        if (typeof v === 'function') {
          const len = getDesc(v, 'length');
          defs.push([names[i], 'f', len && typeof len.value === 'number' ? len.value : 0]);
        } else defs.push([names[i], 'v']);
      }
      let entryKind = null;
      if (entry) {
        const e = lookup(entry);
        entryKind = e.ok ? typeof e.v : 'undefined';
      }
      send(['ok', defs, entryKind]);
    } else if (req[0] === 'get') {
      const v = lookup(req[1]);
      send(v.ok ? result(v.v) : ['err', 'ReferenceError', `${req[1]} is not defined`, '']);
    } else if (req[0] === 'call') {
      const [, path, args] = req;
      const f = lookup(path);
      if (!f.ok || typeof f.v !== 'function') {
        send(['err', 'TypeError', `${path} is not a function`, '']);
        continue;
      }
      const fn = f.v;
      let r;
      try {
        r = fn(...decode(args));
      } catch (e) {
        send(thrown(e));
        continue;
      }
      send(result(r));
    } else exit(2);
  }
}
