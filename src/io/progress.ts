// The one progress line of every long command (score, eval, search), tqdm-like: label, percent and
// bar when the fraction done is known, count (of the total when known), [elapsed<ETA, rate], then
// the command's own figures. Rates below 1/s read as seconds per item. On a terminal the line is
// redrawn at most 10 times a second; forced elsewhere (--progress) it is one line a second. It goes
// to stderr only, and never while JSONL goes to stdout on the same terminal.

/** What one progress line shows. */
export interface ProgressState {
  /** Items finished. */
  done: number;
  /** Items in all, when known (e.g. search's rows). */
  total?: number;
  /** Fraction finished in [0, 1] when the total is not a count (e.g. bytes of the input read). */
  fraction?: number;
  elapsedS: number;
  /** Shown before the line ("score", "eval gsm8k"). */
  label?: string;
  /** Word after the count: "graded", "problems"; default "done". */
  noun?: string;
  /** The command's own figures ("1 invalid, mean 0.512"). */
  extra?: string;
  /** The last line of a run: ETA 00:00. */
  final?: boolean;
}

/** Seconds as mm:ss, or h:mm:ss from an hour on (tqdm's form). */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const two = (x: number) => String(x).padStart(2, '0');
  return h ? `${h}:${two(m)}:${two(s % 60)}` : `${two(m)}:${two(s % 60)}`;
}

function sig3(x: number): string {
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2);
}

/** Items per second, or seconds per item below one a second; `?` before the first item. */
export function formatRate(done: number, elapsedS: number): string {
  if (done <= 0 || elapsedS <= 0) return '? items/s';
  const rate = done / elapsedS;
  return rate >= 1 ? `${sig3(rate)} items/s` : `${sig3(elapsedS / done)} s/item`;
}

const BAR = 20;

/** The progress line's text (no control characters). */
export function formatProgress(st: ProgressState): string {
  const frac = st.total !== undefined && st.total > 0 ? st.done / st.total : st.fraction;
  const parts: string[] = [];
  if (st.label) parts.push(`${st.label}:`);
  let eta = '?';
  if (frac !== undefined && Number.isFinite(frac)) {
    const f = Math.min(1, Math.max(0, st.final ? 1 : frac));
    const filled = Math.round(f * BAR);
    parts.push(`${Math.floor(f * 100)}%|${'#'.repeat(filled)}${' '.repeat(BAR - filled)}|`);
    if (f > 0) eta = formatDuration((st.elapsedS * (1 - f)) / f);
  }
  if (st.final) eta = formatDuration(0);
  parts.push(`${st.done}${st.total !== undefined ? `/${st.total}` : ''} ${st.noun ?? 'done'}`);
  const time = `[${formatDuration(st.elapsedS)}<${eta}, ${formatRate(st.done, st.elapsedS)}${st.extra ? `, ${st.extra}` : ''}]`;
  parts.push(time);
  return parts.join(' ');
}

/**
 * Whether to show progress: `flag` is --progress (true), --no-progress (false) or neither; the
 * line goes to stderr, so by default only when stderr is a terminal, and never when the command's
 * JSONL goes to stdout on a terminal while stderr is one too (the lines would interleave).
 */
export function progressEnabled(
  flag: boolean | undefined,
  jsonlOnStdout = false,
  tty: { stdout: boolean; stderr: boolean } = { stdout: Boolean(process.stdout.isTTY), stderr: Boolean(process.stderr.isTTY) },
): boolean {
  if (flag === false) return false;
  if (jsonlOnStdout && tty.stdout && tty.stderr) return false;
  return flag ?? tty.stderr;
}

export interface ProgressLineOptions {
  enabled: boolean;
  label?: string;
  noun?: string;
  total?: number;
  /** Fraction done when there is no count total (read on each redraw). */
  fraction?: () => number | undefined;
  /** The command's own figures (read on each redraw). */
  extra?: () => string;
  /** Redraw one line with \r (a terminal) or write whole lines (default: stderr is a terminal). */
  tty?: boolean;
  /** Milliseconds clock (default performance.now). */
  now?: () => number;
  /** Where the text goes (default stderr). */
  write?: (s: string) => void;
}

/** A progress line for one run: tick() per item (or update(n)), done() at the end. */
export class ProgressLine {
  private n = 0;
  private last = Number.NEGATIVE_INFINITY;
  private readonly t0: number;
  private readonly now: () => number;
  private readonly tty: boolean;
  private readonly out: (s: string) => void;
  constructor(private readonly o: ProgressLineOptions) {
    this.now = o.now ?? (() => performance.now());
    this.t0 = this.now();
    this.tty = o.tty ?? Boolean(process.stderr.isTTY);
    this.out = o.write ?? ((s) => void process.stderr.write(s));
  }

  get count(): number {
    return this.n;
  }

  tick(k = 1): void {
    this.update(this.n + k);
  }

  /** Sets the count of items finished and redraws when due. */
  update(n: number): void {
    this.n = n;
    if (!this.o.enabled) return;
    const now = this.now();
    if (now - this.last < (this.tty ? 100 : 1000)) return;
    this.last = now;
    this.draw(false);
  }

  private draw(final: boolean): void {
    const text = formatProgress({
      done: this.n,
      elapsedS: (this.now() - this.t0) / 1000,
      final,
      ...(this.o.total !== undefined ? { total: this.o.total } : {}),
      ...(this.o.label ? { label: this.o.label } : {}),
      ...(this.o.noun ? { noun: this.o.noun } : {}),
      ...(this.o.fraction ? optional('fraction', this.o.fraction()) : {}),
      ...(this.o.extra ? { extra: this.o.extra() } : {}),
    });
    this.out(this.tty ? `\r${text}\x1b[K${final ? '\n' : ''}` : `${text}\n`);
  }

  /** The run's last line (kept on screen, as tqdm leaves it). */
  done(): void {
    if (this.o.enabled) this.draw(true);
  }
}

function optional<K extends string, V>(k: K, v: V | undefined): { [P in K]?: V } {
  return (v === undefined ? {} : { [k]: v }) as { [P in K]?: V };
}
