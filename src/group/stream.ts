// The streaming advantage engine behind `arbiter advantages`: records go in one by one, output
// comes out in input order, one per input. Group-scope estimators compute a group as soon as it is
// complete (`group_size` lines), so memory is bounded by the groups still open; otherwise groups
// close at the end of the batch (`batch_size` lines) or of the input. Batch-scope estimators
// (whitening, batch std) hold the whole batch.
import type { AdvantageConfig } from './config.js';
import { byGroup, computeBatch, computeGroup } from './compute.js';
import { filterBatch, filterEqual } from './filters.js';
import { inPlaceKind, outputLine, outputRecord } from './output.js';
import { badRow, emptyRow, toRow, type GroupKey, type MaskReason, type Row } from './rows.js';
import { parseJsonExact } from '../core/json.js';

export interface AdvantageCounts {
  lines: number;
  groups: number;
  /** Groups closed with fewer than group_size lines (end of batch or input). */
  short_groups: number;
  masked: number;
  mask_reasons: Partial<Record<MaskReason | 'internal_error', number>>;
  /** Groups dropped by a group filter, by reason (equal_scores, low_std, high_std); present when a filter is configured. */
  filtered_groups?: Record<string, number>;
  /** Lines of those groups (each written with advantage 0 and `filtered`). */
  filtered_lines?: number;
}

/** Renders a finished row: a JSONL line (from its text) or an object. */
type Emit<T> = (row: Row) => T;

export class AdvantageEngine<T = string> {
  private readonly cfg: AdvantageConfig;
  private readonly emit: Emit<T>;
  /** Drop parsed records once their text can be written back in place (the JSONL engine). */
  private readonly dropRecords: boolean;
  private queue: Row[] = [];
  private head = 0;
  private readonly open = new Map<GroupKey, Row[]>();
  private closed = new Set<GroupKey>();
  private batch: Row[] = [];
  private inBatch = 0;
  /** Finished rows, rendered when taken (so a batch finishing at once is not rendered at once). */
  private ready: Row[] = [];
  private readyHead = 0;
  readonly counts: AdvantageCounts = { lines: 0, groups: 0, short_groups: 0, masked: 0, mask_reasons: {} };

  constructor(cfg: AdvantageConfig, emit: Emit<T>, dropRecords = false) {
    this.cfg = cfg;
    if (cfg.filters.equal || cfg.filters.top) {
      this.counts.filtered_groups = {};
      this.counts.filtered_lines = 0;
    }
    this.emit = emit;
    this.dropRecords = dropRecords;
  }

  /** Adds one JSONL line (text undefined = over the size cap, `bytes` long). */
  pushLine(text: string | undefined, lineNo: number, bytes = 0): void {
    if (text === undefined) {
      this.add(badRow(emptyRow(null, 'line', lineNo), `line is ${bytes} bytes, over the size limit`, 'limit_exceeded'));
      return;
    }
    let rec: unknown;
    try {
      rec = parseJsonExact(text); // uids and other integers past 2^53 exactly (BigInt)
    } catch (e) {
      this.add(badRow(emptyRow(null, 'line', lineNo), `invalid JSON: ${(e as Error).message}`));
      return;
    }
    const row = toRow(rec, 'line', lineNo, this.cfg);
    if (row.rec) {
      row.text = text;
      row.inPlace = inPlaceKind(row.rec);
      // the numbers are read; the text is all the output needs (gigpo, trl read no more either)
      if (this.dropRecords && row.inPlace) row.rec = null;
    }
    this.add(row);
  }

  /** Adds one record (library / HTTP); `src[index]` names it in messages. */
  pushRecord(rec: unknown, src: string, index: number): void {
    this.add(toRow(rec, src, index, this.cfg));
  }

