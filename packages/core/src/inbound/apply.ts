/**
 * What a classified inbound message does to leads (docs/inbound.md). Every
 * effect is safe to apply twice: a message read again (an overlapping reader,
 * a UIDVALIDITY reset, a crash before the cursor was saved) changes nothing
 * more. Records are conditional puts; lead moves are conditional on the
 * status they leave, and the counters and the breaker move with them.
 */
import { createHash } from 'node:crypto';
import type { Deps } from '../deps.ts';
import { ConditionFailedError } from '../errors.ts';
import * as breaker from '../guardrails/breaker.ts';
import { campaignKey, counter } from '../campaign/keys.ts';
import { leadKey } from '../lead/keys.ts';
import { rowsOf, suppressEverywhere, transition } from '../lead/sequence.ts';
import type { InboundMessage } from '../ports/mail-reader.ts';
import { fromItem as leadFromItem, type Lead } from '../lead/entity.ts';
import type { Mailbox } from '../mailbox/entity.ts';
import { cancelOpenJobs, delayOpenJobs } from '../sending/jobs.ts';
import * as suppression from '../suppression/index.ts';
import { classify, snippetOf } from './classify.ts';
import { inboundToItem, sentRefFromItem, type InboundKind, type InboundRecord, type SentRef } from './inbound.schema.ts';
import { sentMessageKey } from './keys.ts';
import { returnDateOf } from './return-date.ts';

export type D = Pick<Deps, 'store' | 'keys' | 'clock' | 'wallClock' | 'log' | 'metrics'>;

export type { SentRef } from './inbound.schema.ts';

export type Outcome = InboundKind | 'IGNORED';

/** One lookup round for a whole read: every Message-ID the messages quote or carry. */
export async function sentRefsOf(deps: Pick<Deps, 'store'>, messages: InboundMessage[]): Promise<Map<string, SentRef>> {
  const ids = new Set<string>();
  for (const m of messages) {
    for (const id of [m.messageId, m.report?.original?.messageId, ...m.inReplyTo, ...m.references]) if (id) ids.add(id.toLowerCase());
  }
  if (!ids.size) return new Map();
  const found = await deps.store.batchGet([...ids].map(sentMessageKey));
  return new Map(found.map((item) => [item.pk.slice('SENTMSG#'.length), sentRefFromItem(item)]));
}

/** A stable id per (mailbox, message, lead): the same message read twice makes the same record. */
function recordId(mailboxId: string, m: InboundMessage, leadId: string): string {
  const identity = m.messageId?.toLowerCase() ?? `${m.from ?? ''}\u0000${m.subject}\u0000${m.receivedAt}`;
  return createHash('sha256').update(`${mailboxId}\u0000${identity}\u0000${leadId}`).digest('base64url').slice(0, 26);
}

/** Stores the record once; false when it was already there (the message was read before). */
async function record(deps: D, kind: InboundKind, mailbox: Mailbox, m: InboundMessage, lead: Lead, extra: Partial<InboundRecord> = {}): Promise<boolean> {
  const r: InboundRecord = {
    id: recordId(mailbox.id, m, lead.id),
    kind,
    mailboxId: mailbox.id,
    leadId: lead.id,
    campaignId: lead.campaignId,
    fromEmail: m.from ?? '',
    subject: m.subject.slice(0, 500),
    snippet: kind === 'REPLY' || kind === 'AUTO_REPLY' ? snippetOf(m.text) : '',
    receivedAt: new Date(m.receivedAt).toISOString(),
    ...extra,
  };
  try {
    await deps.store.put(inboundToItem(r), { if: { itemExists: false } });
    return true;
  } catch (err) {
    if (err instanceof ConditionFailedError) return false;
    throw err;
  }
}

/** The lead a threaded message answers (its In-Reply-To or References name an email the engine sent). */
async function leadByThread(deps: D, threadIds: string[], refs: Map<string, SentRef>): Promise<Lead | undefined> {
  for (const id of threadIds) {
    const ref = refs.get(id);
    if (!ref) continue;
    const row = await deps.store.get(leadKey(ref.leadId));
    const lead = row && leadFromItem(row);
    if (lead && !lead.erased) return lead;
  }
  return undefined;
}

/** Leads of an address that this mailbox has mailed (pinned to it), the most recently mailed first. */
async function pinnedRowsOf(deps: D, email: string, mailboxId: string): Promise<Lead[]> {
  const rows = (await rowsOf(deps, email)).filter((l) => l.mailboxId === mailboxId && !l.erased);
  return rows.sort((a, b) => (b.lastSentAt ?? '').localeCompare(a.lastSentAt ?? ''));
}

