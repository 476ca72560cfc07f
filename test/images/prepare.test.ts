// Images from bytes to what a model is sent: the format read from the magic number only (a
// declared type never trusted), SVG and other formats refused by name, truncated images refused as
// undecodable, the pixel limit checked before decoding, resizing (max_side, smart_resize) with exact
// pixels and scale factors, GIF re-encoded as PNG, an unchanged image sent as its own bytes.
import { createHash } from 'node:crypto';
import sharp, { type Sharp } from 'sharp';
import { describe, expect, it } from 'vitest';
import { prepareImage } from '../../dist/images/prepare.js';
import { sniffFormat } from '../../dist/images/sniff.js';

const none = { kind: 'none' } as const;
const limits = { maxImagePixels: 25_000_000 };

/** A test picture: a gradient, so a resize is visible in the pixels. */
async function gradient(width: number, height: number): Promise<Sharp> {
  const px = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      px[i] = (x * 255) / Math.max(1, width - 1);
      px[i + 1] = (y * 255) / Math.max(1, height - 1);
      px[i + 2] = 128;
    }
  return sharp(px, { raw: { width, height, channels: 3 } });
}

const fromDataUrl = (u: string) => Buffer.from(u.slice(u.indexOf(',') + 1), 'base64');

describe('format from the bytes', () => {
  it('sniffs PNG, JPEG, WebP and GIF by magic number', async () => {
    const g = await gradient(8, 8);
    expect(sniffFormat(await g.clone().png().toBuffer())).toBe('png');
    expect(sniffFormat(await g.clone().jpeg().toBuffer())).toBe('jpeg');
    expect(sniffFormat(await g.clone().webp().toBuffer())).toBe('webp');
    expect(sniffFormat(await g.clone().gif().toBuffer())).toBe('gif');
    expect(sniffFormat(await g.clone().tiff().toBuffer())).toBeUndefined();
  });

  it('refuses SVG, TIFF and text by name, whatever they claim', async () => {
    const svg = Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>');
    await expect(prepareImage(svg, none, limits)).rejects.toMatchObject({ problem: 'format', message: expect.stringMatching(/SVG/) });
    const tiff = await (await gradient(8, 8)).tiff().toBuffer();
    await expect(prepareImage(tiff, none, limits)).rejects.toMatchObject({ problem: 'format', message: expect.stringMatching(/TIFF/) });
    await expect(prepareImage(Buffer.from('hello'), none, limits)).rejects.toMatchObject({ problem: 'format' });
  });

  it('refuses a truncated image as undecodable, and bytes that only start like one', async () => {
    const png = await (await gradient(64, 64)).png().toBuffer();
    await expect(prepareImage(png.subarray(0, png.length - 40), none, limits)).rejects.toMatchObject({ problem: 'undecodable' });
    const jpg = await (await gradient(64, 64)).jpeg().toBuffer();
    await expect(prepareImage(jpg.subarray(0, 200), none, limits)).rejects.toMatchObject({ problem: 'undecodable' });
    const fake = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 7)]);
    await expect(prepareImage(fake, none, limits)).rejects.toMatchObject({ problem: 'undecodable' });
  });

  it('refuses an image over the pixel limit from its header', async () => {
    const png = await (await gradient(100, 50)).png().toBuffer();
    await expect(prepareImage(png, none, { maxImagePixels: 4999 })).rejects.toMatchObject({
      problem: 'too_large',
      message: expect.stringMatching(/100x50 = 5000 pixels/),
    });
    await expect(prepareImage(png, none, { maxImagePixels: 5000 })).resolves.toMatchObject({ original: { width: 100, height: 50 } });
  });
});

describe('what is sent', () => {
  it('an image that needs no change is sent as its own bytes, hashed', async () => {
    const jpg = await (await gradient(40, 30)).jpeg().toBuffer();
    const p = await prepareImage(jpg, none, limits);
    expect(p.dataUrl.startsWith('data:image/jpeg;base64,')).toBe(true);
    expect(fromDataUrl(p.dataUrl).equals(jpg)).toBe(true);
    expect(p.sha256).toBe(createHash('sha256').update(jpg).digest('hex'));
    expect(p).toMatchObject({
      format: 'jpeg',
      sentFormat: 'jpeg',
      original: { width: 40, height: 30 },
      sent: { width: 40, height: 30 },
      scale: { sx: 1, sy: 1 },
    });
  });

  it('max_side resizes to exact pixels (PNG), with the scale factors', async () => {
    const src = await (await gradient(300, 120)).png().toBuffer();
    const p = await prepareImage(src, { kind: 'max_side', maxSide: 100 }, limits);
    expect(p).toMatchObject({ sentFormat: 'png', original: { width: 300, height: 120 }, sent: { width: 100, height: 40 } });
    expect(p.scale.sx).toBeCloseTo(1 / 3, 12);
    expect(p.scale.sy).toBeCloseTo(1 / 3, 12);
    const got = await sharp(fromDataUrl(p.dataUrl)).raw().toBuffer({ resolveWithObject: true });
    const want = await sharp(src).resize(100, 40, { fit: 'fill' }).raw().toBuffer();
    expect(got.info).toMatchObject({ width: 100, height: 40 });
    expect(got.data.equals(want)).toBe(true);
    // the gradient survives: left edge red 0, right edge near 255
    expect(got.data[0]).toBeLessThan(10);
    expect(got.data[(100 - 1) * 3]).toBeGreaterThan(245);
  });

  it("smart_resize gives Qwen-VL's size (multiples of 28), scale per axis", async () => {
    const src = await (await gradient(200, 90)).png().toBuffer();
    const p = await prepareImage(src, { kind: 'smart', opts: { factor: 28, minPixels: 3136, maxPixels: 12_845_056 } }, limits);
    expect(p.sent).toEqual({ width: 196, height: 84 });
    expect(p.scale).toEqual({ sx: 196 / 200, sy: 84 / 90 });
  });

  it('a GIF is re-encoded as PNG (its first frame), pixels kept', async () => {
    const gif = await sharp({ create: { width: 12, height: 9, channels: 3, background: { r: 0, g: 255, b: 0 } } })
      .gif()
      .toBuffer();
    const p = await prepareImage(gif, none, limits);
    expect(p).toMatchObject({ format: 'gif', sentFormat: 'png', sent: { width: 12, height: 9 } });
    const px = await sharp(fromDataUrl(p.dataUrl)).removeAlpha().raw().toBuffer();
    expect([...px.subarray(0, 3)]).toEqual([0, 255, 0]);
  });
});
