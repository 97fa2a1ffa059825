import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { buildApp } from 'fauxqs';
import { queues } from '@outbound/functions/manifest';
import { localCredentials } from './net.ts';

export interface SqsLocal {
  endpoint: string;
  client: SQSClient;
  /** Queue URL by the manifest's queue name. */
  urls: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * fauxqs in-process, with the manifest's queues and their dead-letter queues.
 * It keeps nothing across restarts; the table is the source of truth for
 * every scheduled send, and start-up recovery re-enqueues what is due.
 */
export async function startSqsLocal(): Promise<SqsLocal> {
  // fauxqs's own start listens on every interface; its app is served here on loopback only.
  const app = buildApp({ logger: false });
  const endpoint = await app.listen({ port: 0, host: '127.0.0.1' });
  const client = new SQSClient({ endpoint, region: 'us-east-1', credentials: localCredentials });
  const urls: Record<string, string> = {};
  for (const [name, def] of Object.entries(queues)) {
    const dlq = await client.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }));
    const dlqArn = (
      await client.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl!, AttributeNames: ['QueueArn'] }))
    ).Attributes!.QueueArn!;
    const q = await client.send(
      new CreateQueueCommand({
        QueueName: name,
        Attributes: {
          VisibilityTimeout: String(def.visibilityTimeoutSeconds),
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: def.maxReceiveCount }),
        },
      }),
    );
    urls[name] = q.QueueUrl!;
    urls[`${name}-dlq`] = dlq.QueueUrl!;
  }
  return {
    endpoint,
    client,
    urls,
    async stop() {
      client.destroy();
      await app.close();
    },
  };
}