  private add(row: Row): void {
    this.queue.push(row);
    this.counts.lines++;
    const c = this.cfg;
    if (c.scope === 'batch') {
      this.batch.push(row);
    } else if (row.group === undefined) {
      row.done = true; // masked before it could join a group
    } else if (this.closed.has(row.group)) {
      badRow(
        row,
        `its uid already had group_size=${c.groupSize} lines in this batch (lines of a group must not exceed group_size; set batch_size when uids repeat across batches)`,
      );
      row.done = true;
    } else {
      let g = this.open.get(row.group);
      if (!g) this.open.set(row.group, (g = []));
      g.push(row);
      if (c.groupSize !== undefined && g.length === c.groupSize) {
        this.open.delete(row.group);
        this.closed.add(row.group);
        this.finishGroup(g, false);
      }
    }
    if (c.batchSize !== undefined && ++this.inBatch === c.batchSize) this.endBatch();
    if (row.done || this.queue[this.head]!.done) this.drain();
  }

  private countFiltered(by: Record<string, number>): void {
    const f = this.counts.filtered_groups!;
    for (const [k, n] of Object.entries(by)) f[k] = (f[k] ?? 0) + n;
  }

  private finishGroup(g: Row[], short: boolean): void {
    if (filterEqual(g, this.cfg)) this.countFiltered({ equal_scores: 1 });
    computeGroup(g, this.cfg);
    this.counts.groups++;
    if (short) this.counts.short_groups++;
    for (const r of g) r.done = true;
  }

  private endBatch(): void {
    this.inBatch = 0;
    if (this.cfg.scope === 'batch') {
      if (this.counts.filtered_groups) this.countFiltered(filterBatch(byGroup(this.batch), this.cfg));
      computeBatch(this.batch, this.cfg);
      const groups = new Set<GroupKey>();
      for (const r of this.batch) {
        if (r.group !== undefined) groups.add(r.group);
        r.done = true;
      }
      this.counts.groups += groups.size;
      this.batch = [];
    } else {
      for (const g of this.open.values()) this.finishGroup(g, this.cfg.groupSize !== undefined);
      this.open.clear();
      this.closed = new Set();
    }
  }

  private drain(): void {
    const q = this.queue;
    let h = this.head;
    while (h < q.length && q[h]!.done) {
      const r = q[h]!;
      q[h++] = undefined as never;
      // a non-finite advantage left unmasked is written masked internal_error (advantageFields): counted so
      const reason = r.masked ?? (Number.isFinite(r.adv) ? undefined : 'internal_error');
      if (r.filtered) this.counts.filtered_lines!++;
      if (reason) {
        this.counts.masked++;
        this.counts.mask_reasons[reason] = (this.counts.mask_reasons[reason] ?? 0) + 1;
      }
      this.ready.push(r);
    }
    this.head = h;
    if (h === q.length) {
      q.length = 0;
      this.head = 0;
    } else if (h > 4096 && h * 2 > q.length) {
      this.queue = q.slice(h);
      this.head = 0;
    }
  }

  /** End of input: closes every open group and the last batch. */
  end(): void {
    if (this.batch.length || this.open.size) this.endBatch();
    this.drain();
  }

  /** Up to `max` outputs ready so far, in input order (and forgets them). */
  take(max = Infinity): T[] {
    const rs = this.ready;
    const end = Math.min(rs.length, this.readyHead + max);
    const out = new Array<T>(end - this.readyHead);
    for (let i = this.readyHead; i < end; i++) {
      out[i - this.readyHead] = this.emit(rs[i]!);
      rs[i] = undefined as never;
    }
    this.readyHead = end;
    if (end === rs.length) {
      rs.length = 0;
      this.readyHead = 0;
    }
    return out;
  }
}

/** An engine that renders JSONL lines. */
export function lineEngine(cfg: AdvantageConfig): AdvantageEngine<string> {
  return new AdvantageEngine(cfg, (row) => outputLine(row, cfg.tokenLevel, row.at), true);
}

/** An engine that renders output objects (the input record plus the advantage fields). */
export function recordEngine(cfg: AdvantageConfig): AdvantageEngine<Record<string, unknown>> {
  return new AdvantageEngine(cfg, (row) => outputRecord(row, cfg.tokenLevel, row.at));
}
