import { chmod, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { localDynamoClient } from '@outbound/local/dynamo-local';
import * as aiKeys from '@outbound/core/ai-keys/index';
import { aiKeyKey } from '@outbound/core/ai-keys/keys';
import { Api, startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { finished, runTs } from '../helpers/process.ts';

const FIRST = { email: 'first@outbound.test', password: 'first user password' };
const SECOND = { email: 'second@outbound.test', password: 'second user password' };
const AI_KEY = 'sk-test-this-is-not-a-real-key-0123456789';

let dataDir: string;
let engine: TestEngine | undefined;

afterAll(async () => {
  await engine?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function addUser(user: { email: string; password: string }) {
  const child = runTs('packages/local/src/user-cli.ts', ['add', user.email], { DATA_DIR: dataDir });
  child.stdin!.end(user.password + '\n');
  return finished(child);
}

// Two DynamoDB Local starts and two CLI processes: slow on a busy two-core machine.
describe('a persistent DATA_DIR', { timeout: 120_000 }, () => {
  it('keeps users, secrets and the signing key across a restart, with the user command working beside it', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'outbound-restart-'));

    // Before any engine ran: the command starts DynamoDB Local on DATA_DIR itself.
    const added = await addUser(FIRST);
    expect(added.err).toBe('');
    expect(added.out).toContain('Created the engine user first@outbound.test');
    expect(added.code).toBe(0);

    // A data directory others could enter is closed to them at start (it holds the master key).
    await chmod(dataDir, 0o755);
    engine = await startTestEngine({ dataDir, tableName: 'outbound', admin: undefined });
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    const api = new Api(engine.url);
    const token = await api.login(FIRST);
    expect((await api.request('PUT', '/v1/ai-keys/openai', { apiKey: AI_KEY })).status).toBe(204);

    // Secrets at rest: the stored item holds no plaintext.
    const raw = await engine.deps.store.get(aiKeyKey('openai'));
    expect(JSON.stringify(raw)).not.toContain(AI_KEY);
    expect(JSON.stringify(raw)).not.toContain(Buffer.from(AI_KEY).toString('base64'));
    expect((await stat(join(dataDir, 'kms-master.key'))).mode & 0o777).toBe(0o600);

    // The table's key id, made by the first start (the command's) and read by the engine's, is this user's alone.
    expect((await stat(join(dataDir, 'dynamodb', 'credentials.json'))).mode & 0o777).toBe(0o600);
    const { dynamoEndpoint } = JSON.parse(await readFile(join(dataDir, 'engine.json'), 'utf8'));
    const stranger = localDynamoClient(dynamoEndpoint, { accessKeyId: 'SOMEONEELSE', secretAccessKey: 'anything' });
    expect((await stranger.send(new ListTablesCommand({}))).TableNames).toEqual([]);
    stranger.destroy();

    // With the engine running, the command writes through the engine's DynamoDB Local.
    const second = await addUser(SECOND);
    expect(second.code).toBe(0);
    expect(second.out).toContain('Created the engine user second@outbound.test');
    await new Api(engine.url).login(SECOND);

    await engine.stop();
    engine = await startTestEngine({ dataDir, tableName: 'outbound', admin: undefined });
    const again = new Api(engine.url);
    await again.login(FIRST);
    await again.login(SECOND);
    expect((await again.request('GET', '/v1/ai-keys')).body).toEqual([
      { provider: 'openai', configured: true },
      { provider: 'anthropic', configured: false },
    ]);
    expect(await aiKeys.reveal(engine.deps, 'openai')).toBe(AI_KEY);
    // A token from before the restart still verifies: the signing key was kept, sealed, in the table.
    again.token = token;
    expect((await again.request('GET', '/v1/ai-keys')).status).toBe(200);
  });

  it('refuses a short password with a plain sentence and stores nothing', async () => {
    const res = await addUser({ email: 'short@outbound.test', password: 'short' });
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/password: must be at least 10 characters/);
    expect((await new Api(engine!.url).request('POST', '/v1/auth/login', { email: 'short@outbound.test', password: 'short' })).status).toBe(
      401,
    );
  });

  it('finishes requests in flight when it stops, and takes no new ones', async () => {
    const api = new Api(engine!.url);
    const inFlight = api.request('POST', '/v1/auth/login', FIRST);
    while (engine!.inFlight() === 0) await new Promise((r) => setTimeout(r, 1));
    const stopping = engine!.stop();
    expect((await inFlight).status).toBe(200);
    await stopping;
    await expect(fetch(engine!.url + '/v1/ai-keys')).rejects.toThrow();
    engine = undefined;
  });
});
