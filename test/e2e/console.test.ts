/**
 * The operator console in a real Chromium: served at `/` by the engine with
 * its security headers, sign-in (and a wrong password refused), every screen
 * reachable from the navigation with no serious axe-core violation, at 375 px
 * too, a campaign created and launched through the forms, one with two
 * variants and its figures per variant, a CSV imported with its progress bar,
 * and no request ever leaving the engine's own origin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.ts';
import { axeViolations, expectOnlyOwnOrigin, openConsole, signIn } from '../helpers/console.ts';
import { ADMIN, startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { domainWithAddress, eventually, mailbox } from '../helpers/fixtures.ts';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';

let engine: TestEngine;
let browser: Browser;
let smtp: TestSmtpServer;
let dns: TestDnsServer;
const NAV = ['Campaigns', 'Inbox', 'Leads', 'Domains', 'Mailboxes', 'Webhooks'];

beforeAll(async () => {
  const launching = launchBrowser();
  smtp = await startSmtpServer({ users: { 'lee@boxco.com': 'the right password' } });
  // Every lookup the domain check makes goes to this server: boxco.com has SPF and no DMARC record.
  dns = await startDnsServer({ zones: { 'boxco.com': { TXT: ['v=spf1 ip4:192.0.2.1 -all'] } } });
  engine = await startTestEngine({ dnsServers: [dns.server] });
  await engine.api.login();
  browser = await launching;
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await engine?.stop();
  await smtp?.stop();
  await dns?.stop();
});

describe('the console', { timeout: 90_000 }, () => {
  it('is served at / with a CSP that forbids inline script and other origins, and its files under /console/', async () => {
    const res = await fetch(`${engine.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await res.text();
    // No inline script or style: the page only names its two files.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|style=/);
    const script = /src="(\/console\/app-[\w]+\.js)"/.exec(html)![1]!;
    const js = await fetch(engine.url + script);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(js.headers.get('cache-control')).toContain('immutable');
    for (const name of ['nothing.js', 'constructor', '__proto__', 'toString']) {
      const missing = await fetch(`${engine.url}/console/${name}`);
      expect(missing.status, name).toBe(404);
      expect(((await missing.json()) as { error?: unknown }).error, name).toEqual(expect.any(String));
    }
  });

  it('refuses a wrong password with a message and no console, then signs in, navigates every screen without a serious axe violation, and signs out', async () => {
    const { page, requests, problems } = await openConsole(browser, engine.url);
    await signIn(page, 'not the password');
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/\S/);
    expect(await page.getByRole('navigation').count()).toBe(0);
    expect(await page.evaluate<number>('sessionStorage.length')).toBe(0);
    expect(await axeViolations(page)).toEqual([]);

    // By keyboard: type, Tab to the next field, Enter to sign in.
    await page.getByLabel('Email').fill('');
    await page.getByLabel('Password').fill('');
    await page.getByLabel('Email').focus();
    await page.keyboard.type(ADMIN.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(ADMIN.password);
    await page.keyboard.press('Enter');
    await page.getByRole('navigation').waitFor();
    // The navigation is reachable by Tab too.
    const focused: string[] = [];
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Tab');
      focused.push(await page.evaluate<string>("document.activeElement?.textContent ?? ''"));
    }
    expect(focused).toEqual(expect.arrayContaining(NAV));
    for (const name of NAV) {
      await page.getByRole('link', { name }).click();
      await page.getByRole('heading', { level: 1, name }).waitFor();
      expect(await axeViolations(page), name).toEqual([]);
    }
    // The token lives for the tab only, and signing out forgets it.
    expect(await page.evaluate<number>('localStorage.length')).toBe(0);
    expect(await page.evaluate<string | null>("sessionStorage.getItem('outbound.token')")).toBeTruthy();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.evaluate<string | null>("sessionStorage.getItem('outbound.token')")).toBeNull();
    expectOnlyOwnOrigin(requests, engine.url);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('creates a campaign with a preview for a sample lead, launches it, and imports a CSV with a progress bar, at 375 px wide', async () => {
    const domain = await domainWithAddress(engine.api, 'consoleco.com');
    await mailbox(engine.api, domain, 'rita');
    const { page, requests, problems } = await openConsole(browser, engine.url, { width: 375, height: 800 });
    await signIn(page);
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Console launch');
    await page.getByLabel('Subject').fill('{Quick|Quick} question, {{firstName}}');
    await page.getByLabel('First email').fill('Hi {{firstName}},\n\nDoes {{company}} need this?');
    await expect.poll(() => page.getByTestId('preview-body').textContent()).toBe('Hi Ana,\n\nDoes Globex need this?');
    await page.getByLabel('Sample first name').fill('<b>Bo</b>');
    await expect.poll(() => page.getByTestId('preview-subject').textContent()).toBe('Quick question, <b>Bo</b>');
    await page.getByLabel('rita@consoleco.com (active)').check();
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.getByRole('button', { name: 'Launch' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    // Nothing scrolls sideways at 375 px.
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await page.getByRole('button', { name: 'Launch' }).click();
    await page.getByRole('status').filter({ hasText: 'Launched' }).waitFor();
    const launched = (await engine.api.request('GET', '/v1/campaigns')).body.find((c: { name: string }) => c.name === 'Console launch');
    expect(launched.status).toBe('ACTIVE');

    // The list shows it with its status and progress.
    await page.getByRole('link', { name: 'Campaigns' }).click();
    const row = page.getByRole('listitem').filter({ hasText: 'Console launch' });
    await row.getByText('Sending').waitFor();
    expect(await row.getByRole('progressbar').count()).toBe(1);

    // A CSV through the signed upload link, with the bar filling to the end.
    await page.getByRole('link', { name: 'Leads' }).click();
    await page.getByLabel('Campaign').selectOption({ label: 'Console launch' });
    const rows = Array.from({ length: 300 }, (_, i) => `lead${i}@importco.com,Lead${i},Importco`);
    await page
      .getByLabel('CSV file')
      .setInputFiles({ name: 'leads.csv', mimeType: 'text/csv', buffer: Buffer.from(['email,firstName,company', ...rows].join('\n')) });
    // The import's progress is held back once, to see the bar part-way before it fills.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/v1/leads/imports/*', async (route) => (await held, route.continue()));
    await page.getByRole('button', { name: 'Import' }).click();
    const partway = page.getByRole('progressbar', { name: 'Storing the rows' });
    await partway.waitFor();
    expect(Number(await partway.getAttribute('value'))).toBeLessThan(300);
    release();
    const bar = page.getByRole('progressbar', { name: /Import finished/ });
    await bar.waitFor({ timeout: 30_000 });
    expect(await bar.getAttribute('value')).toBe(await bar.getAttribute('max'));
    expect(await bar.getAttribute('max')).toBe('300');
    await page.getByRole('status').filter({ hasText: '300 imported' }).waitFor();
    expect(
      await eventually(
        async () =>
          (await engine.api.request('GET', `/v1/leads?campaignId=${launched.id}&limit=1000`)).body.leads.length === 300 || undefined,
      ),
    ).toBe(true);

    // A lead's own view: its next send in words, one request for it.
    const before = requests.filter((u) => u.includes('/next-send')).length;
    await page.getByRole('link', { name: 'lead7@importco.com' }).click();
    await page.getByRole('heading', { name: 'Next send' }).waitFor();
    await expect
      .poll(() => page.getByRole('region', { name: 'Next send' }).textContent())
      .toMatch(/The first email (may go from|will not go)/);
    expect(requests.filter((u) => u.includes('/next-send')).length - before).toBe(1);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Suppress' }).click();
    await page.getByRole('status').filter({ hasText: 'Suppressed' }).waitFor();
    await page.getByRole('button', { name: 'Erase', exact: true }).click();
    await page.getByRole('button', { name: 'Erase for good' }).click();
    await page.getByRole('status').filter({ hasText: 'Erased' }).waitFor();
    const left = (await engine.api.request('GET', `/v1/leads?campaignId=${launched.id}&limit=1000`)).body.leads;
    expect(left.some((l: { email: string }) => l.email === 'lead7@importco.com')).toBe(false);

    // Every screen fits 375 px: nothing scrolls sideways (wide tables scroll inside their own box).
    for (const name of NAV) {
      await page.getByRole('link', { name }).click();
      await page.getByRole('heading', { level: 1, name }).waitFor();
      expect(await page.evaluate<number>('document.documentElement.scrollWidth'), name).toBeLessThanOrEqual(375);
    }

    expectOnlyOwnOrigin(requests, engine.url);
    expect(requests.some((u) => u.includes('/local-uploads/'))).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('creates a campaign with two variants through the form, previews one, shows the engine’s refusal, then the figures per variant, and removes them', async () => {
    const { page, requests, problems } = await openConsole(browser, `${engine.url}/#/campaigns/new`);
    await signIn(page);
    await page.getByLabel('Name', { exact: true }).fill('Console variants');
    await page.getByRole('button', { name: 'Test variants' }).click();
    await page.getByLabel('Variant A subject').fill('Plain {question|question}, {{firstName}}');
    await page.getByLabel('Variant A first email').fill('Hi {{firstName}}, a plain note.');
    await page.getByLabel('Variant B subject').fill('An idea for {{company}}');
    await page.getByLabel('Variant B first email').fill('Hi {an idea for {{company}}.');
    // The preview renders the variant chosen, and a broken brace says so in words.
    await page.getByLabel('Copy to preview').selectOption({ label: 'Variant B' });
    await expect.poll(() => page.getByTestId('preview-subject').textContent()).toBe('An idea for Globex');
    await expect.poll(() => page.getByTestId('preview-body').textContent()).toMatch(/^The copy cannot be rendered/);
    await page.getByLabel('Once a winner is named, send it to every lead not yet sent a first email').check();
    expect(await axeViolations(page)).toEqual([]);
    // The engine's 422 names the field; nothing is stored.
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/^variants\.1\.template: /);
    const named = async () =>
      (await engine.api.request('GET', '/v1/campaigns')).body.filter((c: { name: string }) => c.name === 'Console variants');
    expect(await named()).toEqual([]);
    await page.getByLabel('Variant B first email').fill('Hi {{firstName}}, an idea for {{company}}.');
    await expect.poll(() => page.getByTestId('preview-body').textContent()).toBe('Hi Ana, an idea for Globex.');
    await page.getByRole('button', { name: 'Create campaign' }).click();

    // The view: a row of figures per variant, no winner yet, and the test in words.
    const figures = page.getByRole('region', { name: 'Variants' });
    await figures.getByRole('row').filter({ hasText: 'An idea for {{company}}' }).waitFor();
    const [stored] = await named();
    expect(stored.variants).toEqual([
      { subject: 'Plain {question|question}, {{firstName}}', template: 'Hi {{firstName}}, a plain note.' },
      { subject: 'An idea for {{company}}', template: 'Hi {{firstName}}, an idea for {{company}}.' },
    ]);
    expect(stored.autoWinner).toBe(true);
    const cells = (name: string) =>
      figures
        .getByRole('row', { name: new RegExp(`^${name} `) })
        .getByRole('cell')
        .allTextContents();
    expect(await cells('A')).toEqual(['Plain {question|question}, {{firstName}}', '0', '0', '0', '0', '0']);
    expect(await cells('B')).toEqual(['An idea for {{company}}', '0', '0', '0', '0', '0']);
    expect(await figures.getByRole('columnheader').allTextContents()).toEqual([
      'Variant',
      'Subject',
      'Sent',
      'Replied',
      'Positive',
      'Bounced',
      'Unsubscribed',
    ]);
    expect(await page.getByTestId('variants-winner').textContent()).toBe('No winner yet.');
    expect(await figures.textContent()).toContain('Mixture sequential probability ratio test');
    expect(await axeViolations(page)).toEqual([]);

    // Removing them saves null: the campaign is back to its own copy and the figures go.
    await page.getByRole('button', { name: 'Remove the variants' }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect((await engine.api.request('GET', `/v1/campaigns/${stored.id}`)).body.variants).toBeNull();
    expect(await figures.count()).toBe(0);

    expectOnlyOwnOrigin(requests, engine.url);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('pauses and archives a campaign, shows a domain’s checks and address, shows a mailbox sign-in refusal plainly, and shows a webhook’s secret once', async () => {
    const domain = await domainWithAddress(engine.api, 'boxco.com');
    const box = await mailbox(engine.api, domain, 'pat');
    const c = (
      await engine.api.request('POST', '/v1/campaigns', {
        name: 'To pause',
        aiPromptTemplate: '',
        subject: 'Hi {{firstName}}',
        template: 'Hello {{firstName}}',
        mailboxIds: [box.id],
      })
    ).body;
    expect((await engine.api.request('POST', `/v1/campaigns/${c.id}/launch`)).status).toBe(200);
    const { page, requests, problems } = await openConsole(browser, `${engine.url}/#/campaigns/${c.id}`);
    await signIn(page);
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('status').filter({ hasText: 'Paused' }).waitFor();
    expect((await engine.api.request('GET', `/v1/campaigns/${c.id}`)).body.status).toBe('PAUSED');
    await page.getByRole('button', { name: 'Archive' }).click();
    await page.getByRole('status').filter({ hasText: 'Archived' }).waitFor();
    expect((await engine.api.request('GET', `/v1/campaigns/${c.id}`)).body.status).toBe('ARCHIVED');

    // A draft with no copy and no mailbox: launching says why, in words.
    const draft = (
      await engine.api.request('POST', '/v1/campaigns', { name: 'Not ready', aiPromptTemplate: '', subject: '', template: '' })
    ).body;
    await page.goto(`${engine.url}/#/campaigns/${draft.id}`);
    await expect.poll(() => page.getByRole('region', { name: 'Before launching' }).textContent()).toMatch(/mailbox/i);
    await page.getByRole('button', { name: 'Launch' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/mailbox/i);

    await page.getByRole('link', { name: 'Domains' }).click();
    const card = page.getByRole('region', { name: 'boxco.com' });
    await card.waitFor();
    expect(await card.textContent()).toContain('1 Main St');
    await card.getByRole('button', { name: 'Check boxco.com now' }).click();
    await card.getByRole('cell', { name: 'DMARC', exact: true }).waitFor({ timeout: 20_000 });
    // What to fix, in words, for the record that is missing.
    expect(await card.getByRole('row').filter({ hasText: 'DMARC' }).textContent()).toMatch(/Fails.*_dmarc/);
    expect(await card.getByRole('row').filter({ hasText: 'Blocklists' }).textContent()).toContain('Passes');

    await page.getByRole('link', { name: 'Mailboxes' }).click();
    await page.getByLabel('Address').fill('lee@boxco.com');
    await page.getByLabel('Domain').selectOption({ label: 'boxco.com' });
    await page.getByLabel('SMTP host').fill('127.0.0.1');
    await page.getByLabel('SMTP port').fill(String(smtp.port));
    await page.getByLabel('Mailbox password').fill('a wrong password');
    await page.getByRole('button', { name: 'Connect' }).click();
    await expect.poll(() => page.getByRole('alert').textContent(), { timeout: 20_000 }).toMatch(/refused the sign-in/);
    await page.getByLabel('Mailbox password').fill('the right password');
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.getByRole('status').filter({ hasText: 'lee@boxco.com is connected' }).waitFor({ timeout: 20_000 });
    await page.getByRole('cell', { name: 'lee@boxco.com' }).waitFor();

    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel('Receiver URL').fill('http://127.0.0.1:9/hook');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const secret = await page.locator('.secret').textContent();
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Deliveries to http://127.0.0.1:9/hook' }).click();
    await page.getByText('Nothing delivered yet.').waitFor();
    // Once: the list (and a reload) never shows it again.
    await page.reload();
    await page.getByRole('button', { name: 'Deliveries to http://127.0.0.1:9/hook' }).waitFor();
    expect(await page.content()).not.toContain(secret!);
    expect(await axeViolations(page)).toEqual([]);

    expectOnlyOwnOrigin(requests, engine.url);
    expect(problems).toEqual([]);
    await page.close();
  });
});
