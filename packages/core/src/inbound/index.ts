/**
 * Reading the mailboxes (docs/inbound.md): every mailbox with an IMAP host or
 * an OAuth connection is read every 5 minutes of engine time, incrementally
 * (UIDVALIDITY and the last UID kept beside the mailbox), by one reader at a
 * time (a lease in the table), and what each new message is changes the
 * leads it is about (apply.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../deps.ts';
import { eachLimited, queryAll } from '../collections.ts';
import { ConditionFailedError } from '../errors.ts';
import { hasCredentials, imapLogin, MailboxAccessError } from '../mailbox/access.ts';
import { allMailboxes } from '../mailbox/keys.ts';
import { fromItem as mailboxFromItem, type Mailbox } from '../mailbox/entity.ts';
import { isReservedHost } from '../mailbox/signin.ts';
import { InboxReadError } from '../ports/mail-reader.ts';
import { applyMessages, type Outcome } from './apply.ts';
import { inboxStateFromItem, type InboxState } from './entity.ts';
import { filingUnknown, findOutSentFiling } from './sent-filing.ts';
import { inboxStateKey } from './keys.ts';
import { setMailboxError } from '../mailbox/error-state.ts';

/** Each mailbox is read every 5 minutes of engine time (TIME_SCALE applies; docs/inbound.md) ... */
export const POLL_EVERY_MS = 5 * 60_000;
/** ... and never more than once a second of wall time per mailbox. */
export const MIN_WALL_GAP_MS = 1_000;
/** A reader holds a mailbox this long (wall clock) at most; a reader that died frees it by expiry. */
export const LEASE_MS = 3 * 60_000;
/** One IMAP server may take this long to answer; the others are read meanwhile. */
export const READ_TIMEOUT_MS = 20_000;
/** Messages read per round trip, and rounds per mailbox per tick: a full inbox is caught up over several ticks. */
export const READ_BATCH = 50;
export const MAX_ROUNDS = 6;
/** Mailboxes read at once. */
export const CONCURRENCY = 16;
/**
 * A failing mailbox is tried again after a while of wall time, doubling each time up to six hours:
 * wall time, so that a fast engine clock (TIME_SCALE) never turns a failure into a loop against the
 * server. A refused sign-in waits longer from the start (a minute) than a server that did not answer (15 s).
 */
export const FIRST_BACKOFF_MS = { refused: 60_000, unreachable: 15_000 };
export const MAX_BACKOFF_MS = 6 * 60 * 60_000;

type D = Pick<Deps, 'store' | 'keys' | 'clock' | 'wallClock' | 'log' | 'mailReader' | 'oauth' | 'config' | 'metrics'>;

export interface PollResult {
  mailboxes: number;
  messages: number;
  replies: number;
  bounces: number;
  complaints: number;
  autoReplies: number;
  /** Messages that could not be read or applied: skipped with a log line, the reading went on. */
  skipped: number;
  failed: number;
}

/** Mailboxes the engine can read: an IMAP host (never one under a reserved test TLD) and a way to sign in. */
const readable = (m: Mailbox) => Boolean(m.imapHost && !isReservedHost(m.imapHost) && hasCredentials(m));

/**
 * When the mailbox's reading starts: nothing that arrived before it was added (or connected) is
 * classified. INTERNALDATE has whole seconds (RFC 3501 date-time), so the start is cut to its second:
 * a message of the same second counts as after.
 */
const startOf = (m: Mailbox) => {
  // A row without the time reads from the beginning (Date.parse of nothing is NaN).
  const ms = Date.parse((m.auth === 'oauth' ? (m.connectedAt ?? m.createdAt) : m.createdAt) ?? '') || 0;
  return Math.floor(ms / 1000) * 1000;
};

