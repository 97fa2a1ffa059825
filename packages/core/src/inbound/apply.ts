/**
 * What a classified inbound message does to leads (docs/inbound.md). Every
 * effect is safe to apply twice: a message read again (an overlapping reader,
 * a UIDVALIDITY reset, a crash before the cursor was saved) changes nothing
 * more. Records are conditional puts; lead moves are conditional on the
 * status they leave, and the counters and the breaker move with them.
 */
import { createHash } from 'node:crypto';
import type { Deps } from '../deps.ts';
import { ConditionFailedError, TransactionFailedError } from '../errors.ts';
import type { TransactOp } from '../ports/store.ts';
import { eventOps } from '../webhooks/events.ts';
import { campaignKey } from '../campaign/keys.ts';
import { leadKey } from '../lead/keys.ts';
import { rowsOf } from '../lead/sequence.ts';
import * as facts from '../lead/facts.ts';
import type { InboundMessage } from '../ports/mail-reader.ts';
import { fromItem as leadFromItem, type Lead, type LeadBounce } from '../lead/entity.ts';
import type { Mailbox } from '../mailbox/entity.ts';
import { delayOpenJobs } from '../sending/jobs.ts';
import { sendWindow } from '../sending/due.ts';
import { fromItem as campaignFromItem } from '../campaign/entity.ts';
import * as suppression from '../suppression/index.ts';
import { classify, snippetOf, type Classified } from './classify.ts';
import { inboundToItem, sentRefFromItem, type InboundKind, type InboundRecord, type SentRef } from './entity.ts';
import { inboundKey, sentMessageKey } from './keys.ts';
import { returnDateOf } from './return-date.ts';
import { readReply, type ReplyReading } from './reading/index.ts';
import { aiReaderOf, aiReadItem } from './reply-ai.ts';
import { referralKey } from './keys.ts';
import { positiveShare, removalRequested } from './replies.ts';
import { judgeCampaign } from '../campaign/variants.ts';
import { replyMessageItem } from '../conversation/entity.ts';

export type D = Pick<Deps, 'store' | 'keys' | 'clock' | 'wallClock' | 'log' | 'metrics'>;

export type { SentRef } from './entity.ts';

/** What a message turned out to do: SKIPPED when it could not be read or applied (logged, and the reading goes on). */
export type Outcome = InboundKind | 'IGNORED' | 'SKIPPED';

/**
 * The longest Message-ID looked up. RFC 5322 sets no limit, but a genuine
 * id is under a hundred characters, and a stranger's header turned into a
 * `SENTMSG#` key past DynamoDB's 2,048 bytes would make the table refuse the
 * whole batch read of a mailbox's messages.
 */
export const MAX_ID_LENGTH = 255;
const lookable = (id: string) => id.length > 0 && Buffer.byteLength(id, 'utf8') <= MAX_ID_LENGTH;

/** Every Message-ID a classified message may be tied to the engine's mail by: its own, the report's returned original, its thread. */
function idsOf(m: InboundMessage, c: Classified): string[] {
  const ids = [
    m.messageId,
    ...(c.kind === 'BOUNCE' || c.kind === 'COMPLAINT' ? [c.originalMessageId] : []),
    ...(c.kind === 'REPLY' || c.kind === 'AUTO_REPLY' ? c.threadIds : []),
  ];
  return ids
    .filter((id): id is string => typeof id === 'string')
    .map((id) => id.toLowerCase())
    .filter(lookable);
}

/** One lookup round for a whole read: every Message-ID the messages quote or carry. */
export async function sentRefsOf(deps: Pick<Deps, 'store'>, read: { m: InboundMessage; c: Classified }[]): Promise<Map<string, SentRef>> {
  const ids = new Set(read.flatMap(({ m, c }) => idsOf(m, c)));
  if (!ids.size) return new Map();
  const found = await deps.store.batchGet([...ids].map(sentMessageKey));
  return new Map(found.map((item) => [item.pk.slice('SENTMSG#'.length), sentRefFromItem(item)]));
}

/** A stable id per (mailbox, message, lead): the same message read twice makes the same record. */
function recordId(mailboxId: string, m: InboundMessage, leadId: string): string {
  const identity = m.messageId?.toLowerCase() ?? `${m.from ?? ''}\u0000${m.subject}\u0000${m.receivedAt}`;
  return createHash('sha256').update(`${mailboxId}\u0000${identity}\u0000${leadId}`).digest('base64url').slice(0, 26);
}

/**
 * Stores the record once, with what rides on it (a reply's event) in the same transaction; false when it was
 * already there (the message was read before).
 */
