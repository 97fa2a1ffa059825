/**
 * Mailbox choice with cadence: which of a plan's mailboxes sends now (its
 * status, its pair's breaker, today's cap, its cadence slot), or when one
 * will be free. The claim holds the same rules again as conditions.
 */
import type { Deps } from '../deps.ts';
import { pairKey } from '../guardrails/breaker.keys.ts';
import { utcDay } from '../guardrails/breaker.ts';
import { pairFromItem } from '../guardrails/breaker.entity.ts';
import { domainKey } from '../domain/keys.ts';
import { mailboxKey } from '../mailbox/keys.ts';
import { canSend, dailyCapOf, fromItem as mailboxFromItem, type Mailbox } from '../mailbox/entity.ts';
import { nextUtcDay } from './cadence.ts';
import { dailySendsFromItem } from './queue.entity.ts';
import { dailyCapKey } from './keys.ts';
import { mailboxReads, type Reads, rememberDomain } from './read-batch.ts';
import type { SendPlan } from './job-kind.ts';

const HOUR = 3_600_000;
/** A mailbox slot this close (wall ms) is waited for in the sender. */
const SHORT_WAIT_MS = 1_000;

/**
 * chooseMailbox, waiting in the sender for a slot that frees within a
 * moment of wall time (a high TIME_SCALE), when the caller's time left `fits` it, rather than going to the other
 * mailboxes or round the dispatcher and the queue, which would take longer
 * than the wait itself. The claim checks the slot again.
 */
export async function chooseSoon(
  deps: Deps,
  plan: SendPlan,
  read: Reads,
  fits: (wallMs: number) => boolean,
  unthrottled = false,
): Promise<Choice> {
  const soon = (slot: number) => {
    const wallMs = (slot - deps.clock.now()) / deps.config.timeScale;
    return wallMs <= SHORT_WAIT_MS && fits(wallMs) ? wallMs : undefined;
  };
  const chosen = await chooseMailbox(deps, plan, read, deps.clock.now(), soon, unthrottled);
  if ('mailbox' in chosen && chosen.wait) await new Promise((r) => setTimeout(r, Math.ceil(chosen.wait!)));
  return chosen;
}

/** A mailbox to send from (after `wait` wall ms, when its slot frees in a moment), the earliest time one will be free, or why the job ends. */
export type Choice = { mailbox: Mailbox; wait?: number } | { waitUntil: number } | { cancel: string };

/**
 * A free mailbox among the plan's, or the earliest time one will be. The
 * first (the planned one) was read with the job; the others only when it is
 * not free, all in one batch.
 */
async function chooseMailbox(
  deps: Deps,
  plan: SendPlan,
  read: Reads,
  now: number,
  soon: (slot: number) => number | undefined,
  unthrottled: boolean,
): Promise<Choice> {
  let waitUntil = now + HOUR;
  for (const [i, mailboxId] of plan.mailboxIds.entries()) {
    await read.fetch(
      deps,
      (i === 0 ? [mailboxId] : plan.mailboxIds.slice(i)).flatMap((m) => mailboxReads(deps, m, read.at, plan.breakerCampaignId)),
    );
    const mailbox = read.parsed(mailboxKey(mailboxId), mailboxFromItem);
    if (!mailbox) {
      if (plan.pinned) return { cancel: 'pinned mailbox deleted' };
      continue;
    }
    rememberDomain(deps, mailbox);
    if (!canSend(mailbox)) continue;
    // A person's answer (job-kind.ts, unthrottled): neither today's cap nor the cadence slot holds it.
    if (unthrottled) {
      await read.fetch(deps, [domainKey(mailbox.domainId)]);
      return { mailbox };
    }
    if (plan.breakerCampaignId && pairFromItem(read.get(pairKey(plan.breakerCampaignId, mailboxId))).tripped) continue;
    if (dailySendsFromItem(read.get(dailyCapKey(mailboxId, utcDay(read.at)))).count >= dailyCapOf(mailbox)) {
      waitUntil = Math.min(waitUntil, nextUtcDay(now));
      continue;
    }
    const slot = mailbox.nextSlotAt ?? 0;
    const wait = slot > now ? soon(slot) : 0;
    if (wait === undefined) {
      waitUntil = Math.min(waitUntil, slot);
      continue;
    }
    // Its domain: read with the mailbox when the job named it or this process has seen the mailbox before.
    await read.fetch(deps, [domainKey(mailbox.domainId)]);
    return wait > 0 ? { mailbox, wait } : { mailbox };
  }
  return { waitUntil };
}
