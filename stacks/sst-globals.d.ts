/**
 * Types for the globals SST injects into sst.config.ts, limited to what the
 * stacks use. The real ones come from `.sst/platform/config.d.ts`, which
 * `sst install` generates at deploy time (it downloads Pulumi, so it cannot
 * run offline here).
 */
import type { Platform } from './platform.ts';

declare global {
  const $app: { name: string; stage: string };
  function $config(config: {
    app(input?: { stage?: string }): Record<string, unknown>;
    run(): Promise<unknown>;
  }): unknown;
  const sst: {
    aws: {
      Dynamo: Platform['Dynamo'];
      Queue: Platform['Queue'];
      ApiGatewayV2: Platform['ApiGatewayV2'];
      Cron: Platform['Cron'];
      Bucket: Platform['Bucket'];
    };
  };
  const aws: { kms: { Key: Platform['KmsKey'] } };
}
