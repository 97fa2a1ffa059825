import * as z from 'zod';
import type { Deps } from './deps.ts';
import { ValidationError } from './errors.ts';

/** One readable sentence naming the field, from zod's first issue. */
export function describeIssue(error: z.ZodError): string {
  const issue = unwrapUnion(error.issues[0]);
  if (!issue) return 'The request is not valid.';
  const field = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.join(', ');
    return `${field ? field + ': ' : ''}unknown field${issue.keys.length > 1 ? 's' : ''} ${keys}.`;
  }
  if (issue.code === 'invalid_type' && issue.input === undefined) return `${field || 'body'} is required.`;
  const message = issue.message.replace(/\.$/, '');
  return field ? `${field}: ${message}.` : `${message}.`;
}

/**
 * A union (`object | null`) fails as a whole; the useful sentence is the
 * first failure inside the branch that got furthest, not "Invalid input".
 */
function unwrapUnion(issue: z.core.$ZodIssue | undefined): z.core.$ZodIssue | undefined {
  if (!issue || issue.code !== 'invalid_union' || !issue.errors?.length) return issue;
  const inner = issue.errors.flat().find((i) => i.code !== 'invalid_type' || i.path.length > 0);
  if (!inner) return issue;
  return unwrapUnion({ ...inner, path: [...issue.path, ...inner.path] } as z.core.$ZodIssue);
}

/** Parses or throws a ValidationError (422) whose message names the field. */
export function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  // reportInput tells a missing field (input undefined) from one of the wrong type.
  const result = schema.safeParse(input, { reportInput: true });
  if (!result.success) throw new ValidationError(describeIssue(result.error));
  return result.data;
}

/**
 * A core verb: validates its input with `schema`, then runs. The schema stays
 * reachable (`verb.schema`) so every path that takes the same input (API, CSV,
 * webhook) uses the same validation.
 */
export function verb<S extends z.ZodType, R, D = Deps>(schema: S, run: (deps: D, input: z.output<S>) => Promise<R>) {
  const fn = (deps: D, input: z.input<S> | unknown) => run(deps, parse(schema, input));
  return Object.assign(fn, { schema });
}

/** Emails are compared and keyed in one form. */
export const Email = z
  .string({ error: 'must be a string' })
  .trim()
  .max(254, { error: 'must be at most 254 characters' })
  .pipe(z.email({ error: 'must be an email address' }))
  .transform((e) => e.toLowerCase());