/**
 * One tick of the mailbox poller (an EventBridge schedule on AWS, a timer
 * locally): every readable mailbox that is due is read, the longest-waiting
 * first, CONCURRENCY at a time, until `budgetMs` of wall time is spent; a
 * slow or unreachable server holds one slot for READ_TIMEOUT_MS at most.
 */
export async function pollDue(deps: D, opts: { budgetMs?: number } = {}): Promise<PollResult> {
  const started = deps.wallClock.now();
  const deadline = started + (opts.budgetMs ?? 45_000);
  const mailboxes = (await queryAll(deps.store, allMailboxes())).map(mailboxFromItem).filter(readable);
  const result: PollResult = { mailboxes: 0, messages: 0, replies: 0, bounces: 0, complaints: 0, autoReplies: 0, skipped: 0, failed: 0 };
  if (!mailboxes.length) return result;
  // Matched to their mailbox by key: a state row is keyed by its mailbox's id.
  const states = new Map((await deps.store.batchGet(mailboxes.map((m) => inboxStateKey(m.id)))).map((s) => [s.pk, s]));
  const now = deps.clock.now();
  const due = mailboxes
    .map((mailbox) => ({ mailbox, state: inboxStateFromItem(mailbox.id, states.get(inboxStateKey(mailbox.id).pk)) }))
    .filter(({ state }) => state.nextPollAt <= now && started - state.lastPollWallAt >= MIN_WALL_GAP_MS && started >= state.retryAfter)
    .sort((a, b) => a.state.nextPollAt - b.state.nextPollAt);
  await eachLimited(due, CONCURRENCY, async ({ mailbox, state }) => {
    // What is left goes first at the next tick.
    if (deps.wallClock.now() > deadline - READ_TIMEOUT_MS) return;
    const r = await pollMailbox(deps, mailbox, state, deadline);
    if (r === 'busy') return;
    result.mailboxes++;
    if (r === 'failed') return void result.failed++;
    result.messages += r.length;
    for (const o of r) {
      if (o === 'REPLY') result.replies++;
      else if (o === 'BOUNCE') result.bounces++;
      else if (o === 'COMPLAINT') result.complaints++;
      else if (o === 'AUTO_REPLY') result.autoReplies++;
      else if (o === 'SKIPPED') result.skipped++;
    }
  });
  return result;
}

/** Takes the mailbox's lease: only when no other reader holds it and the mailbox is still due. */
async function lease(deps: D, mailboxId: string, leaseId: string): Promise<boolean> {
  const wall = deps.wallClock.now();
  try {
    await deps.store.update(inboxStateKey(mailboxId), {
      set: { mailboxId, leaseId, leaseUntil: wall + LEASE_MS, lastPollWallAt: wall },
      if: {
        and: [
          {
            or: [
              { attr: 'leaseUntil', exists: false },
              { attr: 'leaseUntil', op: '<', value: wall },
            ],
          },
          {
            or: [
              { attr: 'nextPollAt', exists: false },
              { attr: 'nextPollAt', op: '<=', value: deps.clock.now() },
            ],
          },
        ],
      },
    });
    return true;
  } catch (err) {
    if (err instanceof ConditionFailedError) return false;
    throw err;
  }
}

/** Writes the reader's progress, only while it still holds the lease (a reader that overran lost it, and its writes with it). */
async function save(deps: D, mailboxId: string, leaseId: string, set: Record<string, unknown>, remove: string[] = []): Promise<boolean> {
  try {
    await deps.store.update(inboxStateKey(mailboxId), { set, remove, if: { attr: 'leaseId', op: '=', value: leaseId } });
    return true;
  } catch (err) {
    if (err instanceof ConditionFailedError) return false;
    throw err;
  }
}

