import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imapReader } from '@outbound/mail/sent-folder';
import type { ServerLogin } from '@outbound/core/ports/mail';
import { startDovecot, type TestDovecot } from '../helpers/dovecot.ts';

const SEED = 'seed@reader.test';
const PASS = 'seed-password';
const reader = imapReader();
let dovecot: TestDovecot;
let login: ServerLogin;

const message = (id: string) =>
  [
    `From: a@sender.test`,
    `To: ${SEED}`,
    `Subject: sample ${id}`,
    `Message-ID: <${id}@sender.test>`,
    `Date: ${new Date().toUTCString()}`,
    '',
    'Hello.',
    '',
  ].join('\r\n');

beforeAll(async () => {
  dovecot = await startDovecot({ [SEED]: PASS });
  login = { host: dovecot.host, port: dovecot.imapPort, user: SEED, pass: PASS, timeoutMs: 10_000 };
});
afterAll(async () => {
  await dovecot?.stop();
});

describe('the IMAP reader against Dovecot', { timeout: 60_000 }, () => {
  it('finds the spam folder by its \\Junk mark, or by the name given, and nothing for a name the account lacks', async () => {
    expect(await reader.spamFolder(login)).toBe('Junk');
    expect(await reader.spamFolder(login, 'junk')).toBe('Junk');
    expect(await reader.spamFolder(login, 'Sent')).toBe('Sent');
    expect(await reader.spamFolder(login, 'Bulk Mail')).toBeUndefined();
  });

  it('says INBOX, SPAM or MISSING by where the Message-ID is, with or without angle brackets', async () => {
    await dovecot.deliver(SEED, message('in-inbox'), 'INBOX');
    await dovecot.deliver(SEED, message('in-junk'), 'Junk');
    await dovecot.deliver(SEED, message('in-sent'), 'Sent');
    expect(await reader.placementOf(login, 'in-inbox@sender.test', 'Junk')).toBe('INBOX');
    expect(await reader.placementOf(login, '<in-junk@sender.test>', 'Junk')).toBe('SPAM');
    // A copy in another folder is neither the inbox nor spam.
    expect(await reader.placementOf(login, 'in-sent@sender.test', 'Junk')).toBe('MISSING');
    expect(await reader.placementOf(login, 'never-sent@sender.test', 'Junk')).toBe('MISSING');
    // The same reader answers the Sent-folder question of an unknown send outcome.
    expect(await reader.sentContains(login, 'in-sent@sender.test')).toBe(true);
    expect(await reader.sentContains(login, 'in-inbox@sender.test')).toBe(false);
  });

  it('throws, never answers MISSING, when it cannot sign in', async () => {
    await expect(reader.placementOf({ ...login, pass: 'wrong' }, 'in-inbox@sender.test', 'Junk')).rejects.toThrow();
    await expect(reader.spamFolder({ ...login, pass: 'wrong' })).rejects.toThrow();
  });
});
