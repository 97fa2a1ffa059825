import { createHmac } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { campaign } from '../helpers/fixtures.ts';
import { checkedFetch } from '../helpers/openapi-check.ts';

let engine: TestEngine;

beforeAll(async () => {
  engine = await startTestEngine();
  await engine.api.login();
});
afterAll(async () => {
  await engine?.stop();
});

/** The webhook as a Zapier-like tool calls it: no bearer token, a JSON body, maybe a secret header. */
async function hook(body: string, headers: Record<string, string> = {}) {
  const res = await checkedFetch(`${engine.url}/v1/leads/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: res.status, body: (await res.json()) as any };
}

const leadsOf = async (id: string) =>
  (await engine.api.request('GET', `/v1/leads?campaignId=${id}`)).body.leads.map((l: { email: string }) => l.email).sort();

describe('the webhook secret', () => {
  it('once set, refuses requests without the secret or a fresh signature of the body, and stores nothing from them', async () => {
    const c = await campaign(engine.api);
    expect((await hook(JSON.stringify({ campaignId: c.id, email: 'open@hook.example' }))).status).toBe(200);

    const warned = async () =>
      (await engine.api.request('GET', `/v1/campaigns/${c.id}/launch-check`)).body.warnings.map((w: { code: string }) => w.code);
    expect(await warned()).toContain('WEBHOOK_OPEN');
    const made = await engine.api.request('POST', `/v1/campaigns/${c.id}/webhook-secret`);
    expect(made.status).toBe(201);
    expect(await warned()).not.toContain('WEBHOOK_OPEN');
    const secret = made.body.webhookSecret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    // Shown once: the campaign says it is secured, and never says the secret.
    const shown = await engine.api.request('GET', `/v1/campaigns/${c.id}`);
    expect(shown.body.webhookSecured).toBe(true);
    expect(JSON.stringify(shown.body)).not.toContain(secret);
    expect(JSON.stringify((await engine.api.request('GET', '/v1/campaigns')).body)).not.toContain(secret);

    const body = JSON.stringify({ campaignId: c.id, email: 'signed@hook.example', firstName: 'Sig' });
    const none = await hook(body);
    expect(none.status).toBe(401);
    expect(none.body.error).toMatch(/x-outbound-webhook-token/i);
    expect((await hook(body, { 'x-outbound-webhook-token': secret.slice(0, -1) + 'x' })).status).toBe(401);
    const now = () => Math.floor(engine.wallClock.now() / 1000);
    const signatureOf = (text: string, t = now()) => `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${text}`).digest('hex')}`;
    // A signature of other bytes (the attacker's words in a body the tool never signed) does not pass.
    expect((await hook(body.replace('Sig', 'Evil'), { 'x-outbound-signature': signatureOf(body) })).status).toBe(401);
    // Nor one whose timestamp is more than 5 minutes off, nor a bare body HMAC (it could be replayed forever).
    expect((await hook(body, { 'x-outbound-signature': signatureOf(body, now() - 301) })).status).toBe(401);
    expect((await hook(body, { 'x-outbound-signature': signatureOf(body, now() + 301) })).status).toBe(401);
    const bare = await hook(body, { 'x-outbound-signature': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` });
    expect(bare.status).toBe(401);
    expect(bare.body.error).toMatch(/t=<unix seconds>,v1=/);
    expect(await leadsOf(c.id)).toEqual(['open@hook.example']);

    const signed = signatureOf(body);
    expect((await hook(body, { 'x-outbound-signature': signed })).status).toBe(200);
    // The same request captured and sent again later is refused.
    engine.wallClock.advance(5 * 60_000 + 1000);
    const replayed = JSON.stringify({ campaignId: c.id, email: 'replayed@hook.example' });
    const t = now() - 306;
    expect(
      (
        await hook(replayed, {
          'x-outbound-signature': `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${replayed}`).digest('hex')}`,
        })
      ).status,
    ).toBe(401);
    const byToken = JSON.stringify({ campaignId: c.id, email: 'token@hook.example' });
    expect((await hook(byToken, { 'x-outbound-webhook-token': secret })).status).toBe(200);
    // Standard Webhooks, signed by its own library with the same secret: taken; tampered, stale or half-sent: refused.
    const standard = JSON.stringify({ campaignId: c.id, email: 'standard@hook.example' });
    const signer = new StandardWebhook(secret);
    const at = new Date(engine.wallClock.now());
    const headers = (text: string, when = at, msgId = 'msg_1') => ({
      'webhook-id': msgId,
      'webhook-timestamp': String(Math.floor(when.getTime() / 1000)),
      'webhook-signature': signer.sign(msgId, when, text),
    });
    expect((await hook(standard.replace('standard', 'evil'), headers(standard))).status).toBe(401);
    expect((await hook(standard, headers(standard, new Date(at.getTime() - 301_000)))).status).toBe(401);
    expect((await hook(standard, { ...headers(standard), 'webhook-id': 'msg_2' })).status).toBe(401);
    const { 'webhook-timestamp': _, ...noTime } = headers(standard);
    expect((await hook(standard, noTime)).status).toBe(401);
    expect((await hook(standard, headers(standard))).status).toBe(200);
    expect(await leadsOf(c.id)).toEqual(['open@hook.example', 'signed@hook.example', 'standard@hook.example', 'token@hook.example']);

    // Rotated: the old secret stops at once.
    const next = (await engine.api.request('POST', `/v1/campaigns/${c.id}/webhook-secret`)).body.webhookSecret;
    expect(next).not.toBe(secret);
    expect(
      (await hook(JSON.stringify({ campaignId: c.id, email: 'old@hook.example' }), { 'x-outbound-webhook-token': secret })).status,
    ).toBe(401);
    expect((await hook(JSON.stringify({ campaignId: c.id, email: 'new@hook.example' }), { 'x-outbound-webhook-token': next })).status).toBe(
      200,
    );

    // Removed: open again.
    expect((await engine.api.request('DELETE', `/v1/campaigns/${c.id}/webhook-secret`)).status).toBe(204);
    expect((await engine.api.request('GET', `/v1/campaigns/${c.id}`)).body.webhookSecured).toBe(false);
    expect((await hook(JSON.stringify({ campaignId: c.id, email: 'again@hook.example' }))).status).toBe(200);

    // No secret in any log line.
    expect(JSON.stringify(engine.logs)).not.toContain(secret);
    expect(JSON.stringify(engine.logs)).not.toContain(next);
  });

  it('answers 404 for the secret of a campaign that does not exist, and needs a token to make one', async () => {
    expect((await engine.api.request('POST', '/v1/campaigns/01NOPE0000000000000000000/webhook-secret')).status).toBe(404);
    const c = await campaign(engine.api);
    const res = await checkedFetch(`${engine.url}/v1/campaigns/${c.id}/webhook-secret`, { method: 'POST' });
    expect(res.status).toBe(401);
  });

  it('refuses a body over 128 KB with 422 naming the limit, and stores nothing', async () => {
    const c = await campaign(engine.api);
    const body = JSON.stringify({
      campaignId: c.id,
      email: 'big@hook.example',
      customFields: { a: 'x'.repeat(1900), pad: 'y'.repeat(140_000) },
    });
    const res = await hook(body);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(/128 KB/);
    expect(await leadsOf(c.id)).toEqual([]);
  });
});
