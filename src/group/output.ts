// Writes a row's advantage back onto its record: `advantage`, `token_advantages` for token-level
// estimators, and for a masked row `advantage_masked: true`, the reason, and (for a problem with the
// line itself) `advantage_error: {kind, message}`. JSONL lines are extended in place as text when
// they do not already carry these fields, which keeps the input's own serialisation byte for byte.
import { stringifyExact } from '../core/json.js';
import { tokenAdvantages } from './estimators.js';
import { whereOf, type Row } from './rows.js';

const OUTPUT_KEYS = ['advantage', 'token_advantages', 'advantage_masked', 'advantage_mask_reason', 'advantage_error'] as const;

export interface AdvantageFields {
  advantage: number;
  token_advantages?: number[];
  advantage_masked?: true;
  advantage_mask_reason?: string;
  advantage_error?: { kind: string; message: string };
}

function tokens(row: Row): number[] {
  if (row.whiten && !row.masked) return tokenAdvantages(row);
  return row.len > 0 ? new Array<number>(row.len).fill(0) : [];
}

/** The fields added to a row's record. */
export function advantageFields(row: Row, tokenLevel: boolean): AdvantageFields {
  const adv = row.masked ? 0 : row.adv;
  if (!Number.isFinite(adv)) {
    // never expected: every estimator guards its divisions; refuse to emit a non-finite advantage
    return {
      advantage: 0,
      ...(tokenLevel ? { token_advantages: [] } : {}),
      advantage_masked: true,
      advantage_mask_reason: 'internal_error',
      advantage_error: { kind: 'internal_error', message: `${whereOf(row)}: computed a non-finite advantage (${adv})` },
    };
  }
  const f: AdvantageFields = { advantage: adv === 0 ? 0 : adv };
  if (tokenLevel) f.token_advantages = tokens(row);
  if (row.masked) {
    f.advantage_masked = true;
    f.advantage_mask_reason = row.masked;
    if (row.error) f.advantage_error = row.error;
  }
  return f;
}

/** The output record (a new object; the input is not changed). */
export function outputRecord(row: Row, tokenLevel: boolean, fallbackId?: unknown): Record<string, unknown> {
  const f = advantageFields(row, tokenLevel);
  if (row.rec) return { ...row.rec, ...f };
  return { id: fallbackId ?? null, ...f };
}

/**
 * How a parsed line can be written back: 1 = its text extended in place, 2 = the same for an empty
 * object, 0 = re-serialised (it already has one of our fields, which are then replaced).
 */
export function inPlaceKind(rec: Record<string, unknown>): 0 | 1 | 2 {
  for (const k of OUTPUT_KEYS) if (Object.hasOwn(rec, k)) return 0;
  for (const _ in rec) return 1;
  return 2;
}

/** One output JSONL line (without the newline) for a row parsed from `row.text`. */
export function outputLine(row: Row, tokenLevel: boolean, lineNo: number): string {
  const text = row.text;
  if (row.inPlace && text !== undefined) {
    let end = text.length;
    while (end > 0 && text.charCodeAt(end - 1) <= 32) end--;
    const head = text.slice(0, end - 1) + (row.inPlace === 1 ? ',' : '');
    if (!row.masked && !tokenLevel && Number.isFinite(row.adv)) return `${head}"advantage":${row.adv === 0 ? '0' : String(row.adv)}}`;
    const f = advantageFields(row, tokenLevel);
    let extra = `"advantage":${String(f.advantage)}`;
    if (f.token_advantages) extra += `,"token_advantages":${JSON.stringify(f.token_advantages)}`;
    if (f.advantage_masked) {
      extra += `,"advantage_masked":true,"advantage_mask_reason":${JSON.stringify(f.advantage_mask_reason)}`;
      if (f.advantage_error) extra += `,"advantage_error":${JSON.stringify(f.advantage_error)}`;
    }
    // the text parsed as an object, so (trailing whitespace aside) it ends with its closing brace
    return `${head}${extra}}`;
  }
  return stringifyExact(outputRecord(row, tokenLevel, lineNo));
}
