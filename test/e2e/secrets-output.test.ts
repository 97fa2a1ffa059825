import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installSecret } from '@outbound/core/settings/index';
import { Api, startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { eventually, smtpMailbox } from '../helpers/fixtures.ts';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';

/**
 * An end-to-end run (a mailbox with a password, an AI key, a webhook secret,
 * a sent campaign, an erased lead) whose every response body and log line is
 * searched for the secrets it handled and for the erased person's address.
 */

const PASSWORD = 'pw-Zq8!unique-mailbox-password';
const AI_KEY = 'sk-test-unique-ai-key-7f3c9a';
const ERASED = 'erase.me.please@people.example';

let smtp: TestSmtpServer;
let engine: TestEngine;
const answers: string[] = [];

/** Every answer the client sees, kept for the search. */
class RecordingApi extends Api {
  override async request<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const res = await super.request<T>(method, path, body, headers);
    answers.push(`${method} ${path} ${res.status} ${JSON.stringify(res.body)} ${JSON.stringify([...res.headers])}`);
    return res;
  }
}

beforeAll(async () => {
  smtp = await startSmtpServer({ users: { 'rep@quiet.example': PASSWORD } });
  engine = await startTestEngine({ realTime: true, timeScale: 50_000 });
});
afterAll(async () => {
  await engine?.stop();
  await smtp?.stop();
});

describe('no secret in any output', { timeout: 120_000 }, () => {
  it('no answer and no log line holds a password, a key, a secret or an erased address', async () => {
    const api = new RecordingApi(engine.url);
    await api.login();
    const domain = (
      await api.request('POST', '/v1/domains', { domainName: 'quiet.example', mailingAddress: '1 Main St\nSpringfield, IL 62701\nUSA' })
    ).body;
    const box = await smtpMailbox(api, domain, 'rep', smtp, { authPassword: PASSWORD });
    // A wrong password too, so a failed sign-in's answer and log line are searched as well.
    await api.request('POST', '/v1/mailboxes', {
      email: 'other@quiet.example',
      domainId: domain.id,
      smtpHost: '127.0.0.1',
      smtpPort: smtp.port,
      authPassword: `${PASSWORD}-wrong`,
    });
    expect((await api.request('PUT', '/v1/ai-keys/openai', { apiKey: AI_KEY })).status).toBe(204);
    const c = (
      await api.request('POST', '/v1/campaigns', {
        name: 'Quiet',
        aiPromptTemplate: 'x',
        subject: 'Hello {{firstName}}',
        template: 'Hi {{firstName}}, a note.',
        mailboxIds: [box.id],
      })
    ).body;
    const made = await api.request('POST', `/v1/campaigns/${c.id}/webhook-secret`);
    const webhookSecret = made.body.webhookSecret as string;
    answers.pop(); // the one answer that shows the secret, by design
    expect(
      (
        await api.request(
          'POST',
          '/v1/leads/webhook',
          { campaignId: c.id, email: ERASED, firstName: 'Erin' },
          { 'x-outbound-webhook-token': webhookSecret },
        )
      ).status,
    ).toBe(200);
    expect((await api.request('POST', '/v1/leads', { campaignId: c.id, email: 'keep@people.example', firstName: 'Kim' })).status).toBe(201);
    expect((await api.request('POST', `/v1/campaigns/${c.id}/launch`)).status).toBe(200);
    await eventually(async () => smtp.messages.length >= 2, 60_000, 'both first emails');

    // Erased: from here on, nothing may say the address.
    const before = { answers: answers.length, logs: engine.logs.length };
    expect((await api.request('DELETE', '/v1/leads/erase', { email: ERASED })).status).toBe(200);
    await api.request('GET', `/v1/leads?campaignId=${c.id}`);
    await api.request('GET', '/v1/leads');
    await api.request('GET', `/v1/campaigns/${c.id}`);
    await api.request('GET', '/v1/replies');
    await api.request('GET', '/v1/queue/status');

    const signing = Buffer.from(await installSecret(engine.deps, 'JWT_SECRET'));
    const secrets = {
      PASSWORD,
      AI_KEY,
      webhookSecret,
      signingHex: signing.toString('hex'),
      signingBase64: signing.toString('base64'),
      signingBase64url: signing.toString('base64url'),
    };
    const everything = [...answers, ...engine.logs.map((l) => JSON.stringify(l))].join('\n');
    for (const [name, value] of Object.entries(secrets)) expect(everything.includes(value), name).toBe(false);
    const after = [...answers.slice(before.answers), ...engine.logs.slice(before.logs).map((l) => JSON.stringify(l))].join('\n');
    expect(after.toLowerCase()).not.toContain(ERASED);
    // The search itself sees what it should: the kept lead's address is in the answers.
    expect(everything).toContain('keep@people.example');
  });
});
