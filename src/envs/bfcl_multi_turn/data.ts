// BFCL multi-turn's data for the environment: the entries of the four categories (base,
// long_context, miss_func, miss_param) with their ground truths, and the function docs of each API
// class, read once per process from $ARBITER_BFCL_DIR (else $ARBITER_DATA/bfcl, src/io/data.ts). An
// entry's initial_config is kept as Python-exact JSON text (5000.0 stays a float), which is what the
// bfcl_multi_turn grader reads without ambiguity.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { locateData } from '../../io/data.js';
import { jsonDumps } from '../../py/format.js';
import { loads } from '../../py/json.js';
import { PyDict, type PyValue } from '../../py/values.js';
import { EnvDataError } from '../../agents/env.js';

export const BFCL_CATEGORIES = ['base', 'long_context', 'miss_func', 'miss_param'] as const;
export type BfclCategory = (typeof BFCL_CATEGORIES)[number];

/** Environment variable naming the folder that holds multi_turn/ (BFCL's data folder; else $ARBITER_DATA/bfcl). */
export const BFCL_DIR_ENV = 'ARBITER_BFCL_DIR';

/** BFCL's MULTI_TURN_FUNC_DOC_FILE_MAPPING: the function-doc file of each class. */
export const FUNC_DOC_FILES: Readonly<Record<string, string>> = {
  GorillaFileSystem: 'gorilla_file_system.json',
  MathAPI: 'math_api.json',
  MessageAPI: 'message_api.json',
  TwitterAPI: 'posting_api.json',
  TicketAPI: 'ticket_api.json',
  TradingBot: 'trading_bot.json',
  TravelAPI: 'travel_booking.json',
  VehicleControlAPI: 'vehicle_control.json',
  WebSearchAPI: 'web_search.json',
  MemoryAPI_kv: 'memory_kv.json',
  MemoryAPI_vector: 'memory_vector.json',
  MemoryAPI_rec_sum: 'memory_rec_sum.json',
};

/** One function doc as BFCL's func_doc files hold it (JSON), and as Python reads it (for repr). */
export interface FuncDoc {
  name: string;
  json: Record<string, unknown>;
  py: PyValue;
}

/** One entry, ready for an episode. */
export interface BfclEntry {
  id: string;
  category: BfclCategory;
  /** Position in its category file. */
  index: number;
  question: { role: string; content: string }[][];
  /** Python-exact JSON text of the entry's initial_config. */
  initialConfigText: string;
  involvedClasses: string[];
  groundTruth: string[][];
  /** miss_func: turn index -> names of the functions held back until that turn. */
  missedFunction: Record<string, string[]>;
  /** The entry as the dataset line holds it (with ground_truth added). */
  raw: Record<string, unknown>;
}

export class BfclDataError extends EnvDataError {
  override name = 'BfclDataError';
}

let overrideDir: string | undefined;

/** Sets the data folder for this process (the CLI's --bfcl-dir); undefined restores the search. Clears the caches. */
export function setBfclDataDir(dir: string | undefined): void {
  overrideDir = dir === undefined ? undefined : resolve(dir);
  categories.clear();
  docs.clear();
}

export function resolveBfclDir(): string {
  if (overrideDir) return overrideDir;
  return locateData({ what: 'BFCL data', folder: 'bfcl', probe: 'multi_turn/func_doc', env: BFCL_DIR_ENV }, (m) => new BfclDataError(m));
}

function readLines(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new BfclDataError(`cannot read ${path}: ${(e as Error).message}`);
  }
  return text.split('\n').filter((l) => l.trim() !== '');
}

const categories = new Map<BfclCategory, BfclEntry[]>();

