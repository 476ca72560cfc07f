// Connections are bounded, over real TCP on loopback: a client that trickles its headers or its body
// gets 408 and is closed at the configured timeout, an idle keep-alive connection is closed, and
// connections past the cap are closed on accept without an answer (and counted). Small timeouts keep
// the tests quick; they assert on the close event and what was received, never on elapsed time.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_CHECK, start, type Running } from './helpers.js';
import { serve } from './serve-process.js';

interface Conn {
  socket: Socket;
  /** Everything received so far. */
  data(): string;
  /** Resolves with everything received once the server closed the connection. */
  closed: Promise<string>;
  /** Resolves with the next complete HTTP response (by content-length). */
  response(): Promise<string>;
}

function open(url: string): Promise<Conn> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let buf = '';
    let waiter: (() => void) | undefined;
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      buf += d;
      waiter?.();
    });
    socket.on('error', () => {}); // a reset is a close here
    const closed = new Promise<string>((r) => socket.on('close', () => r(buf)));
    let consumed = 0;
    const response = () =>
      new Promise<string>((r) => {
        const check = () => {
          const rest = buf.slice(consumed);
          const head = rest.indexOf('\r\n\r\n');
          if (head < 0) return;
          const len = Number(/content-length: (\d+)/i.exec(rest.slice(0, head))?.[1] ?? 0);
          if (rest.length < head + 4 + len) return;
          consumed += head + 4 + len;
          waiter = undefined;
          r(rest.slice(0, head + 4 + len));
        };
        waiter = check;
        check();
      });
    socket.once('connect', () => resolve({ socket, data: () => buf, closed, response }));
    socket.once('error', reject);
  });
}

/** Writes `chunk` every `everyMs` until the connection closes (the attacker's trickle). */
function trickle(c: Conn, chunk: string, everyMs: number): void {
  const t = setInterval(() => {
    if (!c.socket.destroyed) c.socket.write(chunk);
  }, everyMs);
  void c.closed.then(() => clearInterval(t));
}

const GET = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n`;

describe('connection bounds (library options)', () => {
  let srv: Running;
  beforeAll(async () => {
    srv = await start({ answer_check: ANSWER_CHECK }, { headersTimeoutMs: 150, requestTimeoutMs: 300, keepAliveTimeoutMs: 150, maxConnections: 3 });
  });
  afterAll(() => srv.close());

  it('closes a client that trickles its headers, with 408', async () => {
    const c = await open(srv.url);
    c.socket.write('POST /v1/score HTTP/1.1\r\nHost: x\r\n');
    trickle(c, 'X-Slow: 1\r\n', 20);
    const got = await c.closed;
    expect(got).toMatch(/^HTTP\/1\.1 408/);
  });

  it('closes a client that trickles its body, with 408', async () => {
    const c = await open(srv.url);
    c.socket.write('POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"samples": [');
    trickle(c, ' ', 20);
    const got = await c.closed;
    expect(got).toMatch(/^HTTP\/1\.1 408/);
    expect(got).not.toMatch(/HTTP\/1\.1 200/);
  });

  it('closes an idle keep-alive connection after its last response', async () => {
    const c = await open(srv.url);
    c.socket.write(GET('/healthz'));
    expect(await c.response()).toMatch(/^HTTP\/1\.1 200/);
    const got = await c.closed;
    expect(got.match(/HTTP\/1\.1/g)).toHaveLength(1);
  });

  it('closes connections past the cap without answering, counts them, and keeps serving the others', async () => {
    const held: Conn[] = [];
    for (let i = 0; i < 3; i++) {
      const c = await open(srv.url);
      c.socket.write(GET('/healthz'));
      expect(await c.response()).toMatch(/^HTTP\/1\.1 200/); // accepted and served: it holds a slot
      held.push(c);
    }
    const extra = await open(srv.url);
    extra.socket.write(GET('/healthz'));
    expect(await extra.closed).toBe('');
    // a held connection still works and sees the drop in /metrics
    held[0]!.socket.write(GET('/metrics'));
    expect(await held[0]!.response()).toMatch(/arbiter_connections_dropped_total 1\b/);
    for (const c of held) c.socket.destroy();
  });
});

describe('connection bounds (arbiter serve flags)', () => {
  it('takes --headers-timeout-ms, --request-timeout-ms, --keep-alive-timeout-ms and --max-connections', async () => {
    const p = await serve([
      '--grader',
      'examples/arithmetic/grader.json',
      '--headers-timeout-ms',
      '150',
      '--request-timeout-ms',
      '300',
      '--keep-alive-timeout-ms',
      '60000',
      '--max-connections',
      '1',
    ]);
    try {
      const slow = await open(p.url);
      slow.socket.write('GET /healthz HTTP/1.1\r\n');
      trickle(slow, 'X-Slow: 1\r\n', 20);
      const held = await open(p.url);
      held.socket.write(GET('/healthz'));
      // the slow one holds the only slot until its header timeout closes it
      expect(await held.closed).toBe('');
      expect(await slow.closed).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      expect(await p.stop()).toBe(0);
    }
    await expect(serve(['--grader', 'examples/arithmetic/grader.json', '--headers-timeout-ms', '5000', '--request-timeout-ms', '1000'])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/headersTimeoutMs \(5000\) must not exceed requestTimeoutMs/),
    });
  });
});
