// The sizing rules: fitMaxSide, and smartResize against values from Qwen2.5-VL's own smart_resize
// (qwen-vl-utils vision_process.py, run on these sizes): rounding to the factor with Python's
// half-to-even round, the max_pixels and min_pixels branches, the defaults, the aspect-ratio refusal,
// and the one kept difference (a side floored below the factor stays at the factor).
import { describe, expect, it } from 'vitest';
import { fitMaxSide, QWEN_VL_DEFAULTS, scaleBetween, smartResize } from '../../dist/images/resize.js';

describe('smartResize matches vision_process.py', () => {
  // [width, height, options] → [width, height] as smart_resize(height, width, ...) returned them
  const cases: [number, number, Record<string, number>, [number, number]][] = [
    [1920, 1080, {}, [1932, 1092]],
    [1920, 1080, { maxPixels: 1280 * 28 * 28 }, [1316, 728]],
    [3840, 2160, {}, [3836, 2156]],
    [4000, 3000, {}, [4004, 2996]],
    [20, 20, {}, [56, 56]],
    [13, 17, {}, [56, 84]],
    [42, 98, {}, [56, 112]],
    [1000, 10, {}, [1008, 28]],
    [640, 480, { minPixels: 256 * 28 * 28, maxPixels: 1280 * 28 * 28 }, [644, 476]],
    [333, 777, { factor: 14, maxPixels: 200_000 }, [280, 672]],
  ];
  it.each(cases)('%i x %i %o', (width, height, opts, [w, h]) => {
    expect(smartResize({ width, height }, opts)).toEqual({ width: w, height: h });
  });

  it('rounds a half to even, as Python does (70/28 = 2.5 → 2, not 3)', () => {
    expect(smartResize({ width: 70, height: 70 })).toEqual({ width: 56, height: 56 });
    expect(smartResize({ width: 98, height: 98 })).toEqual({ width: 112, height: 112 }); // 3.5 → 4
  });

  it("uses vision_process.py's defaults (MIN_PIXELS 4·28², MAX_PIXELS 16384·28²)", () => {
    expect(QWEN_VL_DEFAULTS).toEqual({ factor: 28, minPixels: 3136, maxPixels: 12_845_056 });
    // 4000x4000 is over 16384·28² pixels: scaled down into it
    const s = smartResize({ width: 4000, height: 4000 });
    expect(s.width * s.height).toBeLessThanOrEqual(12_845_056);
    expect(s).toEqual({ width: 3584, height: 3584 });
  });

  it('refuses an aspect ratio over 200, and keeps a floored side at the factor', () => {
    expect(() => smartResize({ width: 201, height: 1 })).toThrow(/aspect ratio/);
    // vision_process.py would give height 0 here (and then fail to resize)
    expect(smartResize({ width: 5600, height: 28 }, { maxPixels: 28 * 28 * 100 })).toEqual({ width: 3948, height: 28 });
  });
});

describe('fitMaxSide and scaleBetween', () => {
  it('shrinks the longer side to max_side, never enlarges', () => {
    expect(fitMaxSide({ width: 1000, height: 500 }, 200)).toEqual({ width: 200, height: 100 });
    expect(fitMaxSide({ width: 333, height: 1000 }, 100)).toEqual({ width: 33, height: 100 });
    expect(fitMaxSide({ width: 50, height: 40 }, 100)).toEqual({ width: 50, height: 40 });
    expect(scaleBetween({ width: 1000, height: 500 }, { width: 200, height: 100 })).toEqual({ sx: 0.2, sy: 0.2 });
  });
});
