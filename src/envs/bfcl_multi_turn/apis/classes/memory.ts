// BFCL's memory backends that need no model: MemoryAPI_kv (core and archival key-value memory with
// BM25+ key search, rank_bm25's formula and float order) and MemoryAPI_rec_sum (one text memory).
// BFCL loads their state from snapshot files of earlier entries; here the snapshot is the class's
// initial_config ({"core_memory": {...}, "archival_memory": {...}} or {"memory": "..."}), and only
// the memory contents are compared as state (BFCL's snapshot paths are the same on both sides).
import { ApiInstance, type ApiClass, type BfclEnv, dict, method } from '../api.js';
import { PyException } from '../../../../py/errors.js';
import { pyStr } from '../../../../py/format.js';
import { crLog } from '../../../../py/mpf.js';
import { splitWhitespace } from '../../../../py/text.js';
import { needDict, PyDict, pyDeepCopy, pyLen, PyTuple, type PyValue, truthy, typeName } from '../../../../py/values.js';

const KEY_FORMAT = /^[a-z]+(?:_[a-z0-9]+)*\n?$/; // Python's `$` also matches before a final newline

/** rank_bm25's BM25Plus(corpus).get_scores(query) with k1=1.5, b=0.75, delta=1. */
export function bm25PlusScores(corpus: string[][], query: string[]): number[] {
  const n = corpus.length;
  if (n === 0) throw new PyException('ZeroDivisionError', 'division by zero');
  const docLen = corpus.map((d) => d.length);
  const avgdl = docLen.reduce((a, b) => a + b, 0) / n;
  const freqs = corpus.map((doc) => {
    const m = new Map<string, number>();
    for (const w of doc) m.set(w, (m.get(w) ?? 0) + 1);
    return m;
  });
  const nd = new Map<string, number>();
  for (const f of freqs) for (const w of f.keys()) nd.set(w, (nd.get(w) ?? 0) + 1);
  const idf = new Map<string, number>();
  for (const [w, c] of nd) idf.set(w, crLog(n + 1) - crLog(c));
  const k1 = 1.5;
  const b = 0.75;
  const score = new Array<number>(n).fill(0);
  for (const q of query) {
    const w = idf.get(q) || 0;
    for (let i = 0; i < n; i++) {
      const qf = freqs[i]!.get(q) ?? 0;
      const term = w * (1 + (qf * (k1 + 1)) / (k1 * (1 - b + (b * docLen[i]!) / avgdl) + qf));
      score[i] = score[i]! + term;
    }
  }
  return score;
}

function similaritySearch(query: PyValue, corpus: string[], k: PyValue): PyValue {
  const tokens = (t: string) => splitWhitespace(t.replaceAll('_', ' ').toLowerCase());
  const q = tokens(needQuery(query));
  const scores = bm25PlusScores(
    corpus.map((c) => tokens(c)),
    q,
  );
  const ranked = scores.map((s, i) => [s, corpus[i]!] as const);
  ranked.sort((x, y) => y[0] - x[0]);
  if (typeof k !== 'bigint' && typeof k !== 'boolean') throw new PyException('TypeError', 'slice indices must be integers or None or have an __index__ method');
  const kk = Number(typeof k === 'boolean' ? (k ? 1n : 0n) : k);
  const top = kk >= 0 ? ranked.slice(0, kk) : ranked.slice(0, Math.max(0, ranked.length + kk));
  return dict({ ranked_results: top.map(([s, c]) => new PyTuple([s, c])) });
}

function needQuery(q: PyValue): string {
  if (typeof q !== 'string') throw new PyException('AttributeError', `'${typeName(q)}' object has no attribute 'replace'`);
  return q;
}

