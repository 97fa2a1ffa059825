/**
 * `npx tsx packages/local/src/console-screenshot.ts [docs/console.png]`: the
 * README's picture of the console. Starts an engine in memory with a sending
 * domain, a mailbox, a launched campaign and a few leads, signs in with
 * headless Chromium (test/helpers/browser.ts) and photographs the campaigns screen.
 */
import { resolve } from 'node:path';
import { launchBrowser } from '../../../test/helpers/browser.ts';
import { startEngine } from './engine.ts';

const ADMIN = { email: 'you@example.com', password: 'a long screenshot password' };

async function main() {
  const out = resolve(process.argv[2] ?? 'docs/console.png');
  const engine = await startEngine({ port: 0, dataDir: 'memory', admin: ADMIN, sink: () => {} });
  const browser = await launchBrowser();
  try {
    const call = async (method: string, path: string, body?: unknown, token?: string) => {
      const res = await fetch(engine.url + path, {
        method,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      // Only what the script reads back: an id, or the sign-in's token.
      return res.json() as Promise<{ id: string; token: string }>;
    };
    const { token } = await call('POST', '/v1/auth/login', ADMIN);
    const domain = await call(
      'POST',
      '/v1/domains',
      { domainName: 'acme-mail.com', mailingAddress: 'Acme Inc\n1 Main St\nSpringfield, IL 62701' },
      token,
    );
    // Reserved host names: the engine never reaches them, and a mailbox without IMAP is not signed in to.
    const box = await call(
      'POST',
      '/v1/mailboxes',
      {
        email: 'rita@acme-mail.com',
        domainId: domain.id,
        smtpHost: 'smtp.mail.test',
        smtpPort: 587,
        authPassword: 'app-password',
        senderName: 'Rita Ruiz',
        dailyCap: 30,
      },
      token,
    );
    const spring = await call(
      'POST',
      '/v1/campaigns',
      {
        name: 'Spring outreach',
        aiPromptTemplate: '',
        subject: '{Quick|Short} question, {{firstName}}',
        template: 'Hi {{firstName}},\n\nI noticed {{company}} is growing. Would a short call next week make sense?\n\n{{senderName}}',
        mailboxIds: [box.id],
        steps: [{ waitDays: 3, body: 'Just bumping this, {{firstName}}.' }],
        schedule: { timezone: 'America/New_York', start: '09:00', end: '17:00' },
      },
      token,
    );
    for (const [email, firstName, company] of [
      ['ana@globex.com', 'Ana', 'Globex'],
      ['bo@initech.com', 'Bo', 'Initech'],
      ['cy@umbrella.com', 'Cy', 'Umbrella'],
    ]) {
      await call('POST', '/v1/leads', { campaignId: spring.id, email, firstName, company }, token);
    }
    await call('POST', `/v1/campaigns/${spring.id}/launch`, undefined, token);
    await call(
      'POST',
      '/v1/campaigns',
      { name: 'Autumn follow-up', aiPromptTemplate: '', subject: 'Hello {{firstName}}', template: '' },
      token,
    );

    const page = await browser.newPage({ viewport: { width: 1100, height: 720 } });
    await page.goto(engine.url);
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByRole('listitem').filter({ hasText: 'Autumn follow-up' }).waitFor();
    await page.screenshot({ path: out, fullPage: false });
    console.log(`Console screenshot written to ${out}`);
  } finally {
    await browser.close();
    await engine.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