async function record(
  deps: D,
  kind: InboundKind,
  mailbox: Mailbox,
  m: InboundMessage,
  lead: Lead,
  extra: Partial<InboundRecord> = {},
  also: (id: string, r: InboundRecord) => Promise<TransactOp[] | { ops: TransactOp[]; fields: Partial<InboundRecord> }> = async () => [],
): Promise<boolean> {
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
  if (r.fromEmail) r.fromHash = await suppression.addressHash(deps, r.fromEmail);
  for (let attempt = 1; ; attempt++) {
    try {
      const more = await also(r.id, r);
      const { ops, fields } = Array.isArray(more) ? { ops: more, fields: {} } : more;
      const item = inboundToItem({ ...r, ...fields });
      if (ops.length) await deps.store.transact([{ put: item, if: { itemExists: false } }, ...ops]);
      else await deps.store.put(item, { if: { itemExists: false } });
      return true;
    } catch (err) {
      // Only another item's condition failed (the lead's positive count moved since it was read): read it again and try
      // again. Still failing after that, it is an error, never "read before": the message is read again at the next poll.
      if (err instanceof TransactionFailedError && !err.failed.includes(0)) {
        if (attempt < 6) continue;
        throw err;
      }
      // The record is there: the message was read before.
      if (err instanceof ConditionFailedError) return false;
      throw err;
    }
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

/**
 * A report (RFC 3464 and the notices like it, RFC 5965 and the providers' complaint formats) names
 * at most this many recipients that it changes. An email of the engine has one recipient, so a report
 * about it names one (two when the server rewrote the address); a forged one naming every lead stops here.
 */
export const MAX_REPORT_RECIPIENTS = 5;

/**
 * The lead a report is about, and whether the report proved it. Confirmed: the returned original
 * carries a Message-ID the engine sent to this very address (Message-IDs are unguessable), so the
 * report may change the address everywhere. Unconfirmed: anyone can write a report naming an address,
 * so it reaches only that address's lead most recently mailed from this mailbox.
 */
async function reportedLead(
  deps: D,
  address: string | undefined,
  originalId: string | undefined,
  mailboxId: string,
  refs: Map<string, SentRef>,
): Promise<{ lead: Lead; confirmed: boolean; sentFrom: string } | undefined> {
  const ref = originalId ? refs.get(originalId) : undefined;
  if (ref) {
    const row = await deps.store.get(leadKey(ref.leadId));
    const lead = row && leadFromItem(row);
    // A complaint may name no recipient (providers redact it): the returned email says who it was, and which mailbox it went from.
    if (lead && !lead.erased && (address === undefined || lead.email.toLowerCase() === address))
      return { lead, confirmed: true, sentFrom: ref.mailboxId };
  }
  if (address === undefined) return undefined;
  const [lead] = await pinnedRowsOf(deps, address, mailboxId);
  // Only leads pinned to this mailbox are found this way: it is the one their emails went from.
  return lead && { lead, confirmed: false, sentFrom: mailboxId };
}

const iso = (deps: Pick<Deps, 'clock'>) => new Date(deps.clock.now()).toISOString();

/** A message read and what it was taken for; `c` is undefined when it could not be classified. */
export interface Read {
  m: InboundMessage;
  c: Classified | undefined;
}

/**
 * Applies a batch of a mailbox's messages, oldest first, each on its own: a message that cannot be
 * classified or applied (whatever it holds) is skipped with a log line and the ones after it are
 * applied as usual, so one hostile message never stops a mailbox's reading.
 */
export async function applyMessages(deps: D, mailbox: Mailbox, messages: InboundMessage[]): Promise<Outcome[]> {
  const read: Read[] = messages.map((m) => ({ m, c: guarded(deps, mailbox, m, () => classify(m, mailbox.email)) }));
  const refs = await sentRefsOf(
    deps,
    read.filter((r): r is { m: InboundMessage; c: Classified } => r.c !== undefined),
  );
  const outcomes: Outcome[] = [];
  for (const { m, c } of read) outcomes.push(c ? await applyOnce(deps, mailbox, m, c, refs) : 'SKIPPED');
  return outcomes;
}

function guarded<T>(deps: D, mailbox: Mailbox, m: InboundMessage, work: () => T): T | undefined {
  try {
    return work();
  } catch (err) {
    skipped(deps, mailbox, m, 'classified', err);
    return undefined;
  }
}

function skipped(deps: D, mailbox: Mailbox, m: InboundMessage, could: 'classified' | 'applied', err: unknown): void {
  deps.metrics.count('InboundSkipped');
  deps.log.warn(`inbound message skipped: it could not be ${could}`, { mailboxId: mailbox.id, uid: m.uid, err });
}

/** A message's effects, tried twice (a passing fault of the store) before it is skipped. */
async function applyOnce(deps: D, mailbox: Mailbox, m: InboundMessage, c: Classified, refs: Map<string, SentRef>): Promise<Outcome> {
  let last: unknown;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      return await applyMessage(deps, mailbox, m, c, refs);
    } catch (err) {
      last = err;
    }
  }
  skipped(deps, mailbox, m, 'applied', last);
  return 'SKIPPED';
}

