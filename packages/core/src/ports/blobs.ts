/**
 * Blobs port: files kept for a while (an uploaded CSV until its import ends).
 * On AWS an S3 bucket (packages/aws/src/s3-blobs.ts); locally a folder in
 * DATA_DIR or memory (packages/local/src/local-blobs.ts). A stored blob
 * starts its import worker: S3's event on AWS, the local adapter's own
 * callback locally, so both run the same worker.
 */
export interface UploadTicket {
  /** Where the client sends the file, with exactly `bytes` bytes. */
  url: string;
  method: 'PUT';
  /** Headers the upload must carry (they are part of the signature). */
  headers: Record<string, string>;
}

export interface Blobs {
  put(key: string, body: Buffer): Promise<void>;
  /** undefined when there is no such blob. */
  get(key: string): Promise<Buffer | undefined>;
  delete(key: string): Promise<void>;
  /** A signed upload of exactly `bytes` bytes to `key`, valid for `expiresInSeconds`. */
  uploadTicket(key: string, opts: { bytes: number; contentType: string; expiresInSeconds: number }): Promise<UploadTicket>;
}
