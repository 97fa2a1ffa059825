import { describe, expect, it } from 'vitest';
import * as domains from '../domain/index.ts';
import * as mailboxes from '../mailbox/index.ts';
import { mailboxKey } from '../mailbox/keys.ts';
import { fromItem } from '../mailbox/entity.ts';
import { OAuthRefusedError, type OAuthClient } from '../ports/oauth.ts';
import { sealSecret } from '../secrets/index.ts';
import { created, unitDeps } from '../testing/unit-deps.ts';
import { accessToken, MailboxAccessError, refreshTokenContext } from './tokens.ts';

const APP = { clientId: 'id', clientSecret: 'secret', authUrl: 'https://a', tokenUrl: 'https://t', userinfoUrl: 'https://u' };

/** A provider that counts refreshes, rotates when asked, and refuses once revoked. */
function provider(now: () => number) {
  const state = { refreshes: 0, revoked: false, rotate: false, seen: [] as string[] };
  const client: OAuthClient = {
    exchangeCode: async () => {
      throw new Error('not used');
    },
    profile: async () => ({}),
    async refresh(_app, refreshToken) {
      state.refreshes++;
      state.seen.push(refreshToken);
      if (state.revoked) throw new OAuthRefusedError('invalid_grant');
      return {
        accessToken: `at-${state.refreshes}`,
        expiresAt: now() + 3600_000,
        ...(state.rotate ? { refreshToken: `rt-${state.refreshes}` } : {}),
      };
    },
  };
  return { client, state };
}

async function connected() {
  const holder: { now: () => number } = { now: () => 0 };
  const p = provider(() => holder.now());
  const deps = unitDeps({ oauth: p.client });
  holder.now = () => deps.wallClock.now();
  deps.config.oauth = { google: APP };
  const domain = await created(domains.create, deps, { domainName: 'g.com', mailingAddress: '1 Main St' });
  const box = await created(mailboxes.create, deps, { email: 'g@g.com', domainId: domain.id, provider: 'GOOGLE' });
  const id = String(box.id);
  await deps.store.update(mailboxKey(id), {
    set: { auth: 'oauth', status: 'ACTIVE', sealedRefreshToken: await sealSecret(deps.keys, 'rt-0', refreshTokenContext(id)) },
  });
  return { deps, p, id, mailbox: async () => fromItem((await deps.store.get(mailboxKey(id)))!) };
}

describe('access tokens for XOAUTH2', () => {
  it('refreshes once and keeps the token until shortly before it expires (no KMS call per use)', async () => {
    const { deps, p, mailbox } = await connected();
    expect(await accessToken(deps, await mailbox())).toBe('at-1');
    const kmsCalls = deps.keys.calls;
    expect(await accessToken(deps, await mailbox())).toBe('at-1');
    expect(p.state.refreshes).toBe(1);
    expect(deps.keys.calls).toBe(kmsCalls);
    deps.wallClock.advance(56 * 60_000);
    expect(await accessToken(deps, await mailbox())).toBe('at-2');
    expect(p.state.refreshes).toBe(2);
  });

  it('stores a rotated refresh token at once and uses it next', async () => {
    const { deps, p, mailbox } = await connected();
    p.state.rotate = true;
    await accessToken(deps, await mailbox());
    deps.wallClock.advance(2 * 3600_000);
    await accessToken(deps, await mailbox());
    expect(p.state.seen).toEqual(['rt-0', 'rt-1']);
  });

  it('a refused refresh marks the mailbox ERROR with a sentence and throws; a later reconnect is not undone', async () => {
    const { deps, p, mailbox } = await connected();
    p.state.revoked = true;
    await expect(accessToken(deps, await mailbox())).rejects.toBeInstanceOf(MailboxAccessError);
    expect(await mailbox()).toMatchObject({ status: 'ERROR', lastError: expect.stringMatching(/connect the mailbox again/) });
    expect(JSON.stringify(deps.logs)).not.toContain('rt-0');
  });
});
