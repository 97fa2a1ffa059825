import { describe, expect, it } from 'vitest';
import { unitDeps } from '@outbound/core/testing/unit-deps';
import { openSecret, sealSecret } from '@outbound/core/secrets/index';
import { functions } from '../manifest.ts';
import { restrictTo } from './deps.ts';

describe('what a function may reach (restrictTo, as the local runtime runs every handler)', () => {
  const deps = unitDeps();

  it('leaves out the kits, the queue and the sealing its manifest entry does not name', async () => {
    const replies = restrictTo(deps, 'replies', functions.replies);
    expect(() => replies.mailer.send({} as never, {} as never)).toThrow(
      /mailer is not available in this function: the replies function's manifest entry names no mail or smtp kit/,
    );
    expect(() => replies.ai.write({} as never)).toThrow(/names no ai kit/);
    expect(() => replies.queue.enqueue([])).toThrow(/does not say it enqueues/);
    await expect(sealSecret(replies.keys, 'x', { purpose: 'ai-key' })).rejects.toThrow(/may not seal a ai-key secret/);
    // The installation's own secrets are made by whichever function needs one first.
    await expect(sealSecret(replies.keys, 'x', { purpose: 'install-secret', name: 'JWT_SECRET' })).resolves.toBeTypeOf('string');
  });

  it('holds the login to the one installation secret it needs, by name, as its KMS grant does', async () => {
    const auth = restrictTo(deps, 'auth', functions.auth);
    const jwt = await sealSecret(auth.keys, 'k', { purpose: 'install-secret', name: 'JWT_SECRET' });
    await expect(openSecret(auth.keys, jwt, { purpose: 'install-secret', name: 'JWT_SECRET' })).resolves.toBe('k');
    const salt = await sealSecret(deps.keys, 's', { purpose: 'install-secret', name: 'SUPPRESSION_SALT' });
    await expect(openSecret(auth.keys, salt, { purpose: 'install-secret', name: 'SUPPRESSION_SALT' })).rejects.toThrow(
      /may not open a install-secret secret named SUPPRESSION_SALT/,
    );
    await expect(sealSecret(auth.keys, 'u', { purpose: 'install-secret', name: 'UNSUBSCRIBE_KEY' })).rejects.toThrow(/may not seal/);
  });

  it('keeps what the entry names, the same adapters as the whole engine', async () => {
    const sender = restrictTo(deps, 'sender', functions.sender);
    expect(sender.mailer).toBe(deps.mailer);
    expect(sender.ai).toBe(deps.ai);
    expect(sender.queue).toBe(deps.queue);
    await expect(sealSecret(sender.keys, 'x', { purpose: 'mailbox-oauth-refresh', mailboxId: 'm' })).resolves.toBeTypeOf('string');
    const sealed = await sealSecret(deps.keys, 'pw', { purpose: 'mailbox-password', mailboxId: 'm' });
    await expect(openSecret(sender.keys, sealed, { purpose: 'mailbox-password', mailboxId: 'm' })).resolves.toBe('pw');
    // A public function may not open a mailbox's password (its AWS role may not either).
    await expect(
      openSecret(restrictTo(deps, 'unsubscribe', functions.unsubscribe).keys, sealed, { purpose: 'mailbox-password', mailboxId: 'm' }),
    ).rejects.toThrow(/may not open a mailbox-password secret/);
    // One view per function, so per-process caches keyed by its ports stay warm.
    expect(restrictTo(deps, 'sender', functions.sender)).toBe(sender);
  });
});
