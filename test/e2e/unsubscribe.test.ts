import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { leadIdFromToken, unsubscribeToken, unsubscribeUrl } from '@outbound/core/guardrails/unsubscribe';
import { isSuppressed } from '@outbound/core/suppression/index';
import { launchBrowser } from '../helpers/browser.ts';
import { Api, startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { campaign, domainWithAddress, mailbox } from '../helpers/fixtures.ts';
import { checkedFetch } from '../helpers/openapi-check.ts';

let engine: TestEngine;
let api: Api;
let browser: Browser;
const campaigns: { id: string }[] = [];

beforeAll(async () => {
  // The first run on a machine may install chromium with apt-get while the engine starts.
  const launching = launchBrowser();
  engine = await startTestEngine();
  api = engine.api;
  await api.login();
  const domain = await domainWithAddress(api, 'unsub.com');
  const box = await mailbox(api, domain, 'sender');
  for (const name of ['First', 'Second', 'Third']) campaigns.push(await campaign(api, { name, mailboxIds: [box.id] }));
  browser = await launching;
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await engine?.stop();
});

const first = () => campaigns[0]!.id;
const second = () => campaigns[1]!.id;
const third = () => campaigns[2]!.id;

async function addLead(campaignId: string, email: string): Promise<{ id: string; email: string }> {
  const res = await api.request('POST', '/v1/leads', { campaignId, email, firstName: 'Pat' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function statusOf(...ids: string[]): Promise<string[]> {
  const res = await api.request('GET', '/v1/leads?limit=1000');
  expect(res.status).toBe(200);
  return ids.map((id) => res.body.leads.find((l: { id: string }) => l.id === id)?.status);
}

const pageUrl = (token: string) => `${engine.url}/unsubscribe/${token}`;
const oneClick = (token: string) =>
  checkedFetch(pageUrl(token), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'List-Unsubscribe=One-Click',
  });

function expectPageHeaders(headers: Headers) {
  expect(headers.get('content-type')).toMatch(/^text\/html/);
  expect(headers.get('cache-control')).toBe('no-store');
  expect(headers.get('x-robots-tag')).toBe('noindex');
  expect(headers.get('referrer-policy')).toBe('no-referrer');
}

describe('the built-in unsubscribe page in a browser', () => {
  it('shows a button, changes nothing until it is pressed, then suppresses the address in every campaign', async () => {
    const email = 'Pat.Reader+news@example.org';
    const a = await addLead(first(), email);
    const b = await addLead(second(), email);
    const token = await unsubscribeToken(engine.deps, a.id);
    expect(token).not.toContain('example');

    const page = await browser.newPage();
    const opened = await page.goto(pageUrl(token));
    expect(opened?.status()).toBe(200);
    expectPageHeaders(new Headers(await opened!.allHeaders()));
    const button = page.getByRole('button', { name: 'Unsubscribe' });
    await button.waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(await page.title()).toBe('Unsubscribe');
    expect(await statusOf(a.id, b.id)).toEqual(['NEW', 'NEW']);
    const html = (await page.content()).toLowerCase();
    for (const shown of [email, encodeURIComponent(email), 'pat.reader']) expect(html).not.toContain(shown.toLowerCase());
    await page.screenshot({ path: '/tmp/unsubscribe-page.png', fullPage: true });

    await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), button.click()]);
    await page.getByRole('heading', { name: 'You are unsubscribed' }).waitFor();
    expect(await page.textContent('main')).toContain('You will get no more emails from us');
    await page.screenshot({ path: '/tmp/unsubscribe-done.png', fullPage: true });
    await page.close();

    expect(await statusOf(a.id, b.id)).toEqual(['SUPPRESSED', 'SUPPRESSED']);
    const again = await api.request('POST', '/v1/leads', { campaignId: third(), email: email.toLowerCase() });
    expect(again.status).toBe(409);
  });

  it('is readable on a phone-sized screen', async () => {
    const lead = await addLead(first(), 'small.screen@example.org');
    const page = await browser.newPage({ viewport: { width: 360, height: 640 } });
    await page.goto(pageUrl(await unsubscribeToken(engine.deps, lead.id)));
    const box = await page.getByRole('button', { name: 'Unsubscribe' }).boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(360);
    expect(box!.height).toBeGreaterThanOrEqual(44); // a touch target
    // A string, not a function: the test's tsconfig has no DOM types.
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    await page.screenshot({ path: '/tmp/unsubscribe-phone.png' });
    await page.close();
  });
});

