import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dnsResolver } from '@outbound/mail/dns-resolver';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';

// A 2048-bit key record is ~400 bytes: two character-strings, and with a few of them the answer needs TCP.
const longValue = 'v=DKIM1; k=rsa; p=' + 'A'.repeat(600);

let dns: TestDnsServer;
beforeAll(async () => {
  dns = await startDnsServer({
    zones: {
      'example.test': { A: ['192.0.2.1'], TXT: ['v=spf1 -all', ['split ', 'in two']], MX: [{ exchange: 'mx.example.test', priority: 10 }] },
      'long._domainkey.example.test': { TXT: [longValue, longValue, longValue] },
      'empty.example.test': {},
    },
    hang: ['slow.example.test'],
    rcodes: { 'broken.example.test': 'SERVFAIL', 'refused.example.test': 'REFUSED' },
  });
});
afterAll(() => dns?.stop());

describe('the DnsResolver adapter against a DNS server the test runs', () => {
  const resolver = () => dnsResolver({ servers: [dns.server], timeoutMs: 500 });

  it("answers A, MX and TXT, joining a record's character-strings", async () => {
    const r = resolver();
    expect(await r.a('example.test')).toEqual({ ok: true, records: ['192.0.2.1'] });
    expect(await r.mx('EXAMPLE.test')).toEqual({ ok: true, records: [{ exchange: 'mx.example.test', priority: 10 }] });
    const txt = await r.txt('example.test');
    expect(txt.ok && [...txt.records].sort()).toEqual(['split in two', 'v=spf1 -all']);
  });

  it('keeps a TXT value over 255 bytes whole, also when the answer needs TCP', async () => {
    const txt = await resolver().txt('long._domainkey.example.test');
    expect(txt).toEqual({ ok: true, records: [longValue, longValue, longValue] });
    expect(dns.queries).toContain('TXT long._domainkey.example.test');
  });

  it('tells NXDOMAIN, NODATA, a timeout and a server error apart', async () => {
    const r = resolver();
    expect(await r.txt('nowhere.example.test')).toMatchObject({ ok: false, reason: 'nxdomain' });
    expect(await r.txt('empty.example.test')).toMatchObject({ ok: false, reason: 'nodata' });
    expect(await r.a('broken.example.test')).toMatchObject({ ok: false, reason: 'error' });
    expect(await r.a('refused.example.test')).toMatchObject({ ok: false, reason: 'error' });
    const started = Date.now();
    expect(await r.a('slow.example.test')).toMatchObject({ ok: false, reason: 'timeout' });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
