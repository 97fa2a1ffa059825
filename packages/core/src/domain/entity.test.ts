/**
 * The stored shape of a domain (and of a seed inbox): a row as older versions wrote it still reads
 * (with the defaults today's readers applied), and a parse keeps what the
 * shape does not name (keys, index attributes, counters), which the API
 * projection and conditional writes read as stored.
 */
import { describe, expect, it } from 'vitest';
import * as domain from './entity.ts';
import * as seed from '../seed/entity.ts';
import { domainKey } from './keys.ts';

describe('a stored domain and seed inbox', () => {
  it('reads a domain without its optional fields; the footer rule needs a non-blank address', () => {
    const d = domain.fromItem({ ...domainKey('d1'), id: 'd1', domainName: 'sender.com' });
    expect(domain.hasMailingAddress(d)).toBe(false);
    expect(
      domain.hasMailingAddress(domain.fromItem({ ...domainKey('d1'), id: 'd1', domainName: 'sender.com', mailingAddress: '1 Main St' })),
    ).toBe(true);
    expect(domain.hasMailingAddress(undefined)).toBe(false);
  });

  it('reads a seed with the usual IMAP port when it names none', () => {
    const s = seed.fromItem({
      pk: 'SEED#s1',
      sk: 'SEED',
      id: 's1',
      email: 'me@gmail.com',
      provider: 'GOOGLE',
      imapHost: 'imap.gmail.com',
      spamFolder: '[Gmail]/Spam',
      sealedPassword: 'x',
    });
    expect(seed.imapPortOf(s)).toBe(993);
  });
});