/** Reads one mailbox's new messages and applies them. 'busy' when another reader holds it. */
export async function pollMailbox(
  deps: D,
  mailbox: Mailbox,
  state: InboxState,
  deadline = deps.wallClock.now() + 45_000,
): Promise<Outcome[] | 'busy' | 'failed'> {
  const id = mailbox.id;
  const leaseId = randomUUID();
  if (!(await lease(deps, id, leaseId))) return 'busy';
  const outcomes: Outcome[] = [];
  let cursor = { uidValidity: state.uidValidity, lastUid: state.lastUid };
  try {
    const login = await imapLogin(deps, mailbox, READ_TIMEOUT_MS);
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const batch = await deps.mailReader.readInbox(login, { ...cursor, since: startOf(mailbox), max: READ_BATCH });
      if (cursor.uidValidity !== undefined && batch.uidValidity !== cursor.uidValidity) {
        deps.log.warn('inbox UIDVALIDITY changed; reading on from the mailbox start, already-applied messages change nothing', {
          mailboxId: id,
        });
      }
      // Each message on its own: one that cannot be read or applied is skipped (logged), and the cursor moves past it.
      outcomes.push(...(await applyMessages(deps, mailbox, batch.messages)));
      cursor = { uidValidity: batch.uidValidity, lastUid: batch.lastUid };
      // Progress is kept after every round, so a reader stopped mid-inbox resumes where it was.
      if (!(await save(deps, id, leaseId, { ...cursor, leaseUntil: deps.wallClock.now() + LEASE_MS }))) return outcomes;
      if (!batch.more || deps.wallClock.now() > deadline - READ_TIMEOUT_MS) break;
    }
    if (filingUnknown(mailbox, deps.wallClock.now()) && deps.wallClock.now() < deadline - READ_TIMEOUT_MS) {
      // Whether this server files sent mail decides how an unknown send outcome is settled; a failure here leaves it unknown.
      await findOutSentFiling(deps, mailbox, login).catch((err) =>
        deps.log.warn('could not look in the Sent folder; will look again', { mailboxId: id, err }),
      );
    }
    await save(
      deps,
      id,
      leaseId,
      { nextPollAt: deps.clock.now() + POLL_EVERY_MS, failures: 0, lastPolledAt: new Date(deps.wallClock.now()).toISOString() },
      ['leaseId', 'leaseUntil', 'lastError', 'retryAfter'],
    );
    return outcomes;
  } catch (err) {
    await failed(deps, mailbox, state, leaseId, err);
    return 'failed';
  }
}

/**
 * A read that failed: tried again after a back-off that doubles each time
 * (never a tight loop). A refused sign-in is the owner's to fix, so the
 * mailbox shows ERROR with the reason, which also stops its sends.
 */
async function failed(deps: D, mailbox: Mailbox, state: InboxState, leaseId: string, err: unknown): Promise<void> {
  const id = mailbox.id;
  const failures = state.failures + 1;
  const refused = (err instanceof InboxReadError && err.reason === 'auth') || err instanceof MailboxAccessError;
  const backoff = Math.min(FIRST_BACKOFF_MS[refused ? 'refused' : 'unreachable'] * 2 ** (failures - 1), MAX_BACKOFF_MS);
  const sentence =
    err instanceof MailboxAccessError
      ? err.message
      : refused
        ? 'The IMAP server refused the sign-in: check the password, or connect the mailbox again.'
        : err instanceof InboxReadError
          ? `The IMAP server could not be read (${err.reason}); trying again later.`
          : 'The inbox could not be read; trying again later.';
  deps.log.warn('inbox read failed', { mailboxId: id, failures, reason: err instanceof InboxReadError ? err.reason : undefined, err });
  await save(
    deps,
    id,
    leaseId,
    { failures, retryAfter: deps.wallClock.now() + backoff, nextPollAt: deps.clock.now() + POLL_EVERY_MS, lastError: sentence },
    ['leaseId', 'leaseUntil'],
  );
  if (refused && mailbox.status !== 'ERROR') {
    await setMailboxError(deps, mailbox, sentence, { itemExists: true }).catch(() => undefined);
  }
}

export { ListQuery, listReplies, updateReply, UpdateReply } from './replies.ts';
