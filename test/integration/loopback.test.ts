import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { startSqsLocal } from '@outbound/local/sqs-local';
import { startLocalKms } from '@outbound/local/kms-server';
import { startDynamoLocal } from '@outbound/local/dynamo-local';

/** This machine's first address other than loopback: where someone on the network would connect. */
function externalAddress(): string {
  const found = Object.values(networkInterfaces())
    .flat()
    .find((i) => i && i.family === 'IPv4' && !i.internal);
  if (!found) throw new Error('This test needs a network interface besides loopback, to try the stand-ins from it.');
  return found.address;
}

/** 'open' when a TCP connection to host:port is accepted, 'refused' otherwise. */
function tryConnect(host: string, port: number): Promise<'open' | 'refused'> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 2000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve('open');
    });
    socket.once('error', () => resolve('refused'));
    socket.once('timeout', () => {
      socket.destroy();
      resolve('refused');
    });
  });
}

describe('the local stand-ins listen on loopback only', () => {
  it(
    'the table, the queue and the key service accept connections on 127.0.0.1 and refuse them on the network address',
    { timeout: 90_000 },
    async () => {
      const outside = externalAddress();
      const sqs = await startSqsLocal();
      const kms = await startLocalKms({ dataDir: 'memory' });
      const dynamo = await startDynamoLocal('memory');
      try {
        for (const endpoint of [dynamo.endpoint, sqs.endpoint, kms.endpoint]) {
          const port = Number(new URL(endpoint).port);
          expect(await tryConnect('127.0.0.1', port), endpoint).toBe('open');
          expect(await tryConnect(outside, port), `${endpoint} from ${outside}`).toBe('refused');
        }
      } finally {
        await sqs.stop();
        await kms.stop();
        await dynamo.stop();
      }
    },
  );
});

describe("no web page can use the table through a visitor's browser", () => {
  // Measured, not configured: the jar sends no Access-Control-Allow-Origin (even with -cors *), so a browser blocks
  // every cross-origin call. This holds that fact, so a jar that starts allowing origins is noticed.
  it('DynamoDB Local allows no browser origin', { timeout: 90_000 }, async () => {
    const dynamo = await startDynamoLocal('memory');
    try {
      const preflight = await fetch(dynamo.endpoint, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://evil.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-amz-target,authorization',
        },
      });
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
      const simple = await fetch(dynamo.endpoint, {
        method: 'POST',
        headers: {
          origin: 'https://evil.example',
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': 'DynamoDB_20120810.ListTables',
        },
        body: '{}',
      });
      expect(simple.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await dynamo.stop();
    }
  });
});
