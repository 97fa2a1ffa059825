import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: Record<string, string>;
  body: string;
  /** The status the receiver answered. */
  answered: number;
}

/**
 * A webhook receiver on loopback, as a customer's service would be: it
 * records every POST and answers what `answer` says (200 unless told).
 */
export async function startReceiver(): Promise<{
  url: string;
  received: Received[];
  answer: (req: { id: string; body: string; count: number }) => number;
  stop(): Promise<void>;
}> {
  const received: Received[] = [];
  const receiver = {
    url: '',
    received,
    answer: (() => 200) as (req: { id: string; body: string; count: number }) => number,
    stop: () => new Promise<void>((done) => server.close(() => done())),
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const id = headers['webhook-id'] ?? '';
      const answered = receiver.answer({ id, body, count: received.filter((r) => r.headers['webhook-id'] === id).length });
      received.push({ headers, body, answered });
      res.writeHead(answered, answered >= 300 && answered < 400 ? { location: 'http://127.0.0.1:1/elsewhere' } : {}).end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}
