/**
 * The claim's guards: the one write before SMTP that holds every send rule
 * as a condition (the job still queued, the mailbox's cadence slot free,
 * today's count under the cap, the pair's breaker untripped, the address not
 * suppressed, and the planner's own guard), and says which rule refused it.
 */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../deps.ts';
import { TransactionFailedError } from '../errors.ts';
import type { TransactOp } from '../ports/store.ts';
import { pairKey } from '../guardrails/breaker.keys.ts';
import { utcDay } from '../guardrails/breaker.ts';
import { suppressionKey } from '../suppression/keys.ts';
import { addressHash } from '../suppression/index.ts';
import type { Mailbox } from '../mailbox/entity.ts';
import { bookDailySendOp, bookSlotOp, countDailySendOp } from './cadence.ts';
import type { Composed } from './compose.ts';
import { moveOps } from './jobs.ts';
import type { Job } from './job.entity.ts';
import type { SendPlan } from './job-kind.ts';

/** How a claim ended: held (the claim's id and the day its send was counted in), or which rule refused it. */
export type Claim = { claimId: string; day: string; held: Held } | 'lost' | 'guard' | 'suppressed' | 'breaker' | 'cap' | 'slot' | 'balance';

/** The job as its claim left it. */
export type Held = Job & { claimId: string };

/**
 * The claim: one write holding every rule that must still be true, so two
 * senders never both send, and a slot, a cap, a breaker, an unsubscribe or a
 * reply that changed since the read wins.
 */
export async function claimFor(
  deps: Deps,
  c: {
    job: Job;
    plan: SendPlan;
    mailbox: Mailbox;
    composed: Composed;
    keep: { aiBody?: string; aiVariant?: number };
    unthrottled?: boolean;
  },
): Promise<Claim> {
  const { job, plan, mailbox, composed } = c;
  const mailboxId = mailbox.id;
  const claimId = randomUUID();
  const now = deps.clock.now();
  const day = utcDay(now);
  const claim = moveOps(job, 'CLAIMED', {
    set: {
      mailboxId,
      domainId: mailbox.domainId,
      messageId: composed.email.messageId,
      subject: composed.subject,
      aiGenerated: composed.aiGenerated,
      claimedAt: now,
      claimId,
      attempts: job.attempts + 1,
      ...c.keep,
      ...plan.claimSet,
    },
    // A held claim is an SMTP try (a lost slot race is not). A mark left by an earlier try (a 4xx, a lost connection) must not make this claim look started.
    remove: ['smtpStartedAt'],
    wallNow: deps.wallClock.now(),
  });
  const rules: [Exclude<Claim, object | 'lost'>, TransactOp][] = c.unthrottled
    ? // A person's answer counts toward the mailbox's day but is never refused for it, and books no cadence slot.
      [['cap', countDailySendOp(mailboxId, day)]]
    : [
        ['slot', bookSlotOp(mailboxId, now, deps.random())],
        ['cap', bookDailySendOp(mailbox, day)],
      ];
  rules.push(
    // The guardrail every send passes, whatever its planner checked: an unsubscribe that landed meanwhile wins.
    ['suppressed', { check: suppressionKey(await addressHash(deps, plan.to)), if: { itemExists: false } }],
  );
  if (plan.breakerCampaignId) {
    rules.push([
      'breaker',
      {
        check: pairKey(plan.breakerCampaignId, mailboxId),
        if: {
          or: [
            { attr: 'tripped', exists: false },
            { attr: 'tripped', op: '=', value: false },
          ],
        },
      },
    ]);
  }
  // The planner's last condition: a reply, bounce or stop that landed while the copy was written wins.
  // With `set` it also writes the row it guards (a first email's variant given to the lead, once).
  if (plan.guard)
    rules.push([
      'guard',
      plan.guard.set
        ? { update: plan.guard.key, change: { set: plan.guard.set, if: plan.guard.if } }
        : { check: plan.guard.key, if: plan.guard.if },
    ]);
  if (plan.balance) rules.push(['balance', plan.balance]);
  try {
    await deps.store.transact([...claim, ...rules.map(([, op]) => op)]);
  } catch (err) {
    if (!(err instanceof TransactionFailedError)) throw err;
    if (err.failed.includes(0)) return 'lost';
    // The rule that refused it, in the order above (a refused guard or address first: they end the job).
    const refused = new Set(err.failed.map((i) => rules[i - claim.length]?.[0]));
    for (const rule of ['guard', 'suppressed', 'breaker', 'cap', 'slot', 'balance'] as const) if (refused.has(rule)) return rule;
    throw err;
  }
  return { claimId, day, held: { ...job, state: 'CLAIMED', claimId, ...c.keep, ...plan.claimSet } };
}
