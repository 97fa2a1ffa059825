import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusedAddress, webhookPoster } from './webhook-poster.ts';

describe('the addresses a webhook may be posted to', () => {
  it.each([
    ['10.1.2.3', 'a private or link-local address'],
    ['172.16.0.1', 'a private or link-local address'],
    ['192.168.1.1', 'a private or link-local address'],
    ['169.254.169.254', 'a private or link-local address'],
    ['fd00:ec2::254', 'a private or link-local address'],
    ['fe80::1', 'a private or link-local address'],
    ['::ffff:169.254.169.254', 'a private or link-local address'],
    ['100.100.100.200', 'an address that is not on the public internet'],
    ['100.64.0.1', 'an address that is not on the public internet'],
    ['0.0.0.0', 'an address that is not on the public internet'],
    ['127.0.0.1', 'a loopback address'],
    ['::1', 'a loopback address'],
    ['::a9fe:a9fe', 'an address that is not on the public internet'],
    ['::ffff:0:a9fe:a9fe', 'an address that is not on the public internet'],
    ['64:ff9b::a9fe:a9fe', 'an address that is not on the public internet'],
    ['2002:a9fe:a9fe::', 'an address that is not on the public internet'],
    ['2001:0:4136:e378::1', 'an address that is not on the public internet'],
  ])('refuses %s', (ip, why) => {
    expect(refusedAddress(ip, false)).toBe(why);
  });

  it('takes public addresses, and loopback only where allowed', () => {
    expect(refusedAddress('93.184.216.34', false)).toBeUndefined();
    expect(refusedAddress('2606:4700::1111', false)).toBeUndefined();
    expect(refusedAddress('127.0.0.1', true)).toBeUndefined();
    expect(refusedAddress('10.0.0.1', true)).toBe('a private or link-local address');
  });
});

describe('a POST', () => {
  let url = '';
  let status = 200;
  let delayMs = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => setTimeout(() => res.writeHead(status, status === 302 ? { location: '/elsewhere' } : {}).end('ok'), delayMs));
  });
  beforeAll(async () => {
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
    url = `http://localhost:${(server.address() as AddressInfo).port}/in`;
  });
  afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

  it('answers the status, a redirect not followed, and gives up at its timeout', async () => {
    const local = webhookPoster({ allowLoopback: true });
    status = 204;
    expect(await local.post(url, { 'content-type': 'application/json' }, '{}', 2000)).toEqual({ status: 204 });
    status = 302;
    expect(await local.post(url, {}, '{}', 2000)).toEqual({ status: 302 });
    status = 200;
    delayMs = 500;
    expect(await local.post(url, {}, '{}', 100)).toEqual({ error: expect.stringMatching(/no answer within 0.1 s/) });
    delayMs = 0;
  });

  it('refuses a name that resolves to loopback where loopback is not allowed, before connecting', async () => {
    const aws = webhookPoster({ allowLoopback: false });
    expect(await aws.post(url, {}, '{}', 2000)).toEqual({ error: 'localhost resolves to a loopback address' });
    expect(await aws.post(url.replace('localhost', '127.0.0.1'), {}, '{}', 2000)).toEqual({ error: 'the host is a loopback address' });
    expect(await aws.post('http://169.254.169.254/latest/meta-data/', {}, '{}', 2000)).toEqual({
      error: 'the host is a private or link-local address',
    });
  });
});
