// Test helpers: load code/python graders from the built package (registering the types directly,
// so these tests do not depend on other grader areas), and paths to the shared data sets.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { getGraderType, loadGrader, registerGraderType } from '../../dist/core/registry.js';
import { Services } from '../../dist/core/services.js';
import { code } from '../../dist/graders/code/code.js';
import { pythonGrader } from '../../dist/graders/code/python-grader.js';

if (!getGraderType('code')) registerGraderType(code);
if (!getGraderType('python')) registerGraderType(pythonGrader);

export { loadGrader, Services };

export const PROJECT = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');

export interface HumanEvalItem {
  task_id: string;
  prompt: string;
  canonical_solution: string;
  test: string;
  entry_point: string;
}

export function humanEval(): HumanEvalItem[] {
  const text = gunzipSync(readFileSync(dataPath('humaneval/HumanEval.jsonl.gz'))).toString('utf8');
  return text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as HumanEvalItem);
}

export interface MbppItem {
  task_id: number;
  text: string;
  code: string;
  test_list: string[];
  test_setup_code: string;
  challenge_test_list: string[];
}

export function mbpp(): MbppItem[] {
  return readFileSync(dataPath('mbpp/mbpp.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as MbppItem);
}

/**
 * Pids of processes currently running as one of the given sandbox uids (by default any uid of the
 * sandbox range; pass a pool's `uids` to ignore other pools on a shared machine).
 */
export function sandboxUidProcesses(uids?: readonly number[], base = 1_990_000_000, span = 65_536): number[] {
  const out: number[] = [];
  for (const d of require_readdir('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const st = readFileSync(`/proc/${d}/status`, 'utf8');
      const m = /^Uid:\s+(\d+)/m.exec(st);
      const uid = m ? Number(m[1]) : -1;
      if (uids ? uids.includes(uid) : uid >= base && uid < base + span) out.push(Number(d));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

import { readdirSync } from 'node:fs';
import { dataPath } from '../helpers/data.js';
function require_readdir(p: string): string[] {
  return readdirSync(p);
}
