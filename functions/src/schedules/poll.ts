import type { Context } from 'aws-lambda';
import { pollDue } from '@outbound/core/inbound/index';
import { getDeps, lambda } from '../lib/deps.ts';
import { mailKit } from '../lib/kits/mail.ts';

/** Leaves this much of the function's time for the last reads to finish and their progress to be written. */
const MARGIN_MS = 30_000;

/** Reads the mailboxes that are due (replies, bounce reports, complaints, auto-replies), on an EventBridge schedule (a timer locally). */
async function run(_event: unknown = {}, context?: Partial<Context>) {
  const deps = getDeps();
  const remaining = context?.getRemainingTimeInMillis?.();
  const result = await pollDue(deps, remaining ? { budgetMs: Math.max(10_000, remaining - MARGIN_MS) } : {});
  if (result.mailboxes) deps.log.info('mailboxes read', { ...result });
  return result;
}

export const handler = lambda(run, [mailKit]);
