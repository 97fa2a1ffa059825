/**
 * Types for the globals SST injects into sst.config.ts, limited to what the
 * stacks use (stacks/platform.ts says why these and not SST's generated ones).
 */
import type { Platform } from './platform.ts';

declare global {
  const $app: { name: string; stage: string };
  function $config(config: { app(input?: { stage?: string }): Record<string, unknown>; run(): Promise<unknown> }): unknown;
  const sst: {
    Secret: Platform['Secret'];
    aws: {
      Function: Platform['Function'];
      Dynamo: Platform['Dynamo'];
      Queue: Platform['Queue'];
      ApiGatewayV2: Platform['ApiGatewayV2'];
      Cron: Platform['Cron'];
      Bucket: Platform['Bucket'];
    };
  };
  const aws: {
    kms: { Key: Platform['KmsKey'] };
    sns: { Topic: Platform['Topic']; TopicSubscription: Platform['TopicSubscription'] };
    cloudwatch: { MetricAlarm: Platform['MetricAlarm'] };
  };
}
