import type { MailReader } from '@outbound/core/ports/mail-reader';
import type { ServerLogin } from '@outbound/core/ports/mail';
import { imapClient, locate } from './signin.ts';

/**
 * The MailReader port over imapflow: finds a Message-ID in the folder the
 * server marks \Sent (RFC 6154), or a folder named Sent / Sent Items.
 */
export function imapReader(opts: { resolver?: (host: string) => Promise<string> } = {}): MailReader {
  return {
    async sentContains(login: ServerLogin, messageId: string): Promise<boolean> {
      const target = await locate({ ...login, resolver: opts.resolver });
      if (!('ip' in target)) throw new Error(`IMAP host ${login.host}: ${target.ok ? '' : target.detail}`);
      const client = imapClient(login, target, login.port === 993, login.timeoutMs ?? 20_000);
      try {
        await client.connect();
        const folders = await client.list();
        const sent =
          folders.find((f) => f.specialUse === '\\Sent') ?? folders.find((f) => /^(sent|sent items|sent mail|\[gmail\]\/sent mail)$/i.test(f.path));
        if (!sent) throw new Error('the mailbox has no Sent folder');
        const lock = await client.getMailboxLock(sent.path, { readOnly: true });
        try {
          const bare = messageId.replace(/^<|>$/g, '');
          const found = await client.search({ header: { 'message-id': bare } }, { uid: true });
          return Array.isArray(found) && found.length > 0;
        } finally {
          lock.release();
        }
      } finally {
        if (!client.isClosed) await client.logout().catch(() => client.close());
      }
    },
  };
}
