import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { buildApp } from 'fauxqs';
import { queues } from '@outbound/functions/manifest';
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostAllowed, startCredentials } from './net.ts';
import { verifySigV4 } from './sigv4.ts';

export interface SqsLocal {
  endpoint: string;
  client: SQSClient;
  /** Queue URL by the manifest's queue name. */
  urls: Record<string, string>;
  /** Made at this start: the only credentials the queue service takes. */
  credentials: { accessKeyId: string; secretAccessKey: string };
  stop(): Promise<void>;
}

/** A queue message is at most 256 KB; a batch of ten of them with their JSON fits in this. */
const MAX_BODY_BYTES = 3 * 1024 * 1024;

class Refused extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly fault: 'Sender' | 'Receiver' = 'Sender',
  ) {
    super(message);
  }
}

const tooLarge = () => new Refused(413, 'RequestTooLarge', 'The request body is too large.');

/** The body, read to its end even when too large (refused then), so the answer reaches the client instead of a reset. */
async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  if (size > MAX_BODY_BYTES) throw tooLarge();
  return Buffer.concat(chunks);
}

const refusedCredentials = () =>
  new Refused(
    403,
    'InvalidClientTokenId',
    'The security token included in the request is invalid: this queue service takes requests signed with the credentials made at its start.',
  );

/** What can be refused before reading a byte of the body: a foreign Host, a size over the limit, another key id. */
function refuseEarly(req: IncomingMessage, accessKeyId: string): Refused | undefined {
  if (!hostAllowed(req.headers.host))
    return new Refused(403, 'AccessDenied', 'This queue service answers requests to 127.0.0.1 or localhost only.');
  if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) return tooLarge();
  if (!String(req.headers.authorization ?? '').includes(`Credential=${accessKeyId}/`)) return refusedCredentials();
  return undefined;
}

function answerRefused(res: ServerResponse, e: Refused): void {
  if (res.headersSent) return void res.destroy();
  res.writeHead(e.status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-query-error': `${e.type};${e.fault}` });
  res.end(JSON.stringify({ __type: `com.amazonaws.sqs#${e.type}`, message: e.message }));
}

/** Hop-by-hop headers of the in-process answer that the loopback connection sets for itself. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/**
 * fauxqs in-process, with the manifest's queues and their dead-letter queues.
 * It keeps nothing across restarts; the table is the source of truth for
 * every scheduled send, and start-up recovery re-enqueues what is due.
 *
 * fauxqs checks no credentials and never listens here: a loopback server in
 * front of it takes only requests signed (SigV4) with the credentials made at
 * this start, handed to the engine's own client, and whose Host is an IP
 * address or localhost (not a rebinding page's name), and hands each to
 * fauxqs without a socket. Another user of the machine can reach the port
 * but can neither read nor add a message.
 */
export async function startSqsLocal(): Promise<SqsLocal> {
  const app = buildApp({ logger: false });
  await app.ready();
  const credentials = startCredentials();
  const server = createServer((req, res) => {
    const handle = async () => {
      const early = refuseEarly(req, credentials.accessKeyId);
      if (early) {
        // Refused unread: the rest of the body is let through to nowhere and the connection closed after the answer.
        res.setHeader('connection', 'close');
        req.resume();
        throw early;
      }
      const body = await readBody(req);
      if (!verifySigV4(req, body, credentials)) throw refusedCredentials();
      // The Host goes through as it came, so the queue URLs fauxqs writes name this server.
      const answer = await app.inject({ method: req.method as 'POST', url: req.url ?? '/', headers: req.headers, payload: body });
      const headers = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase())));
      res.writeHead(answer.statusCode, headers as OutgoingHttpHeaders);
      res.end(answer.rawPayload);
    };
    handle().catch((err: unknown) => {
      if (!(err instanceof Refused)) console.error('local SQS:', err);
      answerRefused(res, err instanceof Refused ? err : new Refused(500, 'InternalError', 'Internal error.', 'Receiver'));
    });
  });
  // As long as fauxqs's own server kept an idle connection (the SDK reuses them), so a reused one is rarely found closed.
  server.keepAliveTimeout = 72_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const stopServer = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      // The SDK keeps connections alive (and a long poll may be waiting): without this close() waits for them.
      server.closeAllConnections();
    });
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The SDK sets no request timeout. On Lambda a hung request ends with the invocation; here a queue consumer or a
  // schedule waiting on one would wait forever, so one never answered fails after 30 s (a long poll is 20 s at most)
  // and is tried again like any other failure.
  const client = new SQSClient({
    endpoint,
    region: 'us-east-1',
    credentials,
    requestHandler: { requestTimeout: 30_000, connectionTimeout: 5_000 },
  });
  const urls: Record<string, string> = {};
  try {
    for (const [name, def] of Object.entries(queues)) {
      const dlq = await client.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }));
      const dlqArn = (await client.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl!, AttributeNames: ['QueueArn'] })))
        .Attributes!.QueueArn!;
      const q = await client.send(
        new CreateQueueCommand({
          QueueName: name,
          Attributes: {
            VisibilityTimeout: String(def.visibilityTimeoutSeconds),
            RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: def.maxReceiveCount }),
          },
        }),
      );
      urls[name] = q.QueueUrl!;
      urls[`${name}-dlq`] = dlq.QueueUrl!;
    }
  } catch (err) {
    // A start that failed leaves nothing listening.
    client.destroy();
    await stopServer();
    await app.close();
    throw err;
  }
  return {
    endpoint,
    client,
    urls,
    credentials,
    async stop() {
      client.destroy();
      await stopServer();
      await app.close();
    },
  };
}
