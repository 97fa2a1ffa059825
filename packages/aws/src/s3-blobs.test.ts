import { S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { S3Blobs } from './s3-blobs.ts';

describe('S3 upload links', () => {
  it('sign the exact size and type, so S3 refuses any other body', async () => {
    const client = new S3Client({ region: 'eu-west-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' } });
    const ticket = await new S3Blobs(client, 'uploads-bucket').uploadTicket('imports/01ABC.csv', {
      bytes: 1234,
      contentType: 'text/csv',
      expiresInSeconds: 900,
    });
    const url = new URL(ticket.url);
    expect(url.hostname).toContain('uploads-bucket');
    expect(url.pathname).toBe('/imports/01ABC.csv');
    expect(url.searchParams.get('X-Amz-SignedHeaders')?.split(';')).toEqual(
      expect.arrayContaining(['content-length', 'content-type', 'host']),
    );
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(ticket).toMatchObject({ method: 'PUT', headers: { 'content-type': 'text/csv', 'content-length': '1234' } });
    // The secret never appears in the link.
    expect(ticket.url).not.toContain('secret');
  });
});
