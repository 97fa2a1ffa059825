import type { Context } from 'aws-lambda';
import { pollDue } from '@outbound/core/inbound/index';
import { readWaitingReplies } from '@outbound/core/inbound/reply-ai';
import { getDeps, lambda } from '../lib/deps.ts';
import { mailKit } from '../lib/kits/mail.ts';
import { aiKit } from '../lib/kits/ai.ts';

/** Leaves this much of the function's time for the last reads to finish and their progress to be written. */
const MARGIN_MS = 30_000;
/** What the AI readings of a tick may take at most: the mailboxes come first. */
const AI_BUDGET_MS = 60_000;

/**
 * Reads the mailboxes that are due (replies, bounce reports, complaints, auto-replies), on an EventBridge
 * schedule (a timer locally); then asks the customer's AI about replies the rules could not read.
 */
async function run(_event: unknown = {}, context?: Partial<Context>) {
  const deps = getDeps();
  const remaining = () => context?.getRemainingTimeInMillis?.();
  const left = remaining();
  const result = await pollDue(deps, left ? { budgetMs: Math.max(10_000, left - MARGIN_MS) } : {});
  if (result.mailboxes) deps.log.info('mailboxes read', { ...result });
  const after = remaining();
  const ai = await readWaitingReplies(deps, { budgetMs: Math.min(AI_BUDGET_MS, after ? after - MARGIN_MS : AI_BUDGET_MS) });
  if (ai.asked) deps.log.info('replies read by the AI', { ...ai });
  return { ...result, ai };
}

export const handler = lambda(run, [mailKit, aiKit]);
