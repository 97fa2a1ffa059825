import type { Api } from './engine.ts';
import { waitFor } from './wait-for.ts';

/** A domain with a footer address, ready to send from. */
export async function domainWithAddress(api: Api, name: string) {
  const res = await api.request('POST', '/v1/domains', { domainName: name, mailingAddress: '1 Main St\nSpringfield, IL 62701\nUSA' });
  if (res.status !== 201) throw new Error(`domain: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A mailbox on reserved hosts (never contacted), so no sign-in check runs. */
export async function mailbox(api: Api, domain: { id: string; domainName: string }, local: string, extra: Record<string, unknown> = {}) {
  const res = await api.request('POST', '/v1/mailboxes', {
    email: `${local}@${domain.domainName}`,
    domainId: domain.id,
    smtpHost: 'smtp.mail.test',
    smtpPort: 587,
    authPassword: 'mailbox-password',
    senderName: 'Sam Sender',
    ...extra,
  });
  if (res.status !== 201) throw new Error(`mailbox: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A campaign with copy that passes the launch check once it has a sender. */
export async function campaign(api: Api, extra: Record<string, unknown> = {}) {
  const res = await api.request('POST', '/v1/campaigns', {
    name: 'Spring outreach',
    aiPromptTemplate: 'Write to {{firstName}} at {{company}} about our product.',
    subject: '{Quick|Short} question, {{firstName}}',
    template: 'Hi {{firstName}},\n\nI noticed {{company}} is growing. Would a short call next week make sense?\n\n{{senderName}}',
    ...extra,
  });
  if (res.status !== 201) throw new Error(`campaign: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A mailbox that really sends: SMTP on a test server on loopback (the sign-in check runs against it). */
export async function smtpMailbox(
  api: Api,
  domain: { id: string; domainName: string },
  local: string,
  server: { port: number },
  extra: Record<string, unknown> = {},
) {
  const email = `${local}@${domain.domainName}`;
  const res = await api.request('POST', '/v1/mailboxes', {
    email,
    domainId: domain.id,
    smtpHost: '127.0.0.1',
    smtpPort: server.port,
    authPassword: `${local}-password`,
    senderName: 'Sam Sender',
    dailyCap: 1000,
    ...extra,
  });
  if (res.status !== 201) throw new Error(`mailbox: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * Polls until `check` returns a value that is not undefined or false (no fixed sleeps in tests), on waitFor's
 * deadline and timeout message. Unlike a bare waitFor, 0, '' and null count as answers, and an exception from
 * `check` ends the wait at once: the tests written against this helper rely on both.
 */
export async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const got = await waitFor(
    async (): Promise<{ value: T } | { error: unknown } | undefined> => {
      try {
        const value = await check();
        return value === undefined || value === false ? undefined : { value };
      } catch (error) {
        return { error };
      }
    },
    { timeoutMs, describe: what },
  );
  if ('error' in got) throw got.error;
  return got.value;
}
