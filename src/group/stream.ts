// The streaming advantage engine behind `arbiter advantages`: records go in one by one, output
// comes out in input order, one per input. Group-scope estimators compute a group as soon as it is
// complete (`group_size` lines), so memory is bounded by the groups still open; otherwise groups
// close at the end of the batch (`batch_size` lines) or of the input. Batch-scope estimators
// (whitening, batch std) hold the whole batch.
import type { AdvantageConfig } from './config.js';
import { computeBatch, computeGroup } from './estimators.js';
import { outputLine, outputRecord } from './output.js';
import { badRow, emptyRow, toRow, type MaskReason, type Row } from './rows.js';

interface Slot {
  row: Row;
  text?: string;
  lineNo: number;
  done: boolean;
}

export interface AdvantageCounts {
  lines: number;
  groups: number;
  /** Groups closed with fewer than group_size lines (end of batch or input). */
  short_groups: number;
  masked: number;
  mask_reasons: Partial<Record<MaskReason | 'internal_error', number>>;
}

/** Renders a finished slot: a JSONL line (from text) or an object. */
type Emit<T> = (row: Row, text: string | undefined, lineNo: number) => T;

export class AdvantageEngine<T = string> {
  private readonly cfg: AdvantageConfig;
  private readonly emit: Emit<T>;
  private queue: Slot[] = [];
  private head = 0;
  private readonly open = new Map<string, Slot[]>();
  private closed = new Set<string>();
  private batch: Slot[] = [];
  private inBatch = 0;
  private ready: T[] = [];
  readonly counts: AdvantageCounts = { lines: 0, groups: 0, short_groups: 0, masked: 0, mask_reasons: {} };

  constructor(cfg: AdvantageConfig, emit: Emit<T>) {
    this.cfg = cfg;
    this.emit = emit;
  }

  /** Adds one JSONL line (text undefined = over the size cap, `bytes` long). */
  pushLine(text: string | undefined, lineNo: number, bytes = 0): void {
    let row: Row;
    if (text === undefined) row = badRow(emptyRow(null, `line ${lineNo}`), `line is ${bytes} bytes, over the size limit`, 'limit_exceeded');
    else {
      let rec: unknown;
      try {
        rec = JSON.parse(text);
      } catch (e) {
        this.add(badRow(emptyRow(null, `line ${lineNo}`), `invalid JSON: ${(e as Error).message}`), undefined, lineNo);
        return;
      }
      row = toRow(rec, `line ${lineNo}`, this.cfg);
    }
    this.add(row, text, lineNo);
  }

  /** Adds one record (library / HTTP); `where` names it in messages. */
  pushRecord(rec: unknown, where: string, index: number): void {
    this.add(toRow(rec, where, this.cfg), undefined, index);
  }

  private add(row: Row, text: string | undefined, lineNo: number): void {
    const slot: Slot = { row, lineNo, done: false };
    if (text !== undefined) slot.text = text;
    this.queue.push(slot);
    this.counts.lines++;
    const c = this.cfg;
    if (c.scope === 'batch') {
      this.batch.push(slot);
    } else if (row.group === undefined) {
      slot.done = true; // masked before it could join a group
    } else if (this.closed.has(row.group)) {
      badRow(row, `its uid already had group_size=${c.groupSize} lines in this batch (lines of a group must not exceed group_size; set batch_size when uids repeat across batches)`);
      slot.done = true;
    } else {
      let g = this.open.get(row.group);
      if (!g) this.open.set(row.group, (g = []));
      g.push(slot);
      if (c.groupSize !== undefined && g.length === c.groupSize) {
        this.open.delete(row.group);
        this.closed.add(row.group);
        this.finishGroup(g, false);
      }
    }
    if (c.batchSize !== undefined && ++this.inBatch === c.batchSize) this.endBatch();
    this.drain();
  }

  private finishGroup(g: Slot[], short: boolean): void {
    computeGroup(
      g.map((s) => s.row),
      this.cfg,
    );
    this.counts.groups++;
    if (short) this.counts.short_groups++;
    for (const s of g) s.done = true;
  }

  private endBatch(): void {
    this.inBatch = 0;
    if (this.cfg.scope === 'batch') {
      const rows = this.batch.map((s) => s.row);
      computeBatch(rows, this.cfg);
      const groups = new Set<string>();
      for (const r of rows) if (r.group !== undefined) groups.add(r.group);
      this.counts.groups += groups.size;
      for (const s of this.batch) s.done = true;
      this.batch = [];
    } else {
      for (const g of this.open.values()) this.finishGroup(g, this.cfg.groupSize !== undefined);
      this.open.clear();
      this.closed = new Set();
    }
  }

  private drain(): void {
    const q = this.queue;
    while (this.head < q.length && q[this.head]!.done) {
      const s = q[this.head]!;
      q[this.head++] = undefined as never;
      const r = s.row;
      if (r.masked) {
        this.counts.masked++;
        this.counts.mask_reasons[r.masked] = (this.counts.mask_reasons[r.masked] ?? 0) + 1;
      }
      this.ready.push(this.emit(r, s.text, s.lineNo));
    }
    if (this.head > 4096 && this.head * 2 > q.length) {
      this.queue = q.slice(this.head);
      this.head = 0;
    }
  }

  /** End of input: closes every open group and the last batch. */
  end(): void {
    if (this.batch.length || this.open.size) this.endBatch();
    this.drain();
  }

  /** Output ready so far, in input order (and forgets it). */
  take(): T[] {
    const r = this.ready;
    this.ready = [];
    return r;
  }
}

/** An engine that renders JSONL lines. */
export function lineEngine(cfg: AdvantageConfig): AdvantageEngine<string> {
  return new AdvantageEngine(cfg, (row, text, lineNo) => outputLine(row, cfg.tokenLevel, text, lineNo));
}

/** An engine that renders output objects (the input record plus the advantage fields). */
export function recordEngine(cfg: AdvantageConfig): AdvantageEngine<Record<string, unknown>> {
  return new AdvantageEngine(cfg, (row, _text, index) => outputRecord(row, cfg.tokenLevel, index));
}
