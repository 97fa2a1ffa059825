import type { ImapFlow, ListResponse } from 'imapflow';
import type { MailReader, Placement } from '@outbound/core/ports/mail-reader';
import type { ServerLogin } from '@outbound/core/ports/mail';
import { imapClient, locate } from './signin.ts';

type Resolver = (host: string) => Promise<string>;

/** Names providers give their spam folder, for servers that do not mark it \Junk. */
const SPAM_NAMES = /^(\[gmail\]\/spam|\[google mail\]\/spam|spam|junk|junk e-?mail|junk mail|bulk|bulk mail)$/i;
const SENT_NAMES = /^(sent|sent items|sent mail|sent messages|\[gmail\]\/sent mail)$/i;

/** Signs in, runs `work`, and always logs out. */
async function withImap<T>(login: ServerLogin, resolver: Resolver | undefined, work: (client: ImapFlow) => Promise<T>): Promise<T> {
  const target = await locate({ ...login, resolver });
  if (!('ip' in target)) throw new Error(`IMAP host ${login.host}: ${target.ok ? '' : target.detail}`);
  const client = imapClient(login, target, login.port === 993, login.timeoutMs ?? 20_000);
  try {
    await client.connect();
    return await work(client);
  } finally {
    if (!client.isClosed) await client.logout().catch(() => client.close());
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
