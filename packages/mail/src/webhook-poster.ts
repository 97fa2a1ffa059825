/**
 * The HTTP side of outbound webhooks: one POST, no redirect followed, a
 * timeout, and the address judged where it is connected to. The name is
 * resolved here, in the connection's own lookup, so the address checked is
 * the address used (a second lookup could answer a private one).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP } from 'node:net';
import type { PostOutcome, WebhookPoster } from '@outbound/core/ports/webhooks';
import { isLoopback, isPrivateOrLoopback } from './transport.ts';

/** Beyond private and link-local: addresses that reach the cloud's own services or nothing on the internet. */
const NOT_PUBLIC = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['100.64.0.0', 10],
  ['192.0.0.0', 24],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const)
  NOT_PUBLIC.addSubnet(net, bits, 'ipv4');
// Alibaba's and Azure's metadata and host services (AWS's and Google's are link-local, 169.254.169.254; EC2's IPv6 one is fd00:ec2::254, unique local).
NOT_PUBLIC.addAddress('100.100.100.200', 'ipv4');
NOT_PUBLIC.addAddress('168.63.129.16', 'ipv4');
NOT_PUBLIC.addAddress('::', 'ipv6');
NOT_PUBLIC.addSubnet('ff00::', 8, 'ipv6');
// IPv6 forms that carry an IPv4 address inside (IPv4-compatible, NAT64, 6to4, Teredo, SIIT): a network that
// translates them would reach the IPv4 address behind, private or not, so none is a webhook target.
for (const [net, bits] of [
  ['::', 96],
  ['::ffff:0:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['2002::', 16],
  ['2001::', 32],
] as const)
  NOT_PUBLIC.addSubnet(net, bits, 'ipv6');

/** Why an address may not be posted to, or undefined when it may. */
export function refusedAddress(ip: string, allowLoopback: boolean): string | undefined {
  const value = ip.toLowerCase().replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
  if (isLoopback(value)) return allowLoopback ? undefined : 'a loopback address';
  if (isPrivateOrLoopback(value)) return 'a private or link-local address';
  const family = isIP(value);
  if (family && NOT_PUBLIC.check(value, family === 4 ? 'ipv4' : 'ipv6')) return 'an address that is not on the public internet';
  return undefined;
}

/** Answers longer than this are cut: only the status matters. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export function webhookPoster(opts: { allowLoopback: boolean }): WebhookPoster {
  return {
    post(url, headers, body, timeoutMs) {
      return new Promise<PostOutcome>((resolve) => {
        let target: URL;
        try {
          target = new URL(url);
        } catch {
          return resolve({ error: 'the URL is not valid' });
        }
        let refused: string | undefined;
        const lookup = (
          host: string,
          options: object,
          cb: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
        ) => {
          dnsLookup(host, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
            if (err) return cb(err, []);
            // Every address the name has must be allowed: a name with one public and one private address is refused.
            for (const a of addresses) {
              const why = refusedAddress(a.address, opts.allowLoopback);
              if (why) {
                refused = `${host} resolves to ${why}`;
                return cb(Object.assign(new Error(refused), { code: 'EREFUSEDADDRESS' }), []);
              }
            }
            const all = (options as { all?: boolean }).all;
            if (all) return cb(null, addresses);
            cb(null, addresses[0]!.address, addresses[0]!.family);
          });
        };
        const literal = target.hostname.replace(/^\[(.*)\]$/, '$1');
        if (isIP(literal)) {
          const why = refusedAddress(literal, opts.allowLoopback);
          if (why) return resolve({ error: `the host is ${why}` });
        }
        const send = target.protocol === 'https:' ? httpsRequest : target.protocol === 'http:' ? httpRequest : undefined;
        if (!send) return resolve({ error: 'the URL is neither https nor http' });
        const req = send(target, {
          method: 'POST',
          headers: { ...headers, 'content-length': Buffer.byteLength(body) },
          lookup: lookup as never,
          timeout: timeoutMs,
        });
        const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
        req.on('response', (res) => {
          let read = 0;
          res.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > MAX_RESPONSE_BYTES) res.destroy();
          });
          const done = () => {
            clearTimeout(timer);
            resolve({ status: res.statusCode ?? 0 });
          };
          res.on('end', done);
          res.on('close', done);
          res.on('error', done);
        });
        req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
        req.on('error', (err: NodeJS.ErrnoException) => {
          clearTimeout(timer);
          resolve({ error: refused ?? (err.code && err.code !== 'EREFUSEDADDRESS' ? `${err.code}: ${err.message}` : err.message) });
        });
        req.end(body);
      });
    },
  };
}
