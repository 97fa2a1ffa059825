/**
 * The poller's scheduling rules on the unit tier, with a scripted mail
 * reader (the IMAP reading itself is tested against Dovecot in test/e2e).
 */
import { describe, expect, it } from 'vitest';
import * as domains from '../domain/index.ts';
import * as mailboxes from '../mailbox/index.ts';
import { mailboxKey } from '../mailbox/keys.ts';
import type { InboxBatch, InboxCursor, MailReader } from '../ports/mail-reader.ts';
import { InboxReadError } from '../ports/mail-reader.ts';
import type { ServerLogin } from '../ports/mail.ts';
import { created, unitDeps, type UnitDeps } from '../testing/unit-deps.ts';
import { inboxStateKey } from './keys.ts';
import { pollDue, POLL_EVERY_MS } from './index.ts';

/** A reader whose answers the test scripts per host; it records every read. */
function scriptedReader(answers: Record<string, (cursor: InboxCursor) => Promise<InboxBatch>>) {
  const reads: { host: string; cursor: InboxCursor }[] = [];
  const reader: MailReader = {
    async readInbox(login: ServerLogin, cursor: InboxCursor) {
      reads.push({ host: login.host, cursor });
      return answers[login.host]!(cursor);
    },
    sentContains: async () => false,
    spamFolder: async () => undefined,
    placementOf: async () => 'MISSING',
  };
  return { reader, reads };
}

const empty = (uidValidity = 7, lastUid = 0): InboxBatch => ({ uidValidity, lastUid, messages: [], more: false });

async function readable(deps: UnitDeps, hosts: string[]) {
  const domain = await created(domains.create, deps, { domainName: 'sender.com', mailingAddress: '1 Main St' });
  const ids: string[] = [];
  for (const [i, host] of hosts.entries()) {
    const box = await created(mailboxes.create, deps, {
      email: `m${i}@sender.com`,
      domainId: domain.id,
      smtpHost: 'smtp.mail.test',
      authPassword: 'pw',
    });
    // A readable host (the create's sign-in check skips reserved names; the poller would too).
    await deps.store.update(mailboxKey(box.id), { set: { imapHost: host } });
    ids.push(box.id);
  }
  return ids;
}

describe('the mailbox poller', () => {
  it('reads each mailbox once per interval, keeping its cursor; a reader already holding the lease makes another tick skip it', async () => {
    const { reader, reads } = scriptedReader({ 'imap.one.com': async (c) => empty(7, (c.lastUid ?? 0) + 1) });
    const deps = unitDeps({ mailReader: reader });
    const [id] = await readable(deps, ['imap.one.com']);
    expect((await pollDue(deps)).mailboxes).toBe(1);
    expect(await deps.store.get(inboxStateKey(id!))).toMatchObject({ uidValidity: 7, lastUid: 1, failures: 0 });
    // Not due again until the interval has passed (engine time), and never twice in a wall second.
    deps.wallClock.advance(5_000);
    expect((await pollDue(deps)).mailboxes).toBe(0);
    deps.clock.advance(POLL_EVERY_MS);
    // Another reader holds the lease: this tick leaves the mailbox alone.
    await deps.store.update(inboxStateKey(id!), { set: { leaseId: 'other', leaseUntil: deps.wallClock.now() + 60_000 } });
    expect((await pollDue(deps)).mailboxes).toBe(0);
    deps.wallClock.advance(61_000);
    expect((await pollDue(deps)).mailboxes).toBe(1);
    expect(reads.map((r) => r.cursor.lastUid)).toEqual([undefined, 1]);
  });

  it('reads many mailboxes at once: one slow server does not hold up the others', async () => {
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    const done: string[] = [];
    const { reader } = scriptedReader({
      'imap.slow.com': async () => {
        await slow;
        done.push('slow');
        return empty();
      },
      'imap.a.com': async () => (done.push('a'), empty()),
      'imap.b.com': async () => (done.push('b'), empty()),
    });
    const deps = unitDeps({ mailReader: reader });
    await readable(deps, ['imap.slow.com', 'imap.a.com', 'imap.b.com']);
    const tick = pollDue(deps);
    // The two quick ones finish while the slow one is still being read.
    for (let i = 0; i < 500 && done.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(done.sort()).toEqual(['a', 'b']);
    release();
    expect((await tick).mailboxes).toBe(3);
  });

  it('a refused sign-in sets the mailbox ERROR and backs off in wall time; an unreachable server only backs off', async () => {
    const { reader, reads } = scriptedReader({
      'imap.refuses.com': async () => {
        throw new InboxReadError('auth', 'AUTHENTICATIONFAILED');
      },
      'imap.down.com': async () => {
        throw new InboxReadError('connect', 'ECONNREFUSED');
      },
    });
    const deps = unitDeps({ mailReader: reader });
    const [refuses, down] = await readable(deps, ['imap.refuses.com', 'imap.down.com']);
    expect((await pollDue(deps)).failed).toBe(2);
    expect(await deps.store.get(mailboxKey(refuses!))).toMatchObject({
      status: 'ERROR',
      lastError: expect.stringMatching(/refused the sign-in/),
    });
    expect((await deps.store.get(mailboxKey(down!)))!.status).toBe('ACTIVE');
    // However fast the engine clock runs, nothing is tried again before the back-off (15 s, 60 s) has passed on the wall.
    deps.clock.advance(10 * POLL_EVERY_MS);
    deps.wallClock.advance(14_000);
    await pollDue(deps);
    expect(reads).toHaveLength(2);
    deps.wallClock.advance(2_000);
    await pollDue(deps);
    expect(reads.map((r) => r.host)).toEqual(['imap.refuses.com', 'imap.down.com', 'imap.down.com']);
    expect(await deps.store.get(inboxStateKey(down!))).toMatchObject({ failures: 2 });
  });
});
