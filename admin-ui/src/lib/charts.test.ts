import { describe, expect, it } from 'vitest';
import { areaPath, bucketMax, describeUsage, linePath, niceTicks, scale } from './charts';

describe('charts', () => {
  it('scales linearly, inverted for SVG y', () => {
    const y = scale(0, 1, 100, 0);
    expect(y(0)).toBe(100);
    expect(y(0.25)).toBe(75);
  });

  it('buckets minutes by their highest value; idle minutes are 0', () => {
    const from = 0;
    const to = 60 * 60_000;
    const pts = [
      { t: 0, v: 0.2 },
      { t: 60_000, v: 0.5 },
      { t: 30 * 60_000, v: 0.95 },
      { t: to, v: 1 }, // outside: the period ends before it
    ];
    expect(bucketMax(pts, from, to, 4)).toEqual([0.5, 0, 0.95, 0]);
  });

  it('tells burst-and-idle from flat-lined', () => {
    expect(describeUsage([0.9, 0, 0.3, 0, 0, 0.8], 0.9)).toMatch(/active in 50%/);
    expect(describeUsage(new Array(10).fill(0.95), 0.9)).toMatch(/flat at the ceiling/);
    expect(describeUsage([0, 0], 0.9)).toMatch(/idle/);
  });

  it('draws an area with a column per value, clipped at the top', () => {
    expect(areaPath([0, 2], 10, 10, 1)).toBe('M0,10 L0,10 L5,10 L5,0 L10,0 L10,10 Z');
    expect(areaPath([], 10, 10, 1)).toBe('');
  });

  it('draws a line and breaks it at missing values', () => {
    expect(linePath([{ x: 0, y: 0 }, { x: 1, y: 1 }, { x: 2, y: NaN }, { x: 3, y: 1 }], [0, 3], 1, 30, 10)).toBe('M0,10 L10,0 M30,0');
  });

  it('picks round ticks', () => {
    expect(niceTicks(9500, 4)).toEqual([0, 5000, 10000]);
    expect(niceTicks(1, 4)).toEqual([0, 0.5, 1]);
    expect(niceTicks(0)).toEqual([0, 1]);
  });
});
