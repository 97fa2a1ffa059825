import * as z from 'zod';
import type { Deps } from '../deps.ts';
import { publicFields, queryAll } from '../collections.ts';
import { ConflictError, NotFoundError, TransactionFailedError, ValidationError } from '../errors.ts';
import { newId } from '../ids.ts';
import { sealSecret } from '../secrets/index.ts';
import { verb } from '../validate.ts';
import { domainKey } from '../domain/keys.ts';
import * as domains from '../domain/entity.ts';
import * as campaigns from '../campaign/membership.ts';
import * as sequences from '../lead/sequence.ts';
import { CreateMailbox, UpdateMailbox } from './mailbox.schema.ts';
import { checkSignIn } from './signin.ts';
import { passwordContext } from './access.ts';
import { inboxStateKey } from '../inbound/keys.ts';
import { oauthServers, PROVIDERS, providerOf } from '../oauth/providers.ts';
import { allMailboxes, mailboxEmailKey, mailboxKey } from './keys.ts';
import { DEFAULT_DAILY_CAP, fromItem, toItem, type Mailbox } from './entity.ts';
import type { MailboxView } from './mailbox.view.ts';

/** Credentials never leave core: the sealed password and OAuth tokens are dropped here. */
export const toMailbox = (m: Mailbox): MailboxView => ({
  ...publicFields(m),
  // A row from before these were stored shows what the engine uses for it (every mailbox connected since stores both).
  provider: m.provider ?? 'SMTP_CUSTOM',
  dailyCap: m.dailyCap ?? DEFAULT_DAILY_CAP,
  smtpHost: m.smtpHost ?? null,
  smtpPort: m.smtpPort ?? null,
  imapHost: m.imapHost ?? null,
  imapPort: m.imapPort ?? null,
  authUsername: m.authUsername ?? null,
  senderName: m.senderName ?? null,
});

export { passwordContext } from './access.ts';

/**
 * Connects a mailbox. The duplicate check answers first (so a retried create
 * contacts no server), then the sign-in check, and only then is anything saved.
 */
export const create = verb(CreateMailbox, async (deps: Deps, input) => {
  const row = await deps.store.get(domainKey(input.domainId));
  if (!row) throw new ValidationError(`domainId: there is no domain ${input.domainId}. Add the domain first.`);
  // Guardrail 1: the footer address is the domain's the mailbox sends from, so the mailbox must send from it.
  const host = input.email.split('@')[1] ?? '';
  const name = domains.fromItem(row).domainName;
  if (host !== name && !host.endsWith(`.${name}`)) {
    throw new ValidationError(`email: ${input.email} is not an address at ${name}, the domain it was added to.`);
  }
  if (await deps.store.get(mailboxEmailKey(input.email))) throw new ConflictError(`The mailbox ${input.email} is already connected.`);

  oauthHostsOnly(deps, input);
  await checkSignIn(deps, input);

  const id = newId();
  const now = new Date(deps.wallClock.now()).toISOString();
  const { authPassword, ...fields } = input;
  // An OAuth mailbox cannot send until its consent flow completes.
  const awaitingOAuth = input.provider !== 'SMTP_CUSTOM' && !authPassword;
  const mailbox: Mailbox = {
    id,
    ...fields,
    senderName: input.senderName ?? null,
    status: awaitingOAuth ? 'PAUSED' : 'ACTIVE',
    auth: authPassword ? 'password' : awaitingOAuth ? 'oauth-pending' : 'none',
    ...(authPassword ? { sealedPassword: await sealSecret(deps.keys, authPassword, passwordContext(id)) } : {}),
    createdAt: now,
    updatedAt: now,
  };
  try {
    await deps.store.transact([
      { put: { ...mailboxEmailKey(input.email), mailboxId: id }, if: { itemExists: false } },
      { put: toItem(mailbox), if: { itemExists: false } },
    ]);
  } catch (err) {
    if (err instanceof TransactionFailedError) throw new ConflictError(`The mailbox ${input.email} is already connected.`);
    throw err;
  }
  return toMailbox(mailbox);
});

/**
 * A Google or Microsoft mailbox connected through OAuth uses its provider's servers only: its
 * bearer token opens all of the account's mail, so a host typed here would receive it (and the
 * owner's consent would pass the address check). Other servers need an app password.
 */
function oauthHostsOnly(deps: Pick<Deps, 'config'>, input: CreateMailbox): void {
  const provider = input.provider === 'SMTP_CUSTOM' || input.authPassword ? undefined : providerOf(input.provider);
  if (!provider) return;
  const servers = oauthServers(deps.config, provider);
  const label = PROVIDERS[provider].label;
  for (const [field, given, expected] of [
    ['smtpHost', input.smtpHost, servers.smtp.host],
    ['smtpPort', input.smtpPort, servers.smtp.port],
    ['imapHost', input.imapHost, servers.imap.host],
    ['imapPort', input.imapPort, servers.imap.port],
  ] as const) {
    if (given !== undefined && String(given).toLowerCase() !== String(expected).toLowerCase()) {
      throw new ValidationError(
        `${field}: a ${input.provider} mailbox connected through OAuth uses ${label}'s own servers (SMTP ${servers.smtp.host}:${servers.smtp.port}, IMAP ${servers.imap.host}:${servers.imap.port}): leave ${field} out, or give an app password (authPassword) to use other servers.`,
      );
    }
  }
}

export async function list(deps: Pick<Deps, 'store'>) {
  return (await queryAll(deps.store, allMailboxes())).map((item) => toMailbox(fromItem(item)));
}

export async function get(deps: Pick<Deps, 'store'>, id: string): Promise<Mailbox> {
  const item = await deps.store.get(mailboxKey(id));
  if (!item) throw new NotFoundError(`There is no mailbox ${id}.`);
  return fromItem(item);
}

export const update = verb(UpdateMailbox.extend({ id: z.string() }), async (deps: Pick<Deps, 'store' | 'wallClock'>, { id, ...input }) => {
  const current = await get(deps, id);
  if (input.status && input.status !== 'PAUSED' && current.auth === 'oauth-pending') {
    throw new ValidationError('status: this mailbox is not connected yet. Finish its OAuth connection first.');
  }
  const set: Record<string, unknown> = { updatedAt: new Date(deps.wallClock.now()).toISOString() };
  for (const [k, v] of Object.entries(input)) if (v !== undefined) set[k] = v;
  try {
    return toMailbox(fromItem(await deps.store.update(mailboxKey(id), { set, if: { itemExists: true } })));
  } catch (err) {
    if (err instanceof TransactionFailedError || (err as Error).name === 'ConditionFailedError')
      throw new NotFoundError(`There is no mailbox ${id}.`);
    throw err;
  }
});

/**
 * Deletes a mailbox: it leaves every campaign that picked it, and the
 * follow-up sequences of the leads pinned to it end (docs/api.md, Mailboxes).
 */
export async function remove(deps: Pick<Deps, 'store' | 'wallClock' | 'log'>, id: string): Promise<void> {
  const mailbox = await get(deps, id);
  await campaigns.dropMailbox(deps, id);
  await sequences.endForMailbox(deps, id);
  await deps.store.transact([
    { delete: mailboxKey(id) },
    { delete: mailboxEmailKey(mailbox.email) },
    // Its inbox reading (cursor, lease) goes with it.
    { delete: inboxStateKey(id) },
  ]);
}
