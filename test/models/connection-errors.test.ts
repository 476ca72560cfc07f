// A model server that cannot be reached is named in the error as the operating system reports it
// (errno code, address and port, in plain words), for chat and reward clients alike, not "fetch failed".
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ChatClient, ModelError, RewardClient } from '../../dist/models/index.js';

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

const noRetry = { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 };

describe('connection failures say what happened', () => {
  it('chat client: ECONNREFUSED with the address and port', async () => {
    const port = await closedPort();
    const c = new ChatClient({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'k', retry: noRetry });
    const e = await c.chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ModelError);
    expect((e as ModelError).kind).toBe('judge_server_error');
    expect((e as Error).message).toContain(`ECONNREFUSED 127.0.0.1:${port} (connection refused: nothing listens there)`);
    expect((e as Error).message).not.toMatch(/fetch failed/);
  });
  it('reward client: ECONNREFUSED with the address and port', async () => {
    const port = await closedPort();
    const c = new RewardClient({ baseURL: `http://127.0.0.1:${port}`, protocol: 'vllm_pooling', model: 'rm', retry: noRetry });
    const e = await c.score({ text: 'hi' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ModelError);
    expect((e as Error).message).toContain(`ECONNREFUSED 127.0.0.1:${port} (connection refused: nothing listens there)`);
  });
  it('a port fetch refuses (9, as in the issue that asked for this) is named as such, not "Connection error."', async () => {
    const c = new ChatClient({ baseURL: 'http://127.0.0.1:9/v1', apiKey: 'k', retry: noRetry });
    const e = await c.chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ModelError);
    expect((e as Error).message).toContain('bad port: fetch refuses to connect to this port');
  });
});
