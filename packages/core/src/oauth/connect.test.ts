/**
 * Connecting an OAuth mailbox, on the unit tier with a scripted provider:
 * whose address the callback believes, and which mailboxes the public
 * authorize route offers a connection for. The whole flow over HTTP, against
 * a local OAuth server, is test/e2e/oauth.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { ConflictError, ValidationError } from '../errors.ts';
import * as domains from '../domain/index.ts';
import * as mailboxes from '../mailbox/index.ts';
import { mailboxKey } from '../mailbox/keys.ts';
import type { OAuthApp, OAuthProviderName } from '../ports/oauth.ts';
import { created, unitDeps, type UnitDeps } from '../testing/unit-deps.ts';
import { authorize, callback, MICROSOFT_CONSUMER_TENANT } from './index.ts';

const app = (name: string): OAuthApp => ({
  clientId: `${name}-client`,
  clientSecret: 'secret',
  authUrl: `https://${name}.test/auth`,
  tokenUrl: `https://${name}.test/token`,
  userinfoUrl: `https://${name}.test/me`,
});

/** A provider that grants every code and answers `profile` (or fails it, so the engine reads `idClaims` from the ID token). */
function setup(profile: Record<string, unknown> | 'unreachable', idClaims: Record<string, unknown> = {}): UnitDeps {
  const idToken = ['{"alg":"none"}', JSON.stringify(idClaims)].map((p) => Buffer.from(p).toString('base64url')).join('.') + '.';
  const deps = unitDeps({
    oauth: {
      exchangeCode: async () => ({ accessToken: 'at', refreshToken: 'rt', expiresAt: Date.now() + 3600_000, idToken }),
      refresh: async () => ({ accessToken: 'at', expiresAt: Date.now() + 3600_000 }),
      profile: async () => {
        if (profile === 'unreachable') throw new Error('Graph is not reachable with these scopes');
        return profile;
      },
    },
  });
  deps.config = { ...deps.config, oauth: { google: app('google'), microsoft: app('microsoft') } };
  return deps;
}

async function mailbox(deps: UnitDeps, email: string, provider: 'GOOGLE' | 'MICROSOFT') {
  const domain = await created(domains.create, deps, { domainName: email.split('@')[1]!, mailingAddress: '1 Main St' });
  return created(mailboxes.create, deps, { email, domainId: domain.id, provider });
}

/** The browser's round trip: authorize, the provider's redirect back with a code, the callback. */
async function connect(deps: UnitDeps, provider: OAuthProviderName, mailboxId: string) {
  const state = new URL(await authorize(deps, provider, { mailboxId })).searchParams.get('state')!;
  return callback(deps, provider, { code: 'the-code', state });
}

const status = async (deps: UnitDeps, id: string) => (await deps.store.get(mailboxKey(id)))!.status;