/** The leads a report names: the returned original's Message-ID when it is one of ours for that address, else the address's rows mailed from this mailbox. */
async function reportedLeads(deps: D, address: string, originalId: string | undefined, mailboxId: string, refs: Map<string, SentRef>): Promise<Lead[]> {
  const ref = originalId ? refs.get(originalId) : undefined;
  if (ref) {
    const row = await deps.store.get(leadKey(ref.leadId));
    const lead = row && leadFromItem(row);
    if (lead && !lead.erased && lead.email.toLowerCase() === address) return [lead];
  }
  return pinnedRowsOf(deps, address, mailboxId);
}

const iso = (deps: Pick<Deps, 'clock'>) => new Date(deps.clock.now()).toISOString();

/** Classifies one message of a mailbox's INBOX and applies what it means. */
export async function applyMessage(deps: D, mailbox: Mailbox, m: InboundMessage, refs: Map<string, SentRef>): Promise<Outcome> {
  // The engine's own sent copy carries a Message-ID it wrote.
  if (m.messageId && refs.has(m.messageId.toLowerCase())) return 'IGNORED';
  const c = classify(m, mailbox.email);
  const mailboxId = mailbox.id;
  switch (c.kind) {
    case 'BOUNCE': {
      let any = false;
      for (const r of c.recipients) {
        for (const lead of await reportedLeads(deps, r.recipient, c.originalMessageId, mailboxId, refs)) {
          any = true;
          await record(deps, 'BOUNCE', mailbox, m, lead, { fromEmail: r.recipient, snippet: `${r.status} ${r.diagnostic ?? ''}`.trim().slice(0, 200) });
          await bounce(deps, lead, mailboxId);
        }
      }
      return any ? 'BOUNCE' : 'IGNORED';
    }
    case 'COMPLAINT': {
      let any = false;
      for (const address of c.recipients) {
        for (const lead of await reportedLeads(deps, address, c.originalMessageId, mailboxId, refs)) {
          any = true;
          await record(deps, 'COMPLAINT', mailbox, m, lead, { fromEmail: address });
          await suppression.suppress(deps, address, 'complaint');
          await suppressEverywhere(deps, address);
          await cancelOpenJobs(deps, lead.id, 'the recipient complained');
        }
      }
      return any ? 'COMPLAINT' : 'IGNORED';
    }
    case 'AUTO_REPLY': {
      const lead = (await leadByThread(deps, c.threadIds, refs)) ?? (m.from ? (await pinnedRowsOf(deps, m.from, mailboxId))[0] : undefined);
      if (!lead) return 'IGNORED';
      const back = returnDateOf(m.text, m.receivedAt);
      await record(deps, 'AUTO_REPLY', mailbox, m, lead, back ? { returnDate: back } : {});
      if (back) await holdUntilReturn(deps, lead, back);
      return 'AUTO_REPLY';
    }
    case 'REPLY': {
      const lead = (await leadByThread(deps, c.threadIds, refs)) ?? (m.from ? (await pinnedRowsOf(deps, m.from, mailboxId))[0] : undefined);
      if (!lead) return 'IGNORED';
      const fresh = await record(deps, 'REPLY', mailbox, m, lead);
      // The sequence stops at once: the lead's status (which the send path checks right before SMTP) and its open jobs.
      const moved = await transition(deps, lead, 'REPLIED', {
        set: { repliedAt: new Date(m.receivedAt).toISOString() },
        campaign: { add: { [counter.replies]: 1 }, set: { lastActivityAt: iso(deps) } },
      });
      if (moved) deps.metrics.count('Replies');
      if (fresh && !moved) await deps.store.update(campaignKey(lead.campaignId), { set: { lastActivityAt: iso(deps) } });
      await cancelOpenJobs(deps, lead.id, 'the lead replied');
      return 'REPLY';
    }
    default:
      return 'IGNORED';
  }
}

/** RFC 3464 permanent failure: the lead bounced, the address is suppressed everywhere, and the pair's breaker counts one bounce, once. */
async function bounce(deps: D, lead: Lead, mailboxId: string): Promise<void> {
  const moved = await transition(deps, lead, 'BOUNCED', { campaign: { set: { lastActivityAt: iso(deps) } } });
  await suppression.suppress(deps, lead.email, 'bounce');
  await suppressEverywhere(deps, lead.email, lead.id);
  await cancelOpenJobs(deps, lead.id, 'the address bounced');
  // Counted only by the move that made the lead BOUNCED, so a report read twice (or a second copy) counts once.
  if (moved) {
    deps.metrics.count('Bounces');
    await breaker.recordBounce(deps, lead.campaignId, mailboxId);
  }
}

/**
 * An out-of-office answer that names its return day holds the lead's next
 * step until the day after (engine time), instead of sending into an empty
 * inbox. Only jobs that would go earlier move; nothing else changes.
 */
async function holdUntilReturn(deps: D, lead: Lead, returnDate: string): Promise<void> {
  await delayOpenJobs(deps, lead.id, Date.parse(`${returnDate}T00:00:00Z`) + 86_400_000);
}
