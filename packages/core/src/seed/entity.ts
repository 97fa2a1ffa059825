/** A stored seed inbox: its one shape, read once from the row. */
import * as z from 'zod';
import type { Item } from '../ports/store.ts';
import { DEFAULT_IMAP_PORT } from '../mailbox/entity.ts';
import { SeedProvider } from './seed.schema.ts';
import { seedCollection, seedKey } from './keys.ts';

/**
 * The row as stored. Loose: the row also carries its keys and index
 * attributes, which the API projection drops as it reads them.
 */
export const Seed = z.looseObject({
  id: z.string(),
  email: z.string(),
  provider: SeedProvider,
  imapHost: z.string(),
  imapPort: z.number().nullish(),
  /** Signs in as the address when null. */
  username: z.string().nullish(),
  spamFolder: z.string(),
  sealedPassword: z.string(),
  /** Set when the unsubscribe link of a sample was pressed in this seed: its samples stop until it is added again. */
  unsubscribedAt: z.string().optional(),
  createdAt: z.string().optional(),
});
export type Seed = z.infer<typeof Seed>;

export const fromItem = (item: Item): Seed => Seed.parse(item);

export const toItem = (s: Seed): Item => ({ ...seedKey(s.id), ...seedCollection(s.id), ...s });

/** The IMAP port of a seed: its own, or the usual one. */
export const imapPortOf = (s: Pick<Seed, 'imapPort'>): number => s.imapPort ?? DEFAULT_IMAP_PORT;
