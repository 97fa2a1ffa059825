import type { AddressInfo, Socket } from 'node:net';
import { Packet, createTCPServer, createUDPServer, type TCPServer, type UDPServer } from 'dns2';

/** The records of one name. A TXT entry is one record: a string (split at 255 bytes here) or its character-strings as given. */
export interface NameRecords {
  A?: string[];
  TXT?: (string | string[])[];
  MX?: { exchange: string; priority: number }[];
}

export type Zones = Record<string, NameRecords>;

export interface DnsServerOptions {
  /** Names (no trailing dot, any case) and their records. Any other name is NXDOMAIN. */
  zones?: Zones;
  /** Names that are never answered, to make a lookup time out. */
  hang?: string[];
  /** Names answered with an error code instead of records. */
  rcodes?: Record<string, 'SERVFAIL' | 'REFUSED'>;
}

export interface TestDnsServer {
  port: number;
  /** For DNS_SERVERS: `127.0.0.1:PORT`. */
  server: string;
  /** Live: tests may change them between lookups (answers carry TTL 0, so nothing is cached). */
  zones: Zones;
  hang: Set<string>;
  rcodes: Record<string, 'SERVFAIL' | 'REFUSED'>;
  /** Every question asked, `TYPE name`, in order. */
  queries: string[];
  stop(): Promise<void>;
}

/** RFC 1035 §4.1.1 response codes (dns2 has them, its types do not). */
const RCODE = { FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;

const norm = (name: string) => name.toLowerCase().replace(/\.$/, '');

/** RFC 1035 §3.3.14: a character-string holds at most 255 bytes, so a long TXT value is several. */
export function splitTxt(value: string): Buffer[] {
  const bytes = Buffer.from(value, 'utf8');
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += 255) parts.push(bytes.subarray(i, i + 255));
  return parts.length ? parts : [Buffer.alloc(0)];
}

const TYPE_NAMES: Record<number, string> = { [Packet.TYPE.A]: 'A', [Packet.TYPE.TXT]: 'TXT', [Packet.TYPE.MX]: 'MX' };

/**
 * A DNS server on 127.0.0.1 for tests, UDP and TCP on one random port (c-ares
 * retries over TCP when an answer does not fit in UDP, as long DKIM keys do).
 * Unknown names are NXDOMAIN; a known name without records of the asked type
 * answers NOERROR with no records (NODATA).
 */
export async function startDnsServer(opts: DnsServerOptions = {}): Promise<TestDnsServer> {
  const state = {
    zones: opts.zones ?? {},
    hang: new Set((opts.hang ?? []).map(norm)),
    rcodes: opts.rcodes ?? {},
    queries: [] as string[],
  };

  const handle = (request: Packet, send: (response: Packet) => Promise<Buffer>) => {
    const question = request.questions[0];
    const response = Packet.createResponseFromRequest(request);
    response.header.aa = 1;
    response.header.ra = 1;
    if (!question) {
      response.header.rcode = RCODE.FORMERR;
      void send(response).catch(() => {});
      return;
    }
    const name = norm(question.name);
    const type = TYPE_NAMES[question.type] ?? String(question.type);
    state.queries.push(`${type} ${name}`);
    if (state.hang.has(name)) return;
    const rcode = Object.entries(state.rcodes).find(([n]) => norm(n) === name)?.[1];
    const records = Object.entries(state.zones).find(([n]) => norm(n) === name)?.[1];
    if (rcode) {
      response.header.rcode = RCODE[rcode];
    } else if (!records) {
      response.header.rcode = RCODE.NXDOMAIN;
    } else {
      const base = { name: question.name, class: Packet.CLASS.IN, ttl: 0 };
      if (type === 'A') for (const address of records.A ?? []) response.answers.push({ ...base, type: Packet.TYPE.A, address } as never);
      if (type === 'MX') for (const mx of records.MX ?? []) response.answers.push({ ...base, type: Packet.TYPE.MX, ...mx } as never);
      if (type === 'TXT') {
        for (const txt of records.TXT ?? []) {
          const data = Array.isArray(txt) ? txt : splitTxt(txt);
          response.answers.push({ ...base, type: Packet.TYPE.TXT, data } as never);
        }
      }
    }
    void send(response).catch(() => {});
  };

  // Both transports on one port: take a free TCP port, then bind UDP to it; try again if UDP has it taken.
  for (let attempt = 0; ; attempt++) {
    const tcp: TCPServer = createTCPServer(handle as never);
    const udp: UDPServer = createUDPServer(handle as never);
    await new Promise<void>((ok, fail) => {
      tcp.once('error', fail);
      tcp.listen(0, '127.0.0.1', () => ok());
    });
    const port = (tcp.address() as AddressInfo).port;
    // c-ares keeps its TCP connections open; close them with the server.
    const sockets = new Set<Socket>();
    tcp.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    try {
      await new Promise<void>((ok, fail) => {
        udp.once('error', fail);
        udp.bind(port, '127.0.0.1', () => ok());
      });
    } catch (err) {
      await new Promise((r) => tcp.close(r));
      if (attempt < 10) continue;
      throw err;
    }
    return {
      port,
      server: `127.0.0.1:${port}`,
      get zones() {
        return state.zones;
      },
      set zones(z: Zones) {
        state.zones = z;
      },
      hang: state.hang,
      rcodes: state.rcodes,
      queries: state.queries,
      stop: async () => {
        for (const socket of sockets) socket.destroy();
        await Promise.all([new Promise<void>((r) => udp.close(() => r())), new Promise<void>((r) => tcp.close(() => r()))]);
      },
    };
  }
}
