// Where image bytes may come from: data URLs; files only under a folder the operator allowed (real
// path checked: no "..", no symlink out, relative paths under the first folder); http(s) only under
// an allowed URL prefix, redirects checked against the same list, the byte cap enforced while the
// body streams, 404 as a missing image.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ImageAccess, readImageSource } from '../../dist/images/sources.js';
import { startTestServer } from '../helpers/openai-test-server.js';

const root = mkdtempSync(join(tmpdir(), 'arbiter-img-src-'));
const allowed = join(root, 'allowed');
const outside = join(root, 'outside');
mkdirSync(join(allowed, 'sub'), { recursive: true });
mkdirSync(outside);
writeFileSync(join(allowed, 'sub', 'a.bin'), 'AAAA');
writeFileSync(join(outside, 'secret.bin'), 'SECRET');
symlinkSync(join(outside, 'secret.bin'), join(allowed, 'escape.bin'));
symlinkSync(join(allowed, 'sub', 'a.bin'), join(allowed, 'inside.bin'));
symlinkSync(outside, join(allowed, 'outdir'));

const server = await startTestServer();
const other = await startTestServer();
afterAll(async () => {
  await server.close();
  await other.close();
  rmSync(root, { recursive: true, force: true });
});

const access = new ImageAccess({ dirs: [allowed], urls: [`${server.url.replace(/\/v1$/, '')}/img/`] });
const read = (u: string, max = 1000, a = access) => readImageSource(u, a, max);

describe('data URLs', () => {
  it('decodes base64 whatever the declared type; refuses non-base64, bad base64 and oversize before decoding', async () => {
    const b = Buffer.from([1, 2, 3, 4, 5]);
    await expect(read(`data:text/plain;base64,${b.toString('base64')}`)).resolves.toMatchObject({ source: 'data', bytes: b });
    await expect(read('data:image/png,abc')).rejects.toMatchObject({ problem: 'undecodable' });
    await expect(read('data:image/png;base64,@@@@')).rejects.toMatchObject({ problem: 'undecodable' });
    await expect(read(`data:image/png;base64,${Buffer.alloc(2000).toString('base64')}`)).rejects.toMatchObject({ problem: 'too_large' });
  });
});

describe('files', () => {
  it('reads a file under the allowed folder (absolute, relative, file://, a link that stays inside)', async () => {
    await expect(read(join(allowed, 'sub', 'a.bin'))).resolves.toMatchObject({ source: 'file', bytes: Buffer.from('AAAA') });
    await expect(read('sub/a.bin')).resolves.toMatchObject({ bytes: Buffer.from('AAAA') });
    await expect(read(`file://${join(allowed, 'sub', 'a.bin')}`)).resolves.toMatchObject({ bytes: Buffer.from('AAAA') });
    await expect(read('inside.bin')).resolves.toMatchObject({ bytes: Buffer.from('AAAA') });
  });

  it('refuses files outside it: another folder, "..", a symlink out, a linked folder out', async () => {
    await expect(read(join(outside, 'secret.bin'))).rejects.toMatchObject({ problem: 'disallowed' });
    await expect(read('sub/../../outside/secret.bin')).rejects.toMatchObject({ problem: 'disallowed', message: expect.stringMatching(/\.\./) });
    await expect(read('escape.bin')).rejects.toMatchObject({ problem: 'disallowed', message: expect.stringMatching(/real path/) });
    await expect(read('outdir/secret.bin')).rejects.toMatchObject({ problem: 'disallowed' });
    await expect(read('sub/missing.png')).rejects.toMatchObject({ problem: 'missing' });
    await expect(read('sub')).rejects.toMatchObject({ problem: 'missing' });
    await expect(read('sub/a.bin', 3)).rejects.toMatchObject({ problem: 'too_large' });
  });

  it('reads no file at all when no folder is allowed, and no other scheme', async () => {
    const none = new ImageAccess({});
    await expect(read(join(allowed, 'sub', 'a.bin'), 1000, none)).rejects.toMatchObject({
      problem: 'disallowed',
      message: expect.stringMatching(/--image-dir/),
    });
    await expect(read('ftp://example.com/a.png')).rejects.toMatchObject({ problem: 'disallowed' });
  });
});

describe('URLs', () => {
  const base = server.url.replace(/\/v1$/, '');
  it('fetches under the allowed prefix; refuses other paths and hosts', async () => {
    server.route('/img/a.png', () => ({ body: Buffer.from('PNGDATA') }));
    await expect(read(`${base}/img/a.png`)).resolves.toMatchObject({ source: 'url', bytes: Buffer.from('PNGDATA') });
    await expect(read(`${base}/private/a.png`)).rejects.toMatchObject({ problem: 'disallowed' });
    await expect(read(`${other.url.replace(/\/v1$/, '')}/img/a.png`)).rejects.toMatchObject({ problem: 'disallowed' });
    await expect(read(`${base}/img/a.png`, 1000, new ImageAccess({ dirs: [allowed] }))).rejects.toMatchObject({
      message: expect.stringMatching(/--image-url/),
    });
  });

  it('follows a redirect only to an allowed URL', async () => {
    other.route('/img/x.png', () => ({ body: Buffer.from('OTHER') }));
    server.route('/img/to-other', () => ({ status: 302, headers: { location: `${other.url.replace(/\/v1$/, '')}/img/x.png` }, body: '' }));
    server.route('/img/to-same', () => ({ status: 301, headers: { location: '/img/a.png' }, body: '' }));
    const before = other.requests.length;
    await expect(read(`${base}/img/to-other`)).rejects.toMatchObject({ problem: 'disallowed', message: expect.stringMatching(/redirect/) });
    expect(other.requests.length).toBe(before); // never asked
    await expect(read(`${base}/img/to-same`)).resolves.toMatchObject({ bytes: Buffer.from('PNGDATA') });
  });

  it('caps the bytes while the body streams, and names a 404 as missing', async () => {
    server.route('/img/big', () => ({ body: {}, hostile: { pad_to: 50_000 } }));
    await expect(read(`${base}/img/big`, 10_000)).rejects.toMatchObject({ problem: 'too_large' });
    await expect(read(`${base}/img/nothing-here`)).rejects.toMatchObject({ problem: 'missing' });
    server.route('/img/err', () => ({ status: 503, body: 'busy' }));
    await expect(read(`${base}/img/err`)).rejects.toMatchObject({ problem: 'unavailable' });
  });
});
