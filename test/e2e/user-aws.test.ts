import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { finished, runTs } from '../helpers/process.ts';

let engine: TestEngine | undefined;
afterAll(async () => engine?.stop());

/**
 * The deployed-stage mode of `npm run user` uses the SDK's own client and
 * credential chain, as an operator's shell would. Here the SDK's endpoint
 * setting for DynamoDB points it at DynamoDB Local (wire-compatible), with
 * the test instance's credentials.
 */
function addOnStage(email: string, password: string, args: string[]) {
  const child = runTs('packages/local/src/user-cli.ts', ['add', email, ...args], {
    AWS_ENDPOINT_URL_DYNAMODB: inject('dynamoEndpoint'),
    // DynamoDB Local keeps a database per access key id: the operator's stand-in for the stage's account is the engine's key.
    AWS_ACCESS_KEY_ID: inject('dynamoCredentials').accessKeyId,
    AWS_SECRET_ACCESS_KEY: inject('dynamoCredentials').secretAccessKey,
    AWS_REGION: 'eu-west-1',
  });
  child.stdin!.end(password + '\n');
  return finished(child);
}

describe('npm run user on a deployed stage', { timeout: 60_000 }, () => {
  it('adds a user to the stage’s table with the operator’s credentials, who can then sign in', async () => {
    const tableName = `stage-${randomUUID()}`;
    engine = await startTestEngine({ tableName, admin: undefined });
    const added = await addOnStage('ops@outbound.test', 'operator password 1', ['--table', tableName, '--region', 'us-east-1']);
    expect(added.err).toBe('');
    expect(added.out).toContain(`Created the engine user ops@outbound.test in ${tableName}.`);
    expect(added.code).toBe(0);
    const login = await engine.api.request('POST', '/v1/auth/login', { email: 'ops@outbound.test', password: 'operator password 1' });
    expect(login.status).toBe(200);
  });

  it('says so when the table is not there, and creates nothing', async () => {
    const missing = `missing-${randomUUID()}`;
    const out = await addOnStage('ops@outbound.test', 'operator password 1', ['--table', missing]);
    expect(out.code).toBe(1);
    expect(out.err).toContain(`there is no table ${missing} in eu-west-1: deploy the stage first`);
  });
});
