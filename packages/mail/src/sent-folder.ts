import type { ImapFlow, ListResponse } from 'imapflow';
import { InboxReadError, type InboxBatch, type InboxCursor, type MailReader, type Placement } from '@outbound/core/ports/mail-reader';
import type { ServerLogin } from '@outbound/core/ports/mail';
import { parseInbound } from './inbound-parse.ts';
import { imapClient } from './imap-client.ts';
import { imapFailureReason, locate } from './transport.ts';

type Resolver = (host: string) => Promise<string>;

/** Names providers give their spam folder, for servers that do not mark it \Junk. */
const SPAM_NAMES = /^(\[gmail\]\/spam|\[google mail\]\/spam|spam|junk|junk e-?mail|junk mail|bulk|bulk mail)$/i;
const SENT_NAMES = /^(sent|sent items|sent mail|sent messages|\[gmail\]\/sent mail)$/i;

/** Signs in, runs `work`, and always logs out. Failures to reach or sign in are InboxReadErrors saying why. */
async function withImap<T>(login: ServerLogin, resolver: Resolver | undefined, work: (client: ImapFlow) => Promise<T>): Promise<T> {
  const target = await locate({ ...login, resolver });
  if (!('ip' in target))
    throw new InboxReadError(target.ok ? 'other' : target.reason, `IMAP host ${login.host}: ${target.ok ? '' : target.detail}`);
  const timeoutMs = login.timeoutMs ?? 20_000;
  const client = imapClient(login, target, login.port === 993, timeoutMs);
  // A server that stops answering mid-read must not hold the reader past its limit.
  const timer = setTimeout(() => client.close(), timeoutMs * 2);
  try {
    try {
      await client.connect();
    } catch (err) {
      throw new InboxReadError(imapFailureReason(err), `IMAP ${login.host}:${login.port}: ${(err as Error).message}`);
    }
    return await work(client);
  } finally {
    clearTimeout(timer);
    if (!client.isClosed) await client.logout().catch(() => client.close());
  }
}

/** Messages are read up to this size: reports and replies say what matters near the top, attachments are not needed. */
const SOURCE_MAX_BYTES = 256 * 1024;

/**
 * INBOX after the cursor, read-only. With a cursor of the same UIDVALIDITY,
 * the UIDs after the last one; without (first read, or the server renumbered
 * the folder), the messages since the cursor's start day (SEARCH SINCE is
 * day-grained, so INTERNALDATE is compared exactly after).
 */
async function readInbox(client: ImapFlow, cursor: InboxCursor): Promise<InboxBatch> {
  const lock = await client.getMailboxLock('INBOX', { readOnly: true });
  try {
    const box = client.mailbox === false ? undefined : client.mailbox;
    const uidValidity = Number(box?.uidValidity ?? 0);
    const uidNext = Number(box?.uidNext ?? 0);
    const continuing = cursor.uidValidity === uidValidity && cursor.lastUid !== undefined;
    const after = continuing ? cursor.lastUid! : 0;
    let uids: number[] = [];
    if (!continuing) {
      uids = (await client.search({ since: new Date(cursor.since) }, { uid: true })) || [];
    } else if (!uidNext || uidNext > after + 1) {
      // `n:*` always names the last message, even when its UID is below n: keep only the new ones.
      uids = ((await client.search({ uid: `${after + 1}:*` }, { uid: true })) || []).filter((u) => u > after);
    }
    uids.sort((a, b) => a - b);
    const take = uids.slice(0, cursor.max);
    const messages = [];
    if (take.length) {
      for await (const msg of client.fetch(
        take.join(','),
        { uid: true, internalDate: true, source: { maxLength: SOURCE_MAX_BYTES } },
        { uid: true },
      )) {
        const receivedAt = new Date(msg.internalDate ?? 0).getTime();
        if (receivedAt < cursor.since || !msg.source) continue;
        messages.push(await parseInbound(msg.uid, receivedAt, msg.source));
      }
      messages.sort((a, b) => a.uid - b.uid);
    }
    const lastUid = take.length ? take[take.length - 1]! : continuing ? after : Math.max(0, uidNext - 1);
    return { uidValidity, messages, lastUid, more: uids.length > take.length };
  } finally {
    lock.release();
  }
}

/** Whether `folder` holds a message with this Message-ID (read-only: nothing is marked seen). */
async function holds(client: ImapFlow, folder: string, messageId: string): Promise<boolean> {
  const lock = await client.getMailboxLock(folder, { readOnly: true });
  try {
    const found = await client.search({ header: { 'message-id': messageId.replace(/^<|>$/g, '') } }, { uid: true });
    return Array.isArray(found) && found.length > 0;
  } finally {
    lock.release();
  }
}

function spamOf(folders: ListResponse[], named?: string): string | undefined {
  if (named) return folders.find((f) => f.path === named || f.path.toLowerCase() === named.toLowerCase())?.path;
  return (folders.find((f) => f.specialUse === '\\Junk') ?? folders.find((f) => SPAM_NAMES.test(f.path)))?.path;
}

/**
 * The MailReader port over imapflow. Folders are found by their RFC 6154
 * special-use mark first (\Sent, \Junk), then by the names providers use.
 */
export function imapReader(opts: { resolver?: Resolver } = {}): MailReader {
  return {
    readInbox: (login, cursor) => withImap(login, opts.resolver, (client) => readInbox(client, cursor)),

    sentContains: (login, messageId) =>
      withImap(login, opts.resolver, async (client) => {
        const folders = await client.list();
        const sent = folders.find((f) => f.specialUse === '\\Sent') ?? folders.find((f) => SENT_NAMES.test(f.path));
        if (!sent) throw new Error('the mailbox has no Sent folder');
        return holds(client, sent.path, messageId);
      }),

    spamFolder: (login, named) => withImap(login, opts.resolver, async (client) => spamOf(await client.list(), named)),

    placementOf: (login, messageId, spamFolder) =>
      withImap(login, opts.resolver, async (client): Promise<Placement> => {
        if (await holds(client, 'INBOX', messageId)) return 'INBOX';
        if (await holds(client, spamFolder, messageId)) return 'SPAM';
        return 'MISSING';
      }),
  };
}
