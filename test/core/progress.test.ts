import { describe, expect, it } from 'vitest';
import { formatDuration, formatProgress, formatRate, ProgressLine, progressEnabled } from '../../dist/io/progress.js';
import { runCli, ROOT } from '../helpers/cli.js';

describe('progress format (pure)', () => {
  it('durations read mm:ss, and h:mm:ss from an hour on', () => {
    expect(formatDuration(0)).toBe('00:00');
    expect(formatDuration(75.4)).toBe('01:15');
    expect(formatDuration(3723)).toBe('1:02:03');
  });

  it('rates read items/s from 1/s on and s/item below, ? before the first item', () => {
    expect(formatRate(0, 5)).toBe('? items/s');
    expect(formatRate(345, 10)).toBe('34.5 items/s');
    expect(formatRate(5000, 10)).toBe('500 items/s');
    expect(formatRate(4, 10)).toBe('2.50 s/item');
    expect(formatRate(1, 42)).toBe('42.0 s/item');
  });

  it('a known total gives count/total, percent, bar and an ETA from the rate so far', () => {
    const line = formatProgress({ label: 'search', noun: 'problems', done: 25, total: 100, elapsedS: 10, extra: '0 failed' });
    expect(line).toBe(`search: 25%|#####${' '.repeat(15)}| 25/100 problems [00:10<00:30, 2.50 items/s, 0 failed]`);
  });

  it('a fraction (bytes read) gives percent and ETA without a total; none gives ETA ?', () => {
    expect(formatProgress({ label: 'score', noun: 'graded', done: 300, fraction: 0.75, elapsedS: 60 })).toBe(
      `score: 75%|###############${' '.repeat(5)}| 300 graded [01:00<00:20, 5.00 items/s]`,
    );
    expect(formatProgress({ done: 3, elapsedS: 12 })).toBe('3 done [00:12<?, 4.00 s/item]');
  });

  it('the final line is full with ETA 00:00', () => {
    expect(formatProgress({ done: 10, total: 10, elapsedS: 5, final: true })).toBe(`100%|${'#'.repeat(20)}| 10/10 done [00:05<00:00, 2.00 items/s]`);
  });

  it('is shown on a terminal stderr, forced by --progress, never with --no-progress or beside JSONL on the same terminal', () => {
    const both = { stdout: true, stderr: true };
    const errOnly = { stdout: false, stderr: true };
    const none = { stdout: false, stderr: false };
    expect(progressEnabled(undefined, false, errOnly)).toBe(true);
    expect(progressEnabled(undefined, false, none)).toBe(false);
    expect(progressEnabled(true, false, none)).toBe(true);
    expect(progressEnabled(false, false, errOnly)).toBe(false);
    expect(progressEnabled(undefined, true, both)).toBe(false);
    expect(progressEnabled(true, true, both)).toBe(false);
    expect(progressEnabled(true, true, errOnly)).toBe(true);
  });
});

describe('ProgressLine', () => {
  it('redraws a terminal line at most every 100 ms and ends it with a newline', () => {
    let t = 0;
    const out: string[] = [];
    const p = new ProgressLine({ enabled: true, tty: true, total: 4, now: () => t, write: (s) => out.push(s) });
    t = 1000;
    p.tick(); // drawn
    t = 1050;
    p.tick(); // too soon
    t = 1200;
    p.tick(); // drawn
    p.done();
    expect(out).toEqual([
      `\r25%|#####${' '.repeat(15)}| 1/4 done [00:01<00:03, 1.00 items/s]\x1b[K`,
      `\r75%|###############${' '.repeat(5)}| 3/4 done [00:01<00:00, 2.50 items/s]\x1b[K`,
      `\r100%|${'#'.repeat(20)}| 3/4 done [00:01<00:00, 2.50 items/s]\x1b[K\n`,
    ]);
    expect(p.count).toBe(3);
  });

  it('writes whole lines at most once a second when not a terminal, and nothing when disabled', () => {
    let t = 0;
    const out: string[] = [];
    const p = new ProgressLine({ enabled: true, tty: false, noun: 'graded', now: () => t, write: (s) => out.push(s) });
    for (t = 0; t <= 2500; t += 100) p.tick();
    expect(out).toEqual(['1 graded [00:00<?, ? items/s]\n', '11 graded [00:01<?, 11.0 items/s]\n', '21 graded [00:02<?, 10.5 items/s]\n']);
    const quiet: string[] = [];
    const q = new ProgressLine({ enabled: false, now: () => t, write: (s) => quiet.push(s) });
    q.tick();
    q.done();
    expect(quiet).toEqual([]);
    expect(q.count).toBe(1);
  });
});

describe('arbiter score --progress', () => {
  it('writes the progress line to stderr (forced, not a terminal) and only JSONL to stdout', async () => {
    const r = await runCli(['score', '--grader', 'examples/arithmetic/grader.json', 'examples/arithmetic/samples.jsonl', '--progress'], { cwd: ROOT });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(200);
    for (const l of lines) expect(() => JSON.parse(l)).not.toThrow();
    expect(r.stderr).toMatch(/^score: 100%\|#{20}\| 200 graded \[\d\d:\d\d<00:00, [\d.]+ (items\/s|s\/item), \d+ invalid, mean \d\.\d{3}\]$/m);
  }, 120_000);

  it('--no-progress writes no progress line', async () => {
    const quiet = await runCli(['score', '--grader', 'examples/arithmetic/grader.json', 'examples/arithmetic/samples.jsonl', '--no-progress'], { cwd: ROOT });
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).not.toMatch(/score: /);
  }, 120_000);
});
