/**
 * Seed inboxes: accounts the customer owns at the big mailbox providers,
 * which receive a placement sample and are then read over IMAP to see where
 * it landed (docs/placement.md). The engine only ever reads them; their
 * passwords are sealed like a mailbox's and never leave core.
 */
import type { Deps } from '../deps.ts';
import { publicFields, queryAll } from '../collections.ts';
import { ConflictError, NotFoundError, TransactionFailedError, ValidationError } from '../errors.ts';
import { newId } from '../ids.ts';
import type { ServerLogin } from '../ports/mail.ts';
import type { Item } from '../ports/store.ts';
import { fromItem, imapPortOf, Seed, toItem } from './entity.ts';
import { openSecret, sealSecret } from '../secrets/index.ts';
import { verb } from '../validate.ts';
import { SIGN_IN_TIMEOUT_MS, signInSentence } from '../mailbox/signin.ts';
import { CreateSeed, type SeedProvider } from './seed.schema.ts';
import { allSeeds, seedEmailKey, seedKey } from './keys.ts';
import type { SeedView } from './seed.view.ts';

/** The IMAP servers of the providers a seed usually lives at, so a seed needs only an address and an app password. */
const KNOWN: { provider: SeedProvider; domains: RegExp; imapHost: string }[] = [
  { provider: 'GOOGLE', domains: /^(gmail\.com|googlemail\.com)$/, imapHost: 'imap.gmail.com' },
  { provider: 'MICROSOFT', domains: /^(outlook\.[a-z.]+|hotmail\.[a-z.]+|live\.[a-z.]+|msn\.com)$/, imapHost: 'outlook.office365.com' },
  { provider: 'YAHOO', domains: /^(yahoo\.[a-z.]+|ymail\.com|rocketmail\.com)$/, imapHost: 'imap.mail.yahoo.com' },
  { provider: 'APPLE', domains: /^(icloud\.com|me\.com|mac\.com)$/, imapHost: 'imap.mail.me.com' },
  { provider: 'ZOHO', domains: /^(zoho\.com|zohomail\.[a-z.]+)$/, imapHost: 'imap.zoho.com' },
];

/** The public shape: no password, no keys. */
export const toSeed = (seed: Seed): SeedView => ({
  ...publicFields(seed),
  // The port the engine signs in on (every seed added stores it).
  imapPort: imapPortOf(seed),
  username: seed.username ?? null,
  /** Set when the unsubscribe link of a sample was pressed in this seed: its samples stop until it is added again. */
  unsubscribedAt: seed.unsubscribedAt ?? null,
});

export const passwordContext = (seedId: string) => ({ purpose: 'seed-password', seedId });

/**
 * Adds a seed inbox: the address is free, the provider and IMAP server are
 * known or given, the sign-in works, and a spam folder is found (a seed whose
 * spam folder cannot be read would report every filtered sample as missing).
 * Nothing is saved unless all of that holds.
 */
export const create = verb(CreateSeed, async (deps: Deps, input) => {
  const host = input.email.split('@')[1] ?? '';
  const known = KNOWN.find((k) => k.provider === input.provider) ?? (input.provider ? undefined : KNOWN.find((k) => k.domains.test(host)));
  const provider = input.provider ?? known?.provider ?? 'OTHER';
  const imapHost = input.imapHost ?? known?.imapHost;
  if (!imapHost) throw new ValidationError(`imapHost is required: the engine does not know the IMAP server of ${host}.`);
  if (await deps.store.get(seedEmailKey(input.email))) throw new ConflictError(`The seed inbox ${input.email} is already added.`);

  const login: ServerLogin = {
    host: imapHost,
    port: input.imapPort ?? 993,
    user: input.username ?? input.email,
    pass: input.password,
    timeoutMs: SIGN_IN_TIMEOUT_MS,
  };
  const signIn = await deps.signIn.imap(login);
  if (!signIn.ok) {
    deps.log.warn('seed inbox sign-in failed', { host: login.host, port: login.port, reason: signIn.reason, detail: signIn.detail });
    throw new ValidationError(signInSentence('imap', login, signIn));
  }
  let spamFolder: string | undefined;
  try {
    spamFolder = await deps.mailReader.spamFolder(login, input.spamFolder);
  } catch (err) {
    deps.log.warn('seed inbox folders could not be listed', { host: login.host, err });
    throw new ValidationError(
      `The IMAP server at ${login.host} signed in but did not list its folders. Try again, or ask your mail provider.`,
    );
  }
  if (!spamFolder) {
    throw new ValidationError(
      input.spamFolder
        ? `spamFolder: the seed inbox has no folder named ${input.spamFolder}.`
        : 'The seed inbox has no spam folder the engine can find: name it in spamFolder.',
    );
  }

  const id = newId();
  const now = new Date(deps.wallClock.now()).toISOString();
  const seed: Seed = {
    id,
    email: input.email,
    provider,
    imapHost,
    imapPort: login.port,
    username: input.username ?? null,
    spamFolder,
    sealedPassword: await sealSecret(deps.keys, input.password, passwordContext(id)),
    createdAt: now,
  };
  try {
    await deps.store.transact([
      { put: { ...seedEmailKey(input.email), seedId: id }, if: { itemExists: false } },
      { put: toItem(seed), if: { itemExists: false } },
    ]);
  } catch (err) {
    if (err instanceof TransactionFailedError) throw new ConflictError(`The seed inbox ${input.email} is already added.`);
    throw err;
  }
  return toSeed(seed);
});

export async function list(deps: Pick<Deps, 'store'>) {
  return (await all(deps)).map(toSeed);
}

/** Every seed inbox as stored (with its sealed password), for a placement sample. */
export async function all(deps: Pick<Deps, 'store'>): Promise<Seed[]> {
  return (await queryAll(deps.store, allSeeds())).map(fromItem);
}

/** Removes a seed inbox. A sample still waiting to send to it or read it counts it as skipped. */
export async function remove(deps: Pick<Deps, 'store'>, id: string): Promise<void> {
  const item = await deps.store.get(seedKey(id));
  if (!item) throw new NotFoundError(`There is no seed inbox ${id}.`);
  await deps.store.transact([{ delete: seedKey(id) }, { delete: seedEmailKey(fromItem(item).email) }]);
}

/** The IMAP login of a seed inbox, parsed or as read. */
export async function loginOf(deps: Pick<Deps, 'keys'>, row: Seed | Item): Promise<ServerLogin> {
  // Parsing a parsed seed gives it back: callers holding the row as read need not parse it first.
  const seed = Seed.parse(row);
  return {
    host: seed.imapHost,
    port: imapPortOf(seed),
    user: seed.username ?? seed.email,
    pass: await openSecret(deps.keys, seed.sealedPassword, passwordContext(seed.id)),
  };
}
