import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script, without type declarations
import { committed, generate } from '../../scripts/api-types.mjs';

describe('the API types', () => {
  it('are what openapi-typescript makes of the gateway\'s admin/openapi.yaml today (run `npm run gen:api` if not)', async () => {
    expect(await committed()).toBe(await generate());
  }, 30_000);
});
