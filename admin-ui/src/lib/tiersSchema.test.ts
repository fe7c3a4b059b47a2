import { describe, expect, it } from 'vitest';
import Ajv2020 from 'ajv/dist/2020';
import { parse as parseYaml } from 'yaml';
import schema from '../../../gateway/src/main/resources/tiers.schema.json';
import shipped from '../../../tiers.yaml?raw';
import full from '../../../gateway/src/test/resources/tiers/full.yaml?raw';

// The gateway's parser is the judge of a tiers.yaml (its tests hold it to the schema); these
// check that the schema is one a JSON Schema tool reads as written, as an operator's editor would.
describe('tiers.schema.json', () => {
  // strictRequired off: the model's anyOf of `required` alternatives is plain JSON Schema, which
  // that lint of ajv's would have repeat the properties beside it.
  const validate = new Ajv2020({ strict: true, strictRequired: false, allErrors: true }).compile(schema);

  it('is a draft 2020-12 schema with no keyword a validator does not know (ajv strict mode)', () => {
    expect(typeof validate).toBe('function');
  });

  it('accepts the shipped tiers.yaml and the document that sets every field', () => {
    for (const text of [shipped, full]) {
      expect(validate(parseYaml(text)), JSON.stringify(validate.errors)).toBe(true);
    }
  });

  it('refuses an unknown field, a number out of bounds and a missing one, at their paths', () => {
    const doc = parseYaml(full);
    doc.tiers.t.colour = 'blue';
    doc.tiers.t.priority = 101;
    delete doc.providers[0].models['gpt-4o']['max-in-flight'];
    expect(validate(doc)).toBe(false);
    const at = validate.errors!.map((e) => `${e.instancePath} ${e.keyword}`);
    expect(at).toEqual(expect.arrayContaining(['/tiers/t additionalProperties', '/tiers/t/priority maximum', '/providers/0/models/gpt-4o required']));
  });
});
