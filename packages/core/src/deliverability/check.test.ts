import { describe, expect, it } from 'vitest';
import { ManualClock } from '../ports/clock.ts';
import type { DnsAnswer, DnsResolver } from '../ports/dns.ts';
import { isListingAnswer } from './blocklists.ts';
import { runCheck, toPublic } from './check.ts';
import { evaluateDkimRecord } from './dkim.ts';
import { checkSpf, parseSpf } from './spf.ts';

/** An in-memory DnsResolver: TXT and A from plain maps, everything else NXDOMAIN. */
function fakeDns(txt: Record<string, string[]>, a: Record<string, string[]> = {}): DnsResolver {
  const answer = <T>(records: T[] | undefined): DnsAnswer<T> => (records ? { ok: true, records } : { ok: false, reason: 'nxdomain' });
  return {
    txt: async (name) => answer(txt[name]),
    a: async (name) => answer(a[name]),
    mx: async () => ({ ok: false, reason: 'nxdomain' }),
  };
}

describe('SPF syntax (RFC 7208 §12)', () => {
  it.each([
    'v=spf1',
    'v=spf1 -all',
    'v=spf1 ip4:192.0.2.0/24 ip6:2001:db8::/32 ip6:::1 a a:mail.example.com/24//64 mx/24 ~all',
    'v=spf1 include:_spf.google.com exists:%{i}._spf.example.com ?all',
    'v=spf1 redirect=_spf.example.com',
    'v=spf1 ptr ptr:example.com -all',
    'V=SPF1 INCLUDE:Example.COM -ALL',
    'v=spf1 unknown-mod=whatever -all',
  ])('accepts %s', (record) => expect(parseSpf(record)).toMatchObject({ ok: true }));

  it.each([
    'v=spf1 ip4:192.0.2.0/33',
    'v=spf1 ip6:192.0.2.1',
    'v=spf1 include',
    'v=spf1 include:',
    'v=spf1 all:example.com',
    'v=spf1 foo:example.com',
    'v=spf1 redirect=a.example redirect=b.example',
    'v=spf1 -redirect=a.example',
    'v=spf1 a:exa mple',
  ])('refuses %s', (record) => expect(parseSpf(record)).toMatchObject({ ok: false }));

  it('stops at an include loop and says so', async () => {
    const dns = fakeDns({ 'a.test': ['v=spf1 include:b.test -all'], 'b.test': ['v=spf1 include:a.test -all'] });
    const spf = await checkSpf(dns, 'a.test');
    expect(spf).toMatchObject({ status: 'FAIL', lookups: 2 });
    expect(spf.reason).toMatch(/loops back/);
  });

  it('ignores redirect when the record has an all mechanism (§6.1)', async () => {
    const spf = await checkSpf(fakeDns({ 'a.test': ['v=spf1 -all redirect=gone.test'] }), 'a.test');
    expect(spf).toMatchObject({ status: 'PASS', lookups: 0 });
  });

  it('fails a redirect to a record that allows everyone', async () => {
    const spf = await checkSpf(fakeDns({ 'a.test': ['v=spf1 redirect=b.test'], 'b.test': ['v=spf1 +all'] }), 'a.test');
    expect(spf.reason).toMatch(/redirect=b\.test allows every server/);
  });
});

describe('blocklist answers (docs/api.md, Domain checks)', () => {
  it.each([
    ['127.0.0.2', true],
    ['127.0.0.255', true],
    ['127.0.1.0', true],
    ['127.0.1.255', true],
    ['127.0.0.1', false],
    ['127.0.2.1', false],
    ['127.255.255.254', false],
    ['10.0.0.2', false],
  ])('%s is a listing: %s', (address, listed) => expect(isListingAnswer(address)).toBe(listed));
});

describe('DKIM key records (RFC 6376 §3.6.1)', () => {
  it.each([
    ['v=DKIM2; p=AAAA', /v= must come first and be DKIM1/],
    ['k=rsa; v=DKIM1; p=AAAA', /v= must come first/],
    ['v=DKIM1; k=dsa; p=AAAA', /unknown key type/],
    ['v=DKIM1; s=other; p=AAAA', /other services/],
    ['v=DKIM1; k=rsa', /no public key/],
    ['v=DKIM1; k=ed25519; p=AAAA', /not an Ed25519 key/],
    ['v=DKIM1; garbage; p=AAAA', /malformed/],
  ])('fails %s', (record, reason) => {
    const result = evaluateDkimRecord(record);
    expect(result.status).toBe('FAIL');
    expect(result.reason).toMatch(reason);
  });
});

describe('the unified check', () => {
  it('reports PENDING as FAIL publicly, with exactly six fields', async () => {
    const check = await runCheck({ dns: fakeDns({}), wallClock: new ManualClock(0) }, 'none.test', { hasMailingAddress: false });
    expect(check).toMatchObject({ spf: 'FAIL', dkim: 'PENDING', dmarc: 'FAIL', checkedAt: '1970-01-01T00:00:00.000Z' });
    expect(check.listUnsubscribeCheck).toMatch(/no mailing address yet/);
    const pub = toPublic(check);
    expect(Object.keys(pub).sort()).toEqual(['blocklists', 'dkim', 'dmarc', 'domain', 'listUnsubscribeCheck', 'spf']);
    expect(pub.dkim).toBe('FAIL');
  });
});