interface Store {
  max: number;
  maxLen: number;
  full: string;
  added: string;
  cleared: string;
}
const CORE: Store = {
  max: 7,
  maxLen: 300,
  full: 'Core memory is full. Please clear some entries.',
  added: 'Key-value pair added.',
  cleared: 'Short term memory cleared.',
};
const ARCHIVAL: Store = {
  max: 50,
  maxLen: 2000,
  full: 'Long term memory is full. Please clear some entries.',
  added: 'Key added.',
  cleared: 'Long term memory cleared.',
};

export class MemoryKv extends ApiInstance {
  coreMemory: PyValue = new PyDict();
  archivalMemory: PyValue = new PyDict();

  loadScenario(s: PyDict): void {
    if (s.size === 0) return;
    this.coreMemory = pyDeepCopy(s.item('core_memory'));
    this.archivalMemory = pyDeepCopy(s.item('archival_memory'));
  }

  stateAttrs(): [string, PyValue][] {
    return [
      ['core_memory', this.coreMemory],
      ['archival_memory', this.archivalMemory],
    ];
  }

  private mem(which: 'core' | 'archival'): PyDict {
    return needDict(which === 'core' ? this.coreMemory : this.archivalMemory, 'keys');
  }

  add(which: 'core' | 'archival', keyArg: PyValue, valueArg: PyValue): PyValue {
    const st = which === 'core' ? CORE : ARCHIVAL;
    const key = pyStr(keyArg);
    const value = pyStr(valueArg);
    const m = this.mem(which);
    if (m.size >= st.max) return dict({ error: st.full });
    if (pyLen(value) > BigInt(st.maxLen)) return dict({ error: `Entry is too long. Please shorten the entry to less than ${st.maxLen} characters.` });
    if (!KEY_FORMAT.test(key)) return dict({ error: 'Key must be in snake_case format and cannot contain spaces.' });
    if (m.has(key)) return dict({ error: 'Key name must be unique.' });
    m.set(key, value);
    return dict({ status: st.added });
  }

  remove(which: 'core' | 'archival', key: PyValue): PyValue {
    const m = this.mem(which);
    if (m.has(key)) {
      m.delete(key);
      return dict({ status: 'Key removed.' });
    }
    return dict({ error: 'Key not found.' });
  }

  replace(which: 'core' | 'archival', keyArg: PyValue, valueArg: PyValue): PyValue {
    const st = which === 'core' ? CORE : ARCHIVAL;
    const key = pyStr(keyArg);
    const value = pyStr(valueArg);
    const m = this.mem(which);
    if (!m.has(key)) return dict({ error: 'Key not found.' });
    if (pyLen(value) > BigInt(st.maxLen)) return dict({ error: `Entry is too long. Please shorten the entry to less than ${st.maxLen} characters.` });
    m.set(key, value);
    return dict({ status: 'Key replaced.' });
  }

  clear(which: 'core' | 'archival'): PyValue {
    if (which === 'core') this.coreMemory = new PyDict();
    else this.archivalMemory = new PyDict();
    return dict({ status: (which === 'core' ? CORE : ARCHIVAL).cleared });
  }

  retrieve(which: 'core' | 'archival', key: PyValue): PyValue {
    const m = this.mem(which);
    if (!m.has(key)) return dict({ error: 'Key not found.' });
    return dict({ value: m.item(key) });
  }

  listKeys(which: 'core' | 'archival'): PyValue {
    return dict({ keys: this.mem(which).keys() });
  }

  keySearch(which: 'core' | 'archival', query: PyValue, k: PyValue): PyValue {
    const keys = this.mem(which).keys();
    this.env.spend(keys.length);
    return similaritySearch(
      query,
      keys.map((x) => pyStr(x)),
      k,
    );
  }
}

