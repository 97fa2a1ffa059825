/**
 * The console's Content-Security-Policy (docs/security.md, The console): scripts
 * and styles only from the installation's own files (no inline script or style,
 * so an injected `<script>` or `onerror=` runs nothing), requests only to the
 * installation itself, and on AWS also to its own upload bucket, where the
 * browser PUTs a CSV too big for an API request. No frames, forms only to itself.
 */
export function consoleCsp(uploadsOrigin?: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    `connect-src 'self'${uploadsOrigin ? ` ${uploadsOrigin}` : ''}`,
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** The origin of the uploads bucket's signed links (S3's virtual-hosted style, as the presigner writes them). */
export function uploadsOrigin(env: Record<string, string | undefined>): string | undefined {
  const bucket = env.UPLOADS_BUCKET;
  const region = env.AWS_REGION;
  return bucket && region ? `https://${bucket}.s3.${region}.amazonaws.com` : undefined;
}