const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** Reads one entry object (a dataset line, or one given in a reset request); throws Error naming the field. */
export function readEntry(raw: Record<string, unknown>, configText: string, category: BfclCategory, index: number): BfclEntry {
  const id = raw.id;
  if (typeof id !== 'string' || id === '') throw new Error('entry.id must be a string');
  const q = raw.question;
  if (
    !Array.isArray(q) ||
    !q.every((t) => Array.isArray(t) && t.every((m) => m && typeof m === 'object' && typeof m.content === 'string' && typeof m.role === 'string'))
  )
    throw new Error('entry.question must be a list of turns, each a list of {role, content} messages');
  if (!isStringList(raw.involved_classes)) throw new Error('entry.involved_classes must be a list of class names');
  const gt = raw.ground_truth;
  if (!Array.isArray(gt) || !gt.every(isStringList)) throw new Error('entry.ground_truth must be a list of turns, each a list of call strings');
  const missed: Record<string, string[]> = {};
  if (raw.missed_function !== undefined) {
    const m = raw.missed_function;
    if (!m || typeof m !== 'object' || Array.isArray(m)) throw new Error('entry.missed_function must map turn indices to function names');
    for (const [k, v] of Object.entries(m)) {
      if (!/^\d+$/.test(k) || !isStringList(v)) throw new Error(`entry.missed_function["${k}"] must be a list of function names under a turn index`);
      if (Number(k) >= q.length) throw new Error(`entry.missed_function["${k}"] names a turn the entry does not have (${q.length} turns)`);
      if ((q[Number(k)] as unknown[]).length !== 0)
        throw new Error(`entry.question[${k}] must be empty: BFCL adds the held-back functions at that turn instead of a user message`);
      missed[k] = v;
    }
  }
  if (q.length === 0) throw new Error('entry.question has no turns');
  return {
    id,
    category,
    index,
    question: q as BfclEntry['question'],
    initialConfigText: configText,
    involvedClasses: raw.involved_classes,
    groundTruth: gt as string[][],
    missedFunction: missed,
    raw,
  };
}

/** The Python-exact JSON text of a value held in a parsed line. */
function configTextOf(line: PyValue): string {
  const v = line instanceof PyDict ? line.get('initial_config') : undefined;
  return jsonDumps(v instanceof PyDict ? v : new PyDict());
}

/** The entries of one category, with their ground truths (cached). */
export function loadCategory(category: BfclCategory): BfclEntry[] {
  const hit = categories.get(category);
  if (hit) return hit;
  const dir = join(resolveBfclDir(), 'multi_turn');
  const answers = new Map<string, unknown>();
  for (const l of readLines(join(dir, 'possible_answer', `BFCL_v4_multi_turn_${category}.json`))) {
    const a = JSON.parse(l) as { id: string; ground_truth: unknown };
    answers.set(a.id, a.ground_truth);
  }
  const out = readLines(join(dir, `BFCL_v4_multi_turn_${category}.json`)).map((l, i) => {
    const raw = JSON.parse(l) as Record<string, unknown>;
    const gt = answers.get(String(raw.id));
    if (gt === undefined) throw new BfclDataError(`no ground truth for ${String(raw.id)} in possible_answer/BFCL_v4_multi_turn_${category}.json`);
    try {
      return readEntry({ ...raw, ground_truth: gt }, configTextOf(loads(l)), category, i);
    } catch (e) {
      throw new BfclDataError(`BFCL_v4_multi_turn_${category}.json line ${i + 1}: ${(e as Error).message}`);
    }
  });
  categories.set(category, out);
  return out;
}

/** The category of an entry id (`multi_turn_miss_func_3` → miss_func), as BFCL derives it. */
export function categoryOfId(id: string): BfclCategory | undefined {
  const i = id.lastIndexOf('_');
  const c = (i < 0 ? id : id.slice(0, i)).replace(/^multi_turn_/, '');
  return (BFCL_CATEGORIES as readonly string[]).includes(c) ? (c as BfclCategory) : undefined;
}

const docs = new Map<string, FuncDoc[]>();

/** The function docs of one class, in file order (cached). */
export function funcDocs(className: string): FuncDoc[] {
  const hit = docs.get(className);
  if (hit) return hit;
  const file = Object.hasOwn(FUNC_DOC_FILES, className) ? FUNC_DOC_FILES[className] : undefined;
  if (!file) throw new BfclDataError(`BFCL has no function docs for a class named ${className}`);
  const out = readLines(join(resolveBfclDir(), 'multi_turn', 'func_doc', file)).map((l) => {
    const json = JSON.parse(l) as Record<string, unknown>;
    if (typeof json.name !== 'string') throw new BfclDataError(`func_doc/${file}: a function doc without a name`);
    return { name: json.name, json, py: loads(l) };
  });
  docs.set(className, out);
  return out;
}
