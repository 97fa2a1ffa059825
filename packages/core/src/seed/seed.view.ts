/** A seed inbox as the API shows it (toSeed, in seed/index.ts): never its password. */
import * as z from 'zod';
import { SeedProvider } from './seed.schema.ts';

export const SeedView = z.object({
  id: z.string(),
  email: z.string(),
  provider: SeedProvider,
  imapHost: z.string().optional(),
  imapPort: z.int().optional(),
  username: z.string().nullish(),
  spamFolder: z.string().nullish(),
  createdAt: z.string().optional(),
  unsubscribedAt: z.string().nullish(),
});
export type SeedView = z.infer<typeof SeedView>;
