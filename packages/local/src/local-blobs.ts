import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { Blobs, UploadTicket } from '@outbound/core/ports/blobs';

/** Where signed uploads land on the local runtime: it stands in for S3's presigned PUT. */
export const UPLOAD_PATH = '/local-uploads/';

export interface LocalBlobs extends Blobs {
  /** Serves `PUT /local-uploads/{key}?…` (a signed upload); false when the request is not one. */
  serveUpload(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
}

/**
 * Blobs in a folder of DATA_DIR (or in memory), and signed upload links to
 * the engine's own address. A stored blob calls `onStored`, as S3's event
 * starts the worker on AWS. Upload links are signed with a key made at start,
 * so a link ends with the process, and each works once.
 */
export function localBlobs(opts: { dir: string | 'memory'; baseUrl: () => string; onStored: (key: string) => void }): LocalBlobs {
  const memory = new Map<string, Buffer>();
  const signingKey = randomBytes(32);
  // A link works once: used again after its import ended, it would put the file back where no worker reads or deletes it.
  const used = new Set<string>();
  // Keys are made by core (`imports/<id>.csv`); anything else never reaches the disk.
  const pathOf = (key: string) => {
    if (!/^[A-Za-z0-9/_.-]{1,200}$/.test(key) || key.includes('..')) throw new Error(`Not a blob key: ${key}`);
    return join(opts.dir, key.replaceAll('/', '__'));
  };
  const sign = (key: string, bytes: number, expires: number) =>
    createHmac('sha256', signingKey).update(`${key}\n${bytes}\n${expires}`).digest('base64url');

  const put = async (key: string, body: Buffer) => {
    if (opts.dir === 'memory') memory.set(key, Buffer.from(body));
    else {
      await mkdir(opts.dir, { recursive: true, mode: 0o700 });
      await writeFile(pathOf(key), body, { mode: 0o600 });
    }
    opts.onStored(key);
  };

  return {
    put,
    async get(key) {
      if (opts.dir === 'memory') return memory.get(key);
      try {
        return await readFile(pathOf(key));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
    },
    async delete(key) {
      if (opts.dir === 'memory') memory.delete(key);
      else await rm(pathOf(key), { force: true });
    },
    async uploadTicket(key, { bytes, contentType, expiresInSeconds }): Promise<UploadTicket> {
      const expires = Date.now() + expiresInSeconds * 1000;
      const query = new URLSearchParams({ bytes: String(bytes), expires: String(expires), signature: sign(key, bytes, expires) });
      return {
        url: `${opts.baseUrl()}${UPLOAD_PATH}${encodeURIComponent(key)}?${query}`,
        method: 'PUT',
        headers: { 'content-type': contentType },
      };
    },
    async serveUpload(req, res) {
      const url = new URL(req.url ?? '/', 'http://local');
      if (req.method !== 'PUT' || !url.pathname.startsWith(UPLOAD_PATH)) return false;
      const answer = (status: number, error?: string) => {
        res.writeHead(status, error ? { 'content-type': 'application/json' } : {});
        res.end(error ? JSON.stringify({ error }) : undefined);
      };
      let key: string;
      try {
        key = decodeURIComponent(url.pathname.slice(UPLOAD_PATH.length));
      } catch {
        answer(403, 'This upload link is not valid.');
        return true;
      }
      const bytes = Number(url.searchParams.get('bytes'));
      const expires = Number(url.searchParams.get('expires'));
      const given = Buffer.from(url.searchParams.get('signature') ?? '');
      const expected = Buffer.from(sign(key, bytes, expires));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        answer(403, 'This upload link is not valid.');
        return true;
      }
      if (Date.now() > expires) {
        answer(403, 'This upload link has expired: ask for a new one.');
        return true;
      }
      const link = given.toString();
      if (used.has(link)) {
        answer(403, 'This upload link has been used already: ask for a new one.');
        return true;
      }
      // Taken before the body is read, so two uploads racing on one link cannot both land; a body of the wrong size gives it back.
      used.add(link);
      // As S3 does for a signed Content-Length: the body must be exactly the size the link was made for.
      const chunks: Buffer[] = [];
      let total = 0;
      for await (const chunk of req) {
        total += (chunk as Buffer).length;
        if (total > bytes) break;
        chunks.push(chunk as Buffer);
      }
      if (total !== bytes) {
        used.delete(link);
        answer(total > bytes ? 413 : 400, `The upload must be exactly ${bytes} bytes, the size given when the link was made.`);
        return true;
      }
      await put(key, Buffer.concat(chunks));
      answer(200);
      return true;
    },
  };
}
