import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Blobs, UploadTicket } from '@outbound/core/ports/blobs';

/**
 * The Blobs port over one S3 bucket. Upload links are presigned PUTs with
 * Content-Length among the signed headers, so S3 itself refuses a body of
 * any other size than the one the link was made for (the 10 MB limit holds
 * before the file is stored).
 */
export class S3Blobs implements Blobs {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {}

  async put(key: string, body: Buffer): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: 'text/csv' }));
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return Buffer.from(await out.Body!.transformToByteArray());
    } catch (err) {
      if (err instanceof NoSuchKey) return undefined;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async uploadTicket(key: string, opts: { bytes: number; contentType: string; expiresInSeconds: number }): Promise<UploadTicket> {
    const url = await getSignedUrl(
      this.client,
      new PutObjectCommand({ Bucket: this.bucket, Key: key, ContentLength: opts.bytes, ContentType: opts.contentType }),
      { expiresIn: opts.expiresInSeconds, signableHeaders: new Set(['content-length', 'content-type']) },
    );
    return { url, method: 'PUT', headers: { 'content-type': opts.contentType, 'content-length': String(opts.bytes) } };
  }
}
