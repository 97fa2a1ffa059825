import * as z from 'zod';

/** A host name: letters, digits and hyphens in dot-separated labels, at least two of them. */
export const DomainName = z
  .string({ error: 'must be a string' })
  .trim()
  .toLowerCase()
  .transform((s) => s.replace(/\.$/, ''))
  .pipe(
    z
      .string()
      .max(253, { error: 'must be at most 253 characters' })
      .regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/, {
        error: 'must be a domain name such as example.com',
      }),
  );

/** The part before ._domainkey: one DNS label. Null or '' clears it. */
export const DkimSelector = z
  .union([z.string({ error: 'must be a string or null' }), z.null()])
  .transform((s) => (s === null || s.trim() === '' ? null : s.trim()))
  .refine((s) => s === null || /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(s), {
    error: 'must be a single DNS label (letters, digits and hyphens, at most 63), such as google or s1',
  });

export const Label = z
  .union([z.string({ error: 'must be a string or null' }).max(80, { error: 'must be at most 80 characters' }), z.null()])
  .transform((s) => (s === null || s.trim() === '' ? null : s.trim()));

/** Address lines as the footer prints them: trimmed, blank lines dropped. Blank or null clears it. */
export const MailingAddress = z
  .union([z.string({ error: 'must be a string or null' }).max(500, { error: 'must be at most 500 characters' }), z.null()])
  .transform((s) => {
    if (s === null) return null;
    const lines = s
      .split(/\r\n|\r|\n/)
      .map((l) => l.trim())
      .filter(Boolean);
    return lines.length ? lines.join('\n') : null;
  });

const part = (name: string, required: boolean) => {
  const s = z.string({ error: `must be a string` }).trim().max(200, { error: 'must be at most 200 characters' });
  return required ? s.min(1, { error: `is required: ${name} cannot be blank` }) : s.optional();
};

export const MailingAddressParts = z.strictObject({
  businessName: part('businessName', false),
  street: part('street', true),
  suite: part('suite', false),
  city: part('city', true),
  region: part('region', false),
  postalCode: part('postalCode', false),
  country: part('country', true),
});
export type MailingAddressParts = z.infer<typeof MailingAddressParts>;

/** Lines of a postal address from its parts: name, street, suite, "city, region postcode", country. */
export function formatAddress(p: MailingAddressParts): string {
  const locality = [p.city, [p.region, p.postalCode].filter(Boolean).join(' ')].filter(Boolean).join(', ');
  return [p.businessName, p.street, p.suite, locality, p.country].filter((l) => l && l.trim()).join('\n');
}

export const RedirectUrl = z
  .union([z.string({ error: 'must be a string or null' }).max(2000, { error: 'must be at most 2000 characters' }), z.null()])
  .transform((s) => (s === null || s.trim() === '' ? null : s.trim()))
  .refine((s) => s === null || (URL.canParse(s) && /^https?:$/.test(new URL(s).protocol)), {
    error: 'must be an http or https address',
  });

export const CreateDomain = z.strictObject({
  domainName: DomainName,
  redirectUrl: RedirectUrl.optional(),
  dkimSelector: DkimSelector.optional(),
  label: Label.optional(),
  mailingAddress: MailingAddress.optional(),
  mailingAddressParts: z.union([MailingAddressParts, z.null()]).optional(),
});

export const UpdateDomain = CreateDomain.omit({ domainName: true }).extend({
  confirm: z.boolean({ error: 'must be true or false' }).optional(),
});