/** Applies what one classified message of a mailbox's INBOX means. Safe to run again on the same message. */
export async function applyMessage(
  deps: D,
  mailbox: Mailbox,
  m: InboundMessage,
  c: Classified,
  refs: Map<string, SentRef>,
): Promise<Outcome> {
  // The engine's own sent copy carries a Message-ID it wrote.
  if (m.messageId && refs.has(m.messageId.toLowerCase())) return 'IGNORED';
  const mailboxId = mailbox.id;
  switch (c.kind) {
    case 'BOUNCE': {
      let any = false;
      for (const r of cappedReport(deps, mailbox, m, c.recipients)) {
        const found = await reportedLead(deps, r.recipient, c.originalMessageId, mailboxId, refs);
        if (!found) continue;
        any = true;
        const { lead, confirmed, sentFrom } = found;
        const diagnostic = r.diagnostic?.slice(0, 300);
        const note: LeadBounce = {
          status: r.status,
          reason: r.reason,
          hard: r.hard,
          ...(diagnostic ? { diagnostic } : {}),
          via: 'report',
          confirmed,
          at: new Date(m.receivedAt).toISOString(),
        };
        const fresh = await record(deps, 'BOUNCE', mailbox, m, lead, {
          fromEmail: r.recipient,
          snippet: `${r.status} ${r.diagnostic ?? ''}`.trim().slice(0, 200),
          status: r.status,
          reason: r.reason,
          hard: r.hard,
          confirmed,
        });
        if (r.hard) await facts.bounced(deps, lead, { source: 'report', sentFrom, note });
        else if (fresh) await softBounce(deps, lead, note);
      }
      return any ? 'BOUNCE' : 'IGNORED';
    }
    case 'COMPLAINT': {
      let any = false;
      // Providers often redact the complaining address; the returned email still says whose it was.
      const named: (string | undefined)[] = c.recipients.length ? c.recipients : [undefined];
      for (const address of cappedReport(deps, mailbox, m, named)) {
        const found = await reportedLead(deps, address, c.originalMessageId, mailboxId, refs);
        if (!found) continue;
        any = true;
        const { lead, confirmed } = found;
        await record(deps, 'COMPLAINT', mailbox, m, lead, { fromEmail: lead.email, confirmed });
        await facts.complained(deps, lead, confirmed);
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
      const reading = readingOf(m, mailbox, lead);
      const status = reading.status;
      // The customer's AI is asked later, and only when the rules could not tell and a key is held for the campaign's provider.
      const askAi = status === 'NEEDS_REVIEW' && Boolean(await aiReaderOf(deps, lead.campaignId));
      const referredHash = reading.referral ? await suppression.addressHash(deps, reading.referral.email) : undefined;
      const fields: Partial<InboundRecord> = {
        snippet: snippetOf(reading.ownWords) || snippetOf(m.text),
        replyStatus: status,
        statusSource: 'rules',
        referral: reading.referral,
        followUpOn: reading.followUpOn,
        read: false,
        snoozedUntil: null,
      };
      // Every reply is an event (a lead's second answer matters to a CRM as much as its first): it rides on the reply's own
      // record, stored once per message, so a message read twice gives one; so do the referral's pointer and the AI's request.
      // A reply the rules read as positive counts for the lead's variant in its record's own write (the lead read again at each try).
      const positive = { crossedUp: false };
      const fresh = await record(deps, 'REPLY', mailbox, m, lead, fields, async (id, r) => {
        const share = await positiveShare(deps, { leadId: lead.id }, status);
        positive.crossedUp = share.crossedUp;
        const ops: TransactOp[] = [
          ...(await eventOps(
            deps,
            'reply.received',
            {
              replyId: id,
              status,
              leadId: lead.id,
              campaignId: lead.campaignId,
              mailboxId,
              fromEmail: r.fromEmail,
              subject: r.subject,
              snippet: r.snippet,
              receivedAt: r.receivedAt,
            },
            `INBOUND#${id}`,
          )),
          ...(referredHash ? [{ put: { ...referralKey(referredHash, id), replyId: id } }] : []),
          ...(askAi ? [{ put: aiReadItem(id, reading.ownWords, deps.wallClock.now()) }] : []),
          // The whole text for the lead's conversation, in an item of its own: the reply row stays small for the lists.
          {
            put: replyMessageItem(lead.id, deps.clock.now(), {
              replyId: id,
              fromEmail: r.fromEmail,
              subject: r.subject,
              text: m.bodyText ?? m.text,
              at: m.receivedAt,
              ...(m.messageId ? { headerId: m.messageId } : {}),
            }),
          },
          ...share.ops,
        ];
        return { ops, fields: share.set };
      });
      const moved = await facts.replied(deps, lead, m.receivedAt);
      if (fresh && positive.crossedUp) await judgeCampaign(deps, lead.campaignId);
      // A new message from a lead that had already replied (or stopped) is still activity on its campaign.
      if (fresh && !moved) await deps.store.update(campaignKey(lead.campaignId), { set: { lastActivityAt: iso(deps) } });
      // A removal request acts at once, as the unsubscribe button does; read again, it acts again (safe), unless a person has since said otherwise.
      if (status === 'UNSUBSCRIBE' && (fresh || (await stillRemoval(deps, mailbox, m, lead))))
        await removalRequested(deps, { leadId: lead.id, fromEmail: m.from ?? '', erased: false });
      return 'REPLY';
    }
    default:
      return 'IGNORED';
  }
}

/**
 * What the reply means, from its own words (reading/): written when its Date header says (else when it
 * arrived; a Date far from the arrival is a wrong clock, not a time), and never referring anyone to our
 * own mailbox or, when a colleague wrote, to the lead.
 */
function readingOf(m: InboundMessage, mailbox: Mailbox, lead: Lead): ReplyReading {
  const dated = Date.parse(m.headers['date'] ?? '');
  const plausible = Number.isFinite(dated) && dated <= m.receivedAt + 86_400_000 && dated >= m.receivedAt - 30 * 86_400_000;
  return readReply({
    text: m.bodyText ?? m.text,
    ...(m.from ? { fromEmail: m.from } : {}),
    ...(m.fromName ? { fromName: m.fromName } : {}),
    writtenAt: plausible ? dated : m.receivedAt,
    ownAddresses: [mailbox.email.toLowerCase(), lead.email.toLowerCase()],
  });
}

/** A reply read before: its stored status is still the rules' UNSUBSCRIBE (a person's change is never undone). */
async function stillRemoval(deps: D, mailbox: Mailbox, m: InboundMessage, lead: Lead): Promise<boolean> {
  const row = await deps.store.get(inboundKey(recordId(mailbox.id, m, lead.id)));
  return row?.replyStatus === 'UNSUBSCRIBE' && row.statusSource === 'rules';
}

/** The first MAX_REPORT_RECIPIENTS recipients of a report; the rest are logged, never applied. */
function cappedReport<T>(deps: D, mailbox: Mailbox, m: InboundMessage, recipients: T[]): T[] {
  if (recipients.length > MAX_REPORT_RECIPIENTS) {
    deps.log.warn('a report names more recipients than an email of the engine has: only the first are read', {
      mailboxId: mailbox.id,
      uid: m.uid,
      named: recipients.length,
      read: MAX_REPORT_RECIPIENTS,
    });
  }
  return recipients.slice(0, MAX_REPORT_RECIPIENTS);
}

/** A soft bounce (full mailbox, rate limit, the sender's reputation...): noted on the lead's row, nothing stops. */
async function softBounce(deps: D, lead: Lead, note: LeadBounce): Promise<void> {
  deps.metrics.count('SoftBounces');
  try {
    // A lead already BOUNCED keeps the hard bounce it shows.
    await deps.store.update(leadKey(lead.id), {
      set: { bounce: note },
      if: { and: [{ itemExists: true }, { attr: 'status', op: '<>', value: 'BOUNCED' }] },
    });
  } catch (err) {
    if (!(err instanceof ConditionFailedError)) throw err;
  }
}

/**
 * An out-of-office answer that names its return day holds the lead's next
 * step until the day after (engine time), instead of sending into an empty
 * inbox. Only jobs that would go earlier move; nothing else changes.
 */
async function holdUntilReturn(deps: D, lead: Lead, returnDate: string): Promise<void> {
  const campaign = await deps.store.get(campaignKey(lead.campaignId));
  // The first hour the lead's window is open after the return day, so the held step shows when it will really go.
  const open = campaign ? sendWindow(campaignFromItem(campaign).schedule, lead.customFields) : undefined;
  await delayOpenJobs(deps, lead.id, Date.parse(`${returnDate}T00:00:00Z`) + 86_400_000, open);
}
