// Shared test data for the BFCL multi-turn tests: the four categories with their ground truths, a
// small made-up long-context extension file (arbiter does not ship BFCL's), and a grader factory.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadGrader } from '../../dist/index.js';
import { dataPath } from '../helpers/data.js';

const dir = `${dataPath('bfcl/multi_turn')}/`;
const lines = (f: string) =>
  readFileSync(dir + f, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

export interface Entry {
  id: string;
  initial_config: Record<string, unknown>;
  involved_classes: string[];
  ground_truth: string[][];
  [k: string]: unknown;
}

export const CATEGORIES = ['base', 'long_context', 'miss_func', 'miss_param'] as const;

export function loadCategory(cat: string): Entry[] {
  const answers = new Map(lines(`possible_answer/BFCL_v4_multi_turn_${cat}.json`).map((a: { id: string; ground_truth: string[][] }) => [a.id, a.ground_truth]));
  return lines(`BFCL_v4_multi_turn_${cat}.json`).map((e: Entry) => ({ ...e, ground_truth: answers.get(e.id)! }));
}

/** The raw JSON line of an entry (its initial_config keeps 5000.0 apart from 5000). */
export function rawLine(cat: string, id: string): string {
  return readFileSync(`${dir}BFCL_v4_multi_turn_${cat}.json`, 'utf8')
    .split('\n')
    .find((l) => l.includes(`"id": "${id}"`))!;
}

export const BASE_CONFIG = {
  type: 'bfcl_multi_turn',
  input: '{{sample.output_turns}}',
  reference: '{{item.ground_truth}}',
  initial_config: '{{item.initial_config}}',
  involved_classes: '{{item.involved_classes}}',
};

export function grader(extra: Record<string, unknown> = {}) {
  return loadGrader({ ...BASE_CONFIG, ...extra });
}

/**
 * A made-up long-context extension with every constant BFCL's long_context.py defines (not its
 * data): enough to exercise the code paths, so long_context entries can be graded in tests.
 */
export function writeSyntheticLongContext(): string {
  const data = {
    AUTOMOBILE_EXTENSION: ['AUTO1', 'AUTO2'],
    BOOKING_RECORD_EXTENSION: {
      booking_x1: {
        card_id: 'card_x1',
        travel_date: '2024-01-02',
        travel_from: 'SFO',
        travel_to: 'LAX',
        travel_class: 'economy',
        travel_cost: 120.0,
        transaction_id: 'tx1',
      },
    },
    CAR_STATUS_METADATA_EXTENSION: 'Made-up car metadata for tests.',
    CREDIT_CARD_EXTENSION: {
      card_x1: { card_number: '0000', expiration_date: '01/2030', cardholder_name: 'Test', card_verification_number: 1, balance: 1000.0 },
    },
    FILES_TAIL_USED: ['log.txt', 'report.txt'],
    FILE_CONTENT_EXTENSION: ' (made-up padding line)',
    INTERMEDIARY_CITIES: ['Town A', 'Town B'],
    LONG_WEATHER_EXTENSION: { '-1_day': { windSpeed: 1.0, humidity: 2.0 } },
    MA_20_EXTENSION: [1.0, 2.5],
    MA_5_EXTENSION: [3.0, 4.5],
    ORDER_DETAIL_EXTENSION: { note: 'Made-up note about {symbol}.' },
    PARKING_BRAKE_INSTRUCTION: 'Made-up instruction.',
    POPULATE_FILE_EXTENSION: ['padding_a.jpg', 'padding_b.jpg'],
    TECHNOLOGY_EXTENSION: ['TECH1'],
    TRANSACTION_HISTORY_EXTENSION: [{ type: 'deposit', amount: 1.0, timestamp: '2024-01-01 00:00:00' }],
    WATCH_LIST_EXTENSION: ['WL1', { __ellipsis__: true }],
  };
  const path = join(mkdtempSync(join(tmpdir(), 'arbiter-bfcl-')), 'long-context.json');
  writeFileSync(path, JSON.stringify(data));
  return path;
}