type KV = MemoryKv;
const kvMethods = (w: 'core' | 'archival') => ({
  [`${w}_memory_add`]: method<KV>(['key', 'value'], (s, [a, b]) => s.add(w, a!, b!)),
  [`${w}_memory_remove`]: method<KV>(['key'], (s, [a]) => s.remove(w, a!)),
  [`${w}_memory_replace`]: method<KV>(['key', 'value'], (s, [a, b]) => s.replace(w, a!, b!)),
  [`${w}_memory_clear`]: method<KV>([], (s) => s.clear(w)),
  [`${w}_memory_retrieve`]: method<KV>(['key'], (s, [a]) => s.retrieve(w, a!)),
  [`${w}_memory_list_keys`]: method<KV>([], (s) => s.listKeys(w)),
  [`${w}_memory_key_search`]: method<KV>(['query', ['k', () => 5n]], (s, [a, b]) => s.keySearch(w, a!, b!)),
});

export const MemoryKvClass: ApiClass<KV> = {
  name: 'MemoryAPI_kv',
  create: (env: BfclEnv) => new MemoryKv(env),
  methods: {
    ...kvMethods('core'),
    core_memory_retrieve_all: method<KV>([], (s) => s.coreMemory),
    ...kvMethods('archival'),
  },
};

const MAX_MEMORY = 10000n;

export class MemoryRecSum extends ApiInstance {
  memory: PyValue = '';

  loadScenario(s: PyDict): void {
    if (s.size === 0) return;
    const m = s.item('memory');
    if (typeof m !== 'string') throw new PyException('AssertionError', `Memory data should be a string, but got <class '${typeName(m)}'> instead.`);
    this.memory = m;
  }

  stateAttrs(): [string, PyValue][] {
    return [['memory', this.memory]];
  }

  private current(): string {
    if (typeof this.memory !== 'string') throw new PyException('TypeError', 'memory is not a str');
    return this.memory;
  }

  append(textArg: PyValue): PyValue {
    const text = pyStr(textArg);
    if (pyLen(this.current() + text) > MAX_MEMORY) {
      return dict({ error: `Entry will be too long after appending. Please shorten the entry to less than ${MAX_MEMORY} characters.` });
    }
    this.memory = this.current() + text;
    return dict({ status: 'Memory appended.' });
  }

  update(textArg: PyValue): PyValue {
    const text = pyStr(textArg);
    if (pyLen(text) > MAX_MEMORY)
      return dict({ error: `Entry will be too long after updating. Please shorten the entry to less than ${MAX_MEMORY} characters.` });
    this.memory = text;
    return dict({ status: 'Memory updated.' });
  }

  clear(): PyValue {
    this.memory = '';
    return dict({ status: 'Short term memory cleared.' });
  }

  replace(oldArg: PyValue, newArg: PyValue): PyValue {
    const oldText = pyStr(oldArg);
    const newText = pyStr(newArg);
    const mem = this.current();
    if (!mem.includes(oldText)) return dict({ error: `Text '${oldText}' not found in memory.` });
    if (pyLen(newText) > MAX_MEMORY)
      return dict({ error: `Entry will be too long after replacing. Please shorten the entry to less than ${MAX_MEMORY} characters.` });
    if (oldText === '') {
      const cps = [...mem];
      if ((cps.length + 1) * newText.length > 50_000_000) throw new PyException('MemoryError', '');
      this.memory = newText + cps.map((c) => c + newText).join('');
    } else this.memory = mem.split(oldText).join(newText);
    return dict({ status: 'Memory updated.' });
  }

  retrieve(): PyValue {
    if (!truthy(this.memory)) return dict({ error: 'Memory is empty.' });
    return dict({ memory_content: this.memory });
  }
}

type RS = MemoryRecSum;
export const MemoryRecSumClass: ApiClass<RS> = {
  name: 'MemoryAPI_rec_sum',
  create: (env: BfclEnv) => new MemoryRecSum(env),
  methods: {
    memory_append: method<RS>(['text'], (s, [a]) => s.append(a!)),
    memory_clear: method<RS>([], (s) => s.clear()),
    memory_replace: method<RS>(['old_text', 'new_text'], (s, [a, b]) => s.replace(a!, b!)),
    memory_retrieve: method<RS>([], (s) => s.retrieve()),
    memory_update: method<RS>(['text'], (s, [a]) => s.update(a!)),
  },
};
