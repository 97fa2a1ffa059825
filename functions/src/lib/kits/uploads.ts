import { S3Client } from '@aws-sdk/client-s3';
import { S3Blobs } from '@outbound/aws/s3-blobs';
import type { Kit } from '../deps.ts';

/**
 * The uploads bucket on AWS (the S3 client and its presigner): only the
 * functions that take or read an import's file carry it. Locally the
 * runtime's own blob store stands in (packages/local/src/local-blobs.ts).
 */
export const uploadsKit: Kit = {
  name: 'uploads',
  make: ({ env }) => {
    const bucket = env.UPLOADS_BUCKET;
    if (!bucket) throw new Error('The environment variable UPLOADS_BUCKET is not set.');
    return { blobs: new S3Blobs(new S3Client({}), bucket) };
  },
};
