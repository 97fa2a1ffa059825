import * as z from 'zod';
import { DkimSelector, DomainName } from '../domain/domain.schema.ts';

/**
 * A name anyone may ask the public check about: a domain name as the engine
 * takes it, and not one that only points inward (an IP address written as a
 * name, localhost, reverse-lookup zones), so junk is refused before any lookup.
 */
export const PublicDomainName = DomainName.refine((name) => !/(^|\.)\d+$/.test(name), {
  error: 'must be a domain name such as example.com, not an address',
}).refine((name) => !/(^|\.)(localhost|arpa|invalid)$/.test(name), {
  error: 'must be a public domain name such as example.com',
});

export const CheckDomain = z.object({
  domain: DomainName,
  selector: DkimSelector.optional(),
});

export const PublicCheck = z.object({ domain: PublicDomainName });
