import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ValidationError } from './errors.ts';
import { Email, parse } from './validate.ts';

describe('parse', () => {
  const Schema = z.strictObject({ email: Email, nested: z.object({ n: z.number().int().min(1) }).optional() });

  it('returns the parsed value, emails trimmed and lower-cased', () => {
    expect(parse(Schema, { email: ' A@B.Test ' })).toEqual({ email: 'a@b.test' });
  });

  it.each([
    [{}, 'email is required.'],
    [{ email: 'nope' }, 'email: must be an email address.'],
    [{ email: 'a@b.test', nested: { n: 0 } }, /^nested\.n: /],
    [{ email: 'a@b.test', status: 'ACTIVE' }, 'unknown field status.'],
  ])('throws a ValidationError naming the field for %j', (input, message) => {
    const err = (() => {
      try {
        parse(Schema, input);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toMatch(message);
  });
});
