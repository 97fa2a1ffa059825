/**
 * `npm run user -- add EMAIL`: creates an engine user, or resets its password.
 * It asks for the password (not echoed on a terminal; one line on a pipe).
 * With the engine running on the same DATA_DIR it writes through that
 * engine's DynamoDB Local; otherwise it starts one on DATA_DIR for itself.
 *
 * `npm run user -- add EMAIL --table TABLE [--region REGION]`: the same on a
 * deployed stage, in its DynamoDB table, with the operator's own AWS
 * credentials (the SDK's usual chain: AWS_PROFILE, environment, SSO). Only
 * the table is touched: a user record holds a password hash, no KMS secret.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoStore } from '@outbound/aws/dynamo-store';
import { systemClock } from '@outbound/core/ports/clock';
import * as users from '@outbound/core/user/index';
import { parse } from '@outbound/core/validate';
import { dynamoCredentials, ensureTable, localDynamoClient, startDynamoLocal } from './dynamo-local.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const usage = 'Usage: npm run user -- add EMAIL [--table TABLE [--region REGION]]   (the password is asked for; --table: a deployed stage)';

async function askPassword(): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    const rl = createInterface({ input: stdin });
    for await (const line of rl) {
      rl.close();
      return line;
    }
    return '';
  }
  process.stdout.write('Password (at least 10 characters): ');
  stdin.setRawMode(true);
  stdin.resume();
  let password = '';
  return new Promise((done) => {
    stdin.on('data', (chunk) => {
      for (const ch of chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n') {
          stdin.setRawMode(false);
          stdin.pause();
          process.stdout.write('\n');
          return done(password);
        }
        if (ch === '\u0003') process.exit(130);
        if (ch === '\u007f') password = password.slice(0, -1);
        else password += ch;
      }
    });
  });
}

async function runningEngine(dataDir: string): Promise<{ dynamoEndpoint: string; tableName: string } | undefined> {
  try {
    const info = JSON.parse(await readFile(join(dataDir, 'engine.json'), 'utf8'));
    process.kill(info.pid, 0); // throws when that process is gone
    return info;
  } catch {
    return undefined;
  }
}

/** A deployed stage's table, reached with the operator's credentials; it must exist (the stack creates it). */
async function addOnAws(table: string, region: string | undefined, email: string, password: string): Promise<boolean> {
  const client = new DynamoDBClient(region ? { region } : {});
  try {
    try {
      await client.send(new DescribeTableCommand({ TableName: table }));
    } catch (err) {
      const name = (err as Error).name;
      if (name === 'ResourceNotFoundException')
        throw new Error(
          `there is no table ${table} in ${await client.config.region()}: deploy the stage first, or check --table and --region.`,
          { cause: err },
        );
      throw new Error(`could not reach the table ${table} with your AWS credentials (${(err as Error).message}).`, { cause: err });
    }
    return (await users.upsert({ store: new DynamoStore(client, table), wallClock: systemClock }, { email, password })).created;
  } finally {
    client.destroy();
  }
}

async function main() {
  const args = process.argv.slice(2);
  const flag = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args.splice(i, 2)[1] : undefined;
  };
  const table = flag('--table');
  const region = flag('--region');
  const [command, email, ...rest] = args;
  if (command !== 'add' || !email || rest.length || (region && !table)) {
    console.error(usage);
    process.exit(2);
  }
  if (table !== undefined) {
    const password = await askPassword();
    parse(users.UserInput, { email, password });
    const created = await addOnAws(table, region, email, password);
    console.log(
      created ? `Created the engine user ${email.toLowerCase()} in ${table}.` : `Reset the password of ${email.toLowerCase()} in ${table}.`,
    );
    return;
  }
  const dataDir = resolve(process.env.DATA_DIR || '.data');
  if (dataDir.endsWith('/memory'))
    throw new Error('DATA_DIR=memory keeps no users between runs: use ADMIN_EMAIL and ADMIN_PASSWORD instead.');
  const password = await askPassword();
  parse(users.UserInput, { email, password }); // a clear message before any process starts

  const running = await runningEngine(dataDir);
  const dynamoDir = join(dataDir, 'dynamodb');
  const dynamo = running ? undefined : await startDynamoLocal(dynamoDir);
  // The running engine's database is reached with the key kept in DATA_DIR, as the engine reaches it.
  const client = running
    ? localDynamoClient(running.dynamoEndpoint, await dynamoCredentials(dynamoDir))
    : localDynamoClient(dynamo!.endpoint, dynamo!.credentials);
  try {
    const tableName = running?.tableName ?? 'outbound';
    if (!running) await ensureTable(client, tableName);
    const { created } = await users.upsert({ store: new DynamoStore(client, tableName), wallClock: systemClock }, { email, password });
    console.log(created ? `Created the engine user ${email.toLowerCase()}.` : `Reset the password of ${email.toLowerCase()}.`);
  } finally {
    client.destroy();
    await dynamo?.stop();
  }
}

main().catch((err) => {
  console.error(`Could not add the user: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
