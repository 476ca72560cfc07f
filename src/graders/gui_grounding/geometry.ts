// Geometry of GUI grounding rewards, in the original image's pixels: boxes [x1, y1, x2, y2]
// (x right, y down), the point-in-box hit, IoU, GUI-G1's box term, the Gaussian point reward, and
// the map from a model's coordinate space to the original image through the same resize the image
// went through (src/images/resize.ts).
import { fitMaxSide, scaleBetween, smartResize, type Size, type SmartResizeOptions } from '../../images/resize.js';

export type Point = [number, number];
export type Box = [number, number, number, number];

/** Where a model's numbers live: original pixels, the smart-resized or max-side image's pixels, or relative [0,1000] / [0,1]. */
export const COORDINATE_SPACES = ['pixels', 'smart_resize', 'max_side', 'norm1000', 'norm1'] as const;
export type CoordinateSpace = (typeof COORDINATE_SPACES)[number];

export interface SpaceSettings {
  space: CoordinateSpace;
  resize?: SmartResizeOptions;
  maxSide?: number;
}

/** The size of the frame the model's numbers refer to, for an original image of `size`. */
export function modelFrame(size: Size, s: SpaceSettings): Size {
  switch (s.space) {
    case 'pixels':
      return size;
    case 'smart_resize':
      return smartResize(size, s.resize);
    case 'max_side':
      return fitMaxSide(size, s.maxSide!);
    case 'norm1000':
      return { width: 1000, height: 1000 };
    case 'norm1':
      return { width: 1, height: 1 };
  }
}

/** Maps a point from the model's frame to the original image. */
export function toOriginal(p: Point, size: Size, frame: Size): Point {
  const { sx, sy } = scaleBetween(frame, size);
  return [p[0] * sx, p[1] * sy];
}

export function boxToOriginal(b: Box, size: Size, frame: Size): Box {
  const [x1, y1] = toOriginal([b[0], b[1]], size, frame);
  const [x2, y2] = toOriginal([b[2], b[3]], size, frame);
  return [x1, y1, x2, y2];
}

export function centre(b: Box): Point {
  return [(b[0] + b[2]) / 2, (b[1] + b[3]) / 2];
}

export function area(b: Box): number {
  return Math.max(0, b[2] - b[0]) * Math.max(0, b[3] - b[1]);
}

/** The point lies in the box, edges included (UI-R1's and GUI-G1's test). */
export function inside(p: Point, b: Box): boolean {
  return b[0] <= p[0] && p[0] <= b[2] && b[1] <= p[1] && p[1] <= b[3];
}

/** Intersection over union of two boxes, as continuous areas (0 when they do not overlap). */
export function iou(a: Box, b: Box): number {
  const w = Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
  const h = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
  const inter = w > 0 && h > 0 ? w * h : 0;
  const union = area(a) + area(b) - inter;
  return union > 0 ? inter / union : 0;
}

/**
 * GUI-G1's box-size term: the harmonic mean of the four per-coordinate closenesses
 * 1 - |pred_i - gold_i| / S_i (S = image width for x, height for y), each clamped to [0, 1];
 * 0 when any closeness is 0. It is 1 only when the predicted box has the gold box's corners, so a
 * box grown to cover the target (the hit reward's hack) loses it.
 */
export function boxSizeTerm(pred: Box, gold: Box, size: Size): number {
  const sides = [size.width, size.height, size.width, size.height];
  let inv = 0;
  for (let i = 0; i < 4; i++) {
    const c = Math.min(1, Math.max(0, 1 - Math.abs(pred[i]! - gold[i]!) / sides[i]!));
    if (c === 0) return 0;
    inv += 1 / c;
  }
  return 4 / inv;
}

/**
 * The Gaussian point reward (GUI-G2's point reward with its size-adaptive variance):
 * exp(-((x - cx)^2 / (2 sx^2) + (y - cy)^2 / (2 sy^2))) with (cx, cy) the gold box's centre,
 * sx = sigma * gold width, sy = sigma * gold height.
 */
export function gaussianPoint(p: Point, gold: Box, sigma: number): number {
  const [cx, cy] = centre(gold);
  const sx = sigma * (gold[2] - gold[0]);
  const sy = sigma * (gold[3] - gold[1]);
  return Math.exp(-((p[0] - cx) ** 2 / (2 * sx * sx) + (p[1] - cy) ** 2 / (2 * sy * sy)));
}

export function distance(p: Point, q: Point): number {
  return Math.hypot(p[0] - q[0], p[1] - q[1]);
}

/** A gold box problem (malformed, empty, outside the image), or undefined when it is usable. */
export function goldBoxProblem(b: unknown, size: Size): string | undefined {
  if (!Array.isArray(b) || b.length !== 4) return `must be [x1, y1, x2, y2], got ${JSON.stringify(b)?.slice(0, 80)}`;
  if (!b.every((v) => typeof v === 'number' && Number.isFinite(v))) return `has a coordinate that is not a finite number: ${JSON.stringify(b)}`;
  const [x1, y1, x2, y2] = b as Box;
  if (!(x2 > x1 && y2 > y1)) return `is empty or reversed (needs x2 > x1 and y2 > y1): ${JSON.stringify(b)}`;
  if (x1 < 0 || y1 < 0 || x2 > size.width || y2 > size.height) return `lies outside the ${size.width}x${size.height} image: ${JSON.stringify(b)}`;
  return undefined;
}