describe('the callback believes only an address the provider vouches for', () => {
  it('Google: an email without email_verified connects nothing', async () => {
    const deps = setup({ sub: '1', email: 'gina@gco.com', email_verified: false });
    const box = await mailbox(deps, 'gina@gco.com', 'GOOGLE');
    await expect(connect(deps, 'google', box.id)).rejects.toThrow(/did not say which account signed in/);
    expect(await status(deps, box.id)).toBe('PAUSED');

    const ok = setup({ sub: '1', email: 'gina@gco.com', email_verified: true });
    const box2 = await mailbox(ok, 'gina@gco.com', 'GOOGLE');
    await expect(connect(ok, 'google', box2.id)).resolves.toEqual({ email: 'gina@gco.com' });
    expect(await status(ok, box2.id)).toBe('ACTIVE');
  });

  it("Microsoft (nOAuth): a tenant's own user whose mail attribute names another domain does not connect that domain's mailbox", async () => {
    // An administrator of attacker.onmicrosoft.com typed the victim's address into a user's mail attribute.
    const deps = setup({ id: 'x', mail: 'mo@victim.com', userPrincipalName: 'mallory@attacker.onmicrosoft.com' });
    const box = await mailbox(deps, 'mo@victim.com', 'MICROSOFT');
    await expect(connect(deps, 'microsoft', box.id)).rejects.toThrow(/You signed in as mallory@attacker\.onmicrosoft\.com/);
    expect(await status(deps, box.id)).toBe('PAUSED');
    // A guest's principal name names the home tenant's address, not one this tenant verified.
    const guest = setup({ id: 'g', mail: 'mo@victim.com', userPrincipalName: 'mo_victim.com#EXT#@attacker.onmicrosoft.com' });
    const box2 = await mailbox(guest, 'mo@victim.com', 'MICROSOFT');
    await expect(connect(guest, 'microsoft', box2.id)).rejects.toBeInstanceOf(ValidationError);
  });

  it('Microsoft: mail in the domain of the principal name connects; so does the principal name itself', async () => {
    const deps = setup({ id: 'x', mail: 'Mo@Acme.com', userPrincipalName: 'mo.smith@acme.com', displayName: 'Mo' });
    const box = await mailbox(deps, 'mo@acme.com', 'MICROSOFT');
    await expect(connect(deps, 'microsoft', box.id)).resolves.toEqual({ email: 'mo@acme.com' });
    const upn = setup({ id: 'y', userPrincipalName: 'ann@acme.com' });
    const box2 = await mailbox(upn, 'ann@acme.com', 'MICROSOFT');
    await expect(connect(upn, 'microsoft', box2.id)).resolves.toEqual({ email: 'ann@acme.com' });
  });

  it("Microsoft's ID token: its email counts only from the consumer tenant or with xms_edov", async () => {
    const work = setup('unreachable', { tid: 'a-work-tenant', email: 'mo@victim.com', preferred_username: 'mo@victim.com' });
    const box = await mailbox(work, 'mo@victim.com', 'MICROSOFT');
    await expect(connect(work, 'microsoft', box.id)).rejects.toThrow(/did not say which account signed in/);
    const owned = setup('unreachable', { tid: 'a-work-tenant', email: 'mo@acme.com', xms_edov: true });
    await expect(connect(owned, 'microsoft', (await mailbox(owned, 'mo@acme.com', 'MICROSOFT')).id)).resolves.toEqual({
      email: 'mo@acme.com',
    });
    const personal = setup('unreachable', { tid: MICROSOFT_CONSUMER_TENANT, email: 'mo@outlook.com' });
    await expect(connect(personal, 'microsoft', (await mailbox(personal, 'mo@outlook.com', 'MICROSOFT')).id)).resolves.toEqual({
      email: 'mo@outlook.com',
    });
  });
});

describe('the public authorize route', () => {
  it('does not name the mailbox in the redirect (no login_hint)', async () => {
    const deps = setup({ sub: '1', email: 'gina@gco.com', email_verified: true });
    const box = await mailbox(deps, 'gina@gco.com', 'GOOGLE');
    const url = await authorize(deps, 'google', { mailboxId: box.id });
    expect(new URL(url).searchParams.has('login_hint')).toBe(false);
    expect(url).not.toMatch(/gina/i);
  });

  it('refuses (409) a mailbox that is connected and sending; one in ERROR may be connected again', async () => {
    const deps = setup({ sub: '1', email: 'gina@gco.com', email_verified: true });
    const box = await mailbox(deps, 'gina@gco.com', 'GOOGLE');
    await connect(deps, 'google', box.id);
    await expect(authorize(deps, 'google', { mailboxId: box.id })).rejects.toBeInstanceOf(ConflictError);
    await deps.store.update(mailboxKey(box.id), { set: { status: 'ERROR', lastError: 'Google refused to renew the access' } });
    await expect(connect(deps, 'google', box.id)).resolves.toEqual({ email: 'gina@gco.com' });
    expect(await status(deps, box.id)).toBe('ACTIVE');
  });
});