describe('the unsubscribe link outside a browser', () => {
  it('changes nothing when a mail scanner opens it', async () => {
    const email = 'scanned@example.org';
    const lead = await addLead(first(), email);
    const token = await unsubscribeToken(engine.deps, lead.id);
    for (let i = 0; i < 2; i++) {
      const res = await checkedFetch(pageUrl(token), { redirect: 'manual' });
      expect(res.status).toBe(200);
      expectPageHeaders(res.headers);
      expect(await res.text()).toContain('<form method="post">');
    }
    expect(await statusOf(lead.id)).toEqual(['NEW']);
    expect(await isSuppressed(engine.deps, email)).toBe(false);
  });

  it('unsubscribes on an RFC 8058 one-click POST, and again without harm', async () => {
    const email = 'one.click@example.org';
    const a = await addLead(first(), email);
    const b = await addLead(second(), email);
    const token = await unsubscribeToken(engine.deps, b.id);
    for (let i = 0; i < 2; i++) {
      const res = await oneClick(token);
      expect(res.status).toBe(200);
      expectPageHeaders(res.headers);
      expect(await res.text()).toContain('You are unsubscribed');
    }
    expect(await statusOf(a.id, b.id)).toEqual(['SUPPRESSED', 'SUPPRESSED']);
    expect(await isSuppressed(engine.deps, email)).toBe(true);
  });

  it('still answers 200 for a lead that was erased since the email went out', async () => {
    const email = 'erased.later@example.org';
    const lead = await addLead(first(), email);
    const token = await unsubscribeToken(engine.deps, lead.id);
    expect((await api.request('DELETE', '/v1/leads/erase', { email })).status).toBe(200);
    expect((await oneClick(token)).status).toBe(200);
    expect(await statusOf(lead.id)).toEqual(['SUPPRESSED']);
  });

  it('answers 400 and changes nothing for a tampered or a garbage token; a deleted lead’s link still unsubscribes its address', async () => {
    const email = 'tamper.target@example.org';
    const lead = await addLead(first(), email);
    const token = await unsubscribeToken(engine.deps, lead.id);
    const dot = token.indexOf('.');
    const at = dot + 6; // a character inside the signature, clear of base64's padding bits
    const tampered = token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
    expect(await leadIdFromToken(engine.deps, tampered)).toBeUndefined();

    const gone = await addLead(first(), 'deleted.lead@example.org');
    const goneToken = await unsubscribeToken(engine.deps, gone.id);
    expect((await api.request('DELETE', `/v1/leads/${gone.id}`)).status).toBe(204);

    for (const bad of [tampered, 'garbage', 'bm90LWEtbGVhZA.AAAAAAAAAAAAAAAAAAAAAA']) {
      for (const res of [await checkedFetch(pageUrl(bad)), await oneClick(bad), await checkedFetch(pageUrl(bad), { method: 'POST' })]) {
        expect(res.status).toBe(400);
        expectPageHeaders(res.headers);
        expect(await res.text()).toContain('This link is not valid');
      }
    }
    expect(await statusOf(lead.id)).toEqual(['NEW']);
    expect(await isSuppressed(engine.deps, email)).toBe(false);
    expect(await isSuppressed(engine.deps, 'deleted.lead@example.org')).toBe(false);

    // The person whose row was deleted can still opt out from the email they got: opening changes nothing, pressing suppresses.
    expect((await checkedFetch(pageUrl(goneToken))).status).toBe(200);
    expect(await isSuppressed(engine.deps, 'deleted.lead@example.org')).toBe(false);
    const pressed = await oneClick(goneToken);
    expect(pressed.status).toBe(200);
    expect(await isSuppressed(engine.deps, 'deleted.lead@example.org')).toBe(true);
  });
});

describe('unsubscribeUrl', () => {
  const lead = { id: '01JZ8X4M7T2V9K3QWERTYUIOPA', email: 'a+b@x.com' };

  it('fills the campaign template with the address, URL-encoded', async () => {
    expect(await unsubscribeUrl(engine.deps, lead, { unsubscribeUrlTemplate: 'https://example.com/u?e={{email}}' })).toBe(
      'https://example.com/u?e=a%2Bb%40x.com',
    );
  });

  it('links to the built-in page without a template, and to nothing without a domain either', async () => {
    const url = await unsubscribeUrl(engine.deps, lead, { unsubscribeUrlTemplate: null });
    expect(url).toBe(`${engine.deps.config.publicBaseUrl}/unsubscribe/${await unsubscribeToken(engine.deps, lead.id)}`);
    expect(url).not.toContain('x.com');
    const noDomain = { ...engine.deps, config: { ...engine.deps.config, publicBaseUrl: '' } };
    expect(await unsubscribeUrl(noDomain, lead, {})).toBeUndefined();
  });
});
