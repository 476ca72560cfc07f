// The Node side of the warm-interpreter protocol against misbehaving zygotes (real processes that
// speak the frame format and then break it): a malformed frame, a zygote that stops answering, one
// that dies before or after its program started, one whose first frame is not "ready". Each must
// end as a `died` outcome (with `started` telling whether the program may have run) and a killed
// process, never a result.
import { afterEach, describe, expect, it } from 'vitest';
import { runtimeFor } from '../../dist/sandbox/host.js';
import { DEFAULT_LIMITS } from '../../dist/sandbox/limits.js';
import { Zygote, type WarmJob } from '../../dist/sandbox/zygote.js';

const FAKE = String.raw`
import os, sys, json, signal
mode = sys.argv[1]
def read_frame():
    h = os.read(5, 8)
    total = int.from_bytes(h[:4], 'big')
    body = b''
    while len(body) < total - 4:
        body += os.read(5, total - 4 - len(body))
    return body
def frame(h):
    b = json.dumps(h).encode()
    return (4 + len(b)).to_bytes(4, 'big') + len(b).to_bytes(4, 'big') + b
read_frame()
os.write(6, frame({'t': 'hello'} if mode == 'bad-ready' else {'t': 'ready'}))
read_frame()
if mode == 'garbage':
    os.write(6, b'\xff\xff\xff\xff\x00\x00\x00\x02{}')
elif mode == 'hang':
    os.write(6, frame({'t': 'started'}))
    signal.pause()
elif mode == 'die-before':
    os._exit(1)
elif mode == 'die-after':
    os.write(6, frame({'t': 'started'}))
    os._exit(1)
elif mode == 'short-result':
    os.write(6, frame({'t': 'started'}))
    os.write(6, frame({'t': 'result', 'out': 10, 'err': 0, 'code': 0}))
signal.pause()
`;

const live: Zygote[] = [];
afterEach(() => {
  for (const z of live.splice(0)) z.kill();
});

async function fake(mode: string, backstopMs = 5000) {
  const rt = await runtimeFor('python');
  if (typeof rt === 'string') throw new Error(rt);
  const z = new Zygote({ bwrap: rt.exe, args: ['-I', '-S', '-c', FAKE, mode], seccomp: null, native: false, backstopMs });
  live.push(z);
  return { z, bad: await z.start() };
}

const job: WarmJob = {
  argv: ['python3', '-I', 'main.py'],
  form: { prefix: ['python3', '-I'], script: 2, main: 0 },
  files: [{ name: 'main.py', data: 'print(1)' }],
  env: {},
  limits: { ...DEFAULT_LIMITS, wallMs: 50 },
  trustedMain: false,
};

describe('a misbehaving zygote is killed and its run is never a result', () => {
  it('a first frame that is not "ready" fails the start', async () => {
    const { bad } = await fake('bad-ready');
    expect(bad).toMatch(/instead of its ready frame/);
  });

  it('a malformed frame', async () => {
    const { z, bad } = await fake('garbage');
    expect(bad).toBeUndefined();
    const o = await z.run(job);
    expect(o).toMatchObject({ kind: 'died', started: false });
    expect(o.kind === 'died' && o.message).toMatch(/malformed/);
    await z.exited;
    expect(z.dead).toBe(true);
  });

  it('a result frame whose body is shorter than it says is not taken as a result', async () => {
    const { z } = await fake('short-result', 100);
    const o = await z.run(job);
    // the frame never completes: the backstop kills the zygote
    expect(o).toMatchObject({ kind: 'died', started: true });
    await z.exited;
  });

  it('a zygote that stops answering is killed at the wall clock + the backstop', async () => {
    const { z } = await fake('hang', 100);
    const o = await z.run(job);
    expect(o).toMatchObject({ kind: 'died', started: true });
    expect(o.kind === 'died' && o.message).toMatch(/did not answer within the wall-clock limit/);
    await z.exited;
  });

  it('dying before the program started, and after', async () => {
    const before = await fake('die-before');
    expect(await before.z.run(job)).toMatchObject({ kind: 'died', started: false });
    const after = await fake('die-after');
    expect(await after.z.run(job)).toMatchObject({ kind: 'died', started: true });
  });

  it('a dead zygote refuses further runs without writing to it', async () => {
    const { z } = await fake('die-before');
    await z.run(job);
    await z.exited;
    expect(await z.run(job)).toMatchObject({ kind: 'died', started: false, message: 'the warm interpreter is gone' });
  });
});
