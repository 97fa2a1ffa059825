import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDeps } from '@outbound/functions/lib/deps';
import { functions, schedules } from '@outbound/functions/manifest';
import { handler as hourlyCheck } from '@outbound/functions/schedules/domain-check';
import { Api, startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { startDnsServer, type TestDnsServer, type Zones } from '../helpers/dns-server.ts';

const rsaKey = (bits: number) =>
  generateKeyPairSync('rsa', { modulusLength: bits }).publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
const RSA_2048 = rsaKey(2048);
// RFC 8463: the raw 32-byte key, the tail of its SPKI encoding.
const ED25519 = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
const dkim = (p: string, extra = '') => `v=DKIM1; k=rsa;${extra} p=${p}`;

const SPF = 'v=spf1 include:_spf.provider.test ~all';
const DMARC = 'v=DMARC1; p=reject; rua=mailto:dmarc@reports.test';
/** A domain with sound SPF and DMARC; `more` adds or replaces names. */
const healthy = (domain: string, more: Zones = {}): Zones => ({
  [domain]: { TXT: [SPF, 'google-site-verification=abc'], MX: [{ exchange: `mx.${domain}`, priority: 10 }] },
  [`_dmarc.${domain}`]: { TXT: [DMARC] },
  ...more,
});

const zones: Zones = {
  '_spf.provider.test': { TXT: ['v=spf1 ip4:192.0.2.0/24 ip6:2001:db8::/32 -all'] },
  ...healthy('good.test', { 'google._domainkey.good.test': { TXT: [dkim(RSA_2048)] } }),

  // SPF
  ...healthy('nospf.test', { 'nospf.test': { TXT: ['google-site-verification=abc'] } }),
  ...healthy('twospf.test', { 'twospf.test': { TXT: ['v=spf1 -all', SPF] } }),
  ...healthy('plusall.test', { 'plusall.test': { TXT: ['v=spf1 ip4:192.0.2.1 +all'] } }),
  ...healthy('bareall.test', { 'bareall.test': { TXT: ['v=spf1 a mx all'] } }),
  ...healthy('badsyntax.test', { 'badsyntax.test': { TXT: ['v=spf1 ip4:999.1.1.1 -all'] } }),
  // 2 includes + a + mx at the top, 4 in each include: 12 lookups.
  ...healthy('many.test', { 'many.test': { TXT: ['v=spf1 include:l1.many.test include:l2.many.test a mx -all'] } }),
  'l1.many.test': { TXT: ['v=spf1 a mx ptr exists:x.many.test -all'] },
  'l2.many.test': { TXT: ['v=spf1 a:x.many.test mx:x.many.test a/24 exists:%{i}.many.test -all'] },
  // Exactly 10 is allowed.
  ...healthy('ten.test', { 'ten.test': { TXT: ['v=spf1 include:l1.many.test include:l2.many.test -all'] } }),
  ...healthy('brokeninclude.test', { 'brokeninclude.test': { TXT: ['v=spf1 include:nothing-there.test -all'] } }),

  // DKIM
  ...healthy('sel.test', {
    'custom._domainkey.sel.test': { TXT: [dkim(RSA_2048)] },
    'google._domainkey.sel.test': { TXT: [dkim('')] },
  }),
  ...healthy('saved.test', { 'google._domainkey.saved.test': { TXT: [dkim(RSA_2048)] } }),
  ...healthy('discovery.test', {
    // selector2 comes before dkim in the common list, so it decides.
    'selector2._domainkey.discovery.test': { TXT: [`v=DKIM1; k=ed25519; p=${ED25519}`] },
    'dkim._domainkey.discovery.test': { TXT: [dkim('')] },
  }),
  ...healthy('nodkim.test'),
  ...healthy('revoked.test', { 'google._domainkey.revoked.test': { TXT: [dkim('')] } }),
  ...healthy('notbase64.test', { 'google._domainkey.notbase64.test': { TXT: [dkim('not*base64!')] } }),
  ...healthy('notakey.test', { 'google._domainkey.notakey.test': { TXT: [dkim(Buffer.from('hello, not a key').toString('base64'))] } }),
  ...healthy('weak.test', { 'google._domainkey.weak.test': { TXT: [dkim(rsaKey(512))] } }),
  ...healthy('badtag.test', { 'google._domainkey.badtag.test': { TXT: ['v=DKIM1; k=rsa; k=rsa; p=' + RSA_2048] } }),

  // DMARC
  ...healthy('nodmarc.test', { '_dmarc.nodmarc.test': { TXT: ['something else'] } }),
  ...healthy('nopolicy.test', { '_dmarc.nopolicy.test': { TXT: ['v=DMARC1; rua=mailto:dmarc@reports.test'] } }),
  ...healthy('twodmarc.test', { '_dmarc.twodmarc.test': { TXT: [DMARC, 'v=DMARC1; p=none'] } }),

  // Blocklists
  ...healthy('listed.test'),
  'listed.test.dbl.spamhaus.org': { A: ['127.0.1.2'] },
  'listed.test.multi.surbl.org': { A: ['127.0.0.2'] },
  'listed.test.multi.uribl.com': { A: ['127.0.0.2'] },
  ...healthy('refused.test'),
  'refused.test.dbl.spamhaus.org': { A: ['127.255.255.254'] },
  'refused.test.multi.surbl.org': { A: ['127.0.0.1'] },
  'refused.test.multi.uribl.com': { A: ['127.0.0.1'] },
  ...healthy('slow.test'),
};

const ALL_DOMAINS = [
  'good.test',
  'nospf.test',
  'twospf.test',
  'plusall.test',
  'bareall.test',
  'badsyntax.test',
  'many.test',
  'ten.test',
  'brokeninclude.test',
  'sel.test',
  'discovery.test',
  'nodkim.test',
  'revoked.test',
  'notbase64.test',
  'notakey.test',
  'weak.test',
  'badtag.test',
  'nodmarc.test',
  'nopolicy.test',
  'twodmarc.test',
  'listed.test',
  'refused.test',
  'slow.test',
];

let dns: TestDnsServer;
let engine: TestEngine;
let api: Api;
const ids: Record<string, string> = {};

beforeAll(async () => {
  dns = await startDnsServer({
    zones,
    hang: ['slow.test.dbl.spamhaus.org', 'slow.test.multi.surbl.org', 'slow.test.multi.uribl.com'],
  });
  engine = await startTestEngine({ dnsServers: [dns.server] });
  api = engine.api;
  await api.login();
  for (const domainName of ALL_DOMAINS) {
    const res = await api.request('POST', '/v1/domains', { domainName, mailingAddress: '1 Main St\nSpringfield' });
    ids[domainName] = res.body.id;
  }
  const saved = await api.request('POST', '/v1/domains', { domainName: 'saved.test', dkimSelector: 'mine' });
  ids['saved.test'] = saved.body.id;
});
afterAll(async () => {
  await engine?.stop();
  await dns?.stop();
});

const check = async (domain: string, selector?: string) => {
  const res = await api.request('POST', `/v1/domains/${domain}/check${selector ? `?selector=${selector}` : ''}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

describe('POST /v1/domains/{domain}/check', () => {
  it('passes a sound domain, with the matched selector, details, checkedAt, and stores it as lastCheck', async () => {
    const body = await check('good.test');
    expect(body).toMatchObject({
      domain: 'good.test',
      spf: 'PASS',
      dkim: 'PASS',
      dmarc: 'PASS',
      blocklists: { 'spamhaus-dbl': 'PASS', surbl: 'PASS', uribl: 'PASS' },
      dkimSelector: 'google',
    });
    expect(Object.keys(body).sort()).toEqual(
      ['blocklists', 'checkedAt', 'details', 'dkim', 'dkimSelector', 'dmarc', 'domain', 'listUnsubscribeCheck', 'spf'].sort(),
    );
    expect(body.checkedAt).toBe(new Date(engine.wallClock.now()).toISOString());
    expect(body.details.spf).toMatchObject({ records: [SPF], lookups: 1 });
    expect(body.details.dkim.records).toEqual([dkim(RSA_2048)]);
    expect(body.details.dkim.reason).toMatch(/2048-bit RSA/);
    expect(body.details.dmarc).toMatchObject({ records: [DMARC], policy: 'reject' });
    expect(body.details.blocklists['spamhaus-dbl']).toEqual({
      query: 'good.test.dbl.spamhaus.org',
      answers: [],
      checked: true,
      reason: 'Not listed by spamhaus-dbl.',
    });
    expect(body.listUnsubscribeCheck).toMatch(/List-Unsubscribe and List-Unsubscribe-Post.*every email/);
    expect(body.listUnsubscribeCheck).not.toMatch(/no mailing address/);

    const list = await api.request('GET', '/v1/domains');
    expect(list.body.find((d: { id: string }) => d.id === ids['good.test']).lastCheck).toEqual(body);
  });

  it('answers 404 for a name the engine does not have, and 422 for a selector that is not a DNS label', async () => {
    const missing = await api.request('POST', '/v1/domains/unknown.test/check');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatch(/unknown\.test/);
    const bad = await api.request('POST', '/v1/domains/good.test/check?selector=bad_selector');
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatch(/^selector: /);
  });

  it('needs the bearer token', async () => {
    expect((await new Api(engine.url).request('POST', '/v1/domains/good.test/check')).status).toBe(401);
  });

  describe('SPF', () => {
    it.each([
      ['nospf.test', /No SPF record/],
      ['twospf.test', /2 SPF records/],
      ['plusall.test', /\+all/],
      ['bareall.test', /\+all/],
      ['badsyntax.test', /syntax error.*999\.1\.1\.1/],
      ['many.test', /more than 10 DNS lookups/],
      ['brokeninclude.test', /include:nothing-there\.test.*no SPF record/],
    ])('fails %s', async (domain, reason) => {
      const body = await check(domain);
      expect(body.spf).toBe('FAIL');
      expect(body.details.spf.reason).toMatch(reason);
      expect(body.dmarc).toBe('PASS');
    });

    it('counts lookups through includes: 12 fails, exactly 10 passes', async () => {
      expect((await check('many.test')).details.spf.lookups).toBe(12);
      const ten = await check('ten.test');
      expect(ten.spf).toBe('PASS');
      expect(ten.details.spf.lookups).toBe(10);
    });

    it('lists both records when there are two', async () => {
      expect((await check('twospf.test')).details.spf.records).toEqual(['v=spf1 -all', SPF]);
    });
  });

  describe('DKIM', () => {
    it('checks only the selector given with the check', async () => {
      const body = await check('sel.test', 'custom');
      expect(body).toMatchObject({ dkim: 'PASS', dkimSelector: 'custom' });
      expect(body.details.dkim.selectorsTried).toEqual(['custom']);
      const missing = await check('sel.test', 'nope');
      expect(missing).toMatchObject({ dkim: 'FAIL', dkimSelector: null });
      expect(missing.details.dkim.reason).toMatch(/No DKIM record at nope\._domainkey\.sel\.test/);
    });

    it('checks only the saved selector: FAIL when it has no record, even though a common one has', async () => {
      const body = await check('saved.test');
      expect(body).toMatchObject({ dkim: 'FAIL', dkimSelector: null });
      expect(body.details.dkim.selectorsTried).toEqual(['mine']);
      expect(body.details.dkim.reason).toMatch(/saved dkimSelector/);
      // The query's selector overrides the saved one.
      expect(await check('saved.test', 'google')).toMatchObject({ dkim: 'PASS', dkimSelector: 'google' });
      dns.zones['mine._domainkey.saved.test'] = { TXT: [dkim(RSA_2048)] };
      expect(await check('saved.test')).toMatchObject({ dkim: 'PASS', dkimSelector: 'mine' });
    });

    it('finds a common selector; the first of the list that has a record decides', async () => {
      const body = await check('discovery.test');
      expect(body).toMatchObject({ dkim: 'PASS', dkimSelector: 'selector2' });
      expect(body.details.dkim.reason).toMatch(/Ed25519/);
      expect(body.details.dkim.selectorsTried.slice(0, 3)).toEqual(['google', 'selector1', 'selector2']);
    });

    it('is PENDING when no selector is known and no common one has a record', async () => {
      const body = await check('nodkim.test');
      expect(body).toMatchObject({ dkim: 'PENDING', dkimSelector: null });
      expect(body.details.dkim.reason).toMatch(/common selectors/);
    });

    it.each([
      ['revoked.test', /revoked/],
      ['notbase64.test', /not valid base64/],
      ['notakey.test', /does not decode to an RSA key/],
      ['weak.test', /512 bits/],
      ['badtag.test', /k= appears twice/],
    ])('fails an unusable key: %s', async (domain, reason) => {
      const body = await check(domain);
      expect(body).toMatchObject({ dkim: 'FAIL', dkimSelector: 'google' });
      expect(body.details.dkim.reason).toMatch(reason);
    });
  });

  describe('DMARC', () => {
    it.each([
      ['nodmarc.test', /No DMARC record/],
      ['nopolicy.test', /no policy/],
      ['twodmarc.test', /2 DMARC records/],
    ])('fails %s', async (domain, reason) => {
      const body = await check(domain);
      expect(body.dmarc).toBe('FAIL');
      expect(body.details.dmarc.reason).toMatch(reason);
    });
  });

  describe('blocklists', () => {
    it('fails each operator that lists the domain', async () => {
      const body = await check('listed.test');
      expect(body.blocklists).toEqual({ 'spamhaus-dbl': 'FAIL', surbl: 'FAIL', uribl: 'FAIL' });
      expect(body.details.blocklists['spamhaus-dbl']).toMatchObject({
        answers: ['127.0.1.2'],
        reason: expect.stringMatching(/Listed by spamhaus-dbl/),
      });
      expect(body.details.blocklists.surbl.query).toBe('listed.test.multi.surbl.org');
      expect(body.details.blocklists.uribl.query).toBe('listed.test.multi.uribl.com');
    });

    it('passes an operator refusal (127.0.0.1) or error code (127.255.255.x), saying why', async () => {
      const body = await check('refused.test');
      expect(body.blocklists).toEqual({ 'spamhaus-dbl': 'PASS', surbl: 'PASS', uribl: 'PASS' });
      expect(body.details.blocklists['spamhaus-dbl'].reason).toMatch(/error code \(127\.255\.255\.254\)/);
      expect(body.details.blocklists.surbl.reason).toMatch(/refused the query.*not a listing/);
      expect(body.details.blocklists.uribl.reason).toMatch(/refused the query/);
      // PASS, but never taken for a clean bill: nothing was checked.
      for (const id of ['spamhaus-dbl', 'surbl', 'uribl'] as const) {
        expect(body.details.blocklists[id]).toMatchObject({ checked: false, reason: expect.stringMatching(/^Could not check: /) });
      }
    });

    it('passes a lookup that times out, saying so, and still answers the other checks', async () => {
      const started = Date.now();
      const body = await check('slow.test');
      expect(Date.now() - started).toBeLessThan(6000);
      expect(body).toMatchObject({ spf: 'PASS', dmarc: 'PASS', blocklists: { 'spamhaus-dbl': 'PASS', surbl: 'PASS', uribl: 'PASS' } });
      for (const id of ['spamhaus-dbl', 'surbl', 'uribl']) expect(body.details.blocklists[id].reason).toMatch(/timed out.*not a listing/);
    });
  });

  it('says when the domain has no mailing address yet that its sends are refused', async () => {
    const body = await check('saved.test');
    expect(body.listUnsubscribeCheck).toMatch(/RFC 8058/);
    expect(body.listUnsubscribeCheck).toMatch(/no mailing address yet.*refused/);
  });
});

describe('GET /public/domain-check', () => {
  const publicApi = () => new Api(engine.url);

  it('answers exactly the six fields without a token, PENDING reported as FAIL, and stores nothing', async () => {
    const lastCheck = async () =>
      (await api.request('GET', '/v1/domains')).body.find((d: { id: string }) => d.id === ids['nodkim.test']).lastCheck;
    const before = await lastCheck();
    // A stored result would carry the new time.
    engine.wallClock.advance(1000);
    const res = await publicApi().request('GET', '/public/domain-check?domain=NoDkim.test');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['blocklists', 'dkim', 'dmarc', 'domain', 'listUnsubscribeCheck', 'spf']);
    expect(res.body).toMatchObject({ domain: 'nodkim.test', spf: 'PASS', dkim: 'FAIL', dmarc: 'PASS' });
    expect(res.body.blocklists).toEqual({ 'spamhaus-dbl': 'PASS', surbl: 'PASS', uribl: 'PASS' });
    expect(typeof res.body.listUnsubscribeCheck).toBe('string');
    expect(await lastCheck()).toEqual(before);
  });

  it("checks any public name, not only the engine's", async () => {
    const res = await publicApi().request('GET', '/public/domain-check?domain=nowhere.test');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ spf: 'FAIL', dkim: 'FAIL', dmarc: 'FAIL' });
  });

  it.each(['../etc', 'a', 'localhost', 'foo.localhost', '127.0.0.1', 'a..b', '-x.test', `${'a'.repeat(64)}.test`, ''])(
    'refuses %j with 422 and never resolves it',
    async (domain) => {
      const before = dns.queries.length;
      const res = await publicApi().request('GET', `/public/domain-check?domain=${encodeURIComponent(domain)}`);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatch(/^domain/);
      expect(dns.queries.length).toBe(before);
    },
  );

  it('refuses a missing domain with 422 naming it', async () => {
    const res = await publicApi().request('GET', '/public/domain-check');
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('domain is required.');
  });

  it('allows 20 requests a minute per client address, then answers 429', async () => {
    const limited = await startTestEngine({ dnsServers: [dns.server], rateLimits: true, sending: false });
    try {
      const client = new Api(limited.url);
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) statuses.push((await client.request('GET', '/public/domain-check?domain=good.test')).status);
      expect(statuses).toEqual(Array(20).fill(200));
      const last = await client.request('GET', '/public/domain-check?domain=good.test');
      expect(last.status).toBe(429);
      expect(last.body.retryAfterMs).toBeGreaterThan(0);
      expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await limited.stop();
    }
  });
});

describe('the hourly check', () => {
  it('is scheduled every 60 minutes, never sped up by TIME_SCALE', () => {
    expect(schedules.domainCheck).toEqual({ fn: 'domainCheck', everyMinutes: 60, scaled: false });
    expect(functions.domainCheck.handler).toBe('schedules/domain-check.ts');
  });

  it('checks every domain and stores each result as its lastCheck', async () => {
    engine.wallClock.advance(60 * 60_000);
    const result = await withDeps(engine.deps, () => hourlyCheck());
    expect(result).toEqual({ checked: ALL_DOMAINS.length + 1, failed: 0 });
    const list = await api.request('GET', '/v1/domains');
    expect(list.body).toHaveLength(ALL_DOMAINS.length + 1);
    const at = new Date(engine.wallClock.now()).toISOString();
    for (const d of list.body) {
      expect(d.lastCheck, d.domainName).toMatchObject({ domain: d.domainName, checkedAt: at });
    }
    const byName = Object.fromEntries(list.body.map((d: { domainName: string; lastCheck: unknown }) => [d.domainName, d.lastCheck]));
    expect(byName['good.test']).toMatchObject({ spf: 'PASS', dkim: 'PASS', dmarc: 'PASS' });
    expect(byName['listed.test'].blocklists.uribl).toBe('FAIL');
    // The hourly check uses the saved selector, as the route does.
    expect(byName['saved.test']).toMatchObject({ dkim: 'PASS', dkimSelector: 'mine' });
  });
});
