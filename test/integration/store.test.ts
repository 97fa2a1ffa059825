import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { DynamoStore } from '@outbound/aws/dynamo-store';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { ConditionFailedError, TransactionFailedError, ValidationError } from '@outbound/core/errors';
import { assertLocal, ensureTable, localDynamoClient } from '@outbound/local/dynamo-local';

const endpoint = inject('dynamoEndpoint');
const client = localDynamoClient(endpoint);
const store = new DynamoStore(client, `store-${randomUUID()}`);

beforeAll(async () => {
  await ensureTable(client, (store as unknown as { table: string }).table);
});
afterAll(() => client.destroy());

describe('DynamoStore on DynamoDB Local', () => {
  it('refuses any endpoint that is not on this machine', () => {
    expect(() => assertLocal('https://dynamodb.us-east-1.amazonaws.com')).toThrow(/only talks to stand-ins/);
    expect(() => localDynamoClient('http://10.0.0.5:8000')).toThrow(/only talks to stand-ins/);
    expect(() => assertLocal(endpoint)).not.toThrow();
  });

  it('keeps a key unique with a conditional put', async () => {
    const item = { pk: 'UNIQ#a', sk: 'X', n: 1 };
    await store.put(item, { if: { itemExists: false } });
    await expect(store.put({ ...item, n: 2 }, { if: { itemExists: false } })).rejects.toBeInstanceOf(ConditionFailedError);
    expect((await store.get(item))?.n).toBe(1);
  });

  it('counts concurrent increments exactly with ADD', async () => {
    const key = { pk: 'COUNTER#c', sk: 'C' };
    await Promise.all(Array.from({ length: 40 }, () => store.update(key, { add: { hits: 1 } })));
    expect((await store.get(key))?.hits).toBe(40);
  });

  it('applies conditions on attributes and removes fields', async () => {
    const key = { pk: 'COND#1', sk: 'C' };
    await store.put({ ...key, state: 'A', extra: 'x' });
    await expect(store.update(key, { set: { state: 'B' }, if: { attr: 'state', op: '=', value: 'Z' } })).rejects.toBeInstanceOf(
      ConditionFailedError,
    );
    const after = await store.update(key, { set: { state: 'B' }, remove: ['extra'], if: { attr: 'state', op: '=', value: 'A' } });
    expect(after).toEqual({ ...key, state: 'B' });
    await expect(store.delete(key, { if: { attr: 'state', op: '=', value: 'A' } })).rejects.toBeInstanceOf(ConditionFailedError);
    expect(await store.delete(key)).toMatchObject({ state: 'B' });
    expect(await store.get(key)).toBeUndefined();
  });

  it('pages a query with cursors, forward and in reverse, and on an index', async () => {
    const items = Array.from({ length: 7 }, (_, i) => ({
      pk: 'LIST#1',
      sk: `ITEM#${i}`,
      gsi1pk: 'BYNAME',
      gsi1sk: `name-${6 - i}`,
    }));
    await store.batchPut(items);
    const first = await store.query({ pk: 'LIST#1', skBeginsWith: 'ITEM#', limit: 4 });
    expect(first.items.map((i) => i.sk)).toEqual(['ITEM#0', 'ITEM#1', 'ITEM#2', 'ITEM#3']);
    const second = await store.query({ pk: 'LIST#1', skBeginsWith: 'ITEM#', limit: 4, cursor: first.cursor });
    expect(second.items.map((i) => i.sk)).toEqual(['ITEM#4', 'ITEM#5', 'ITEM#6']);
    const reversed = await store.query({ pk: 'LIST#1', reverse: true, limit: 2 });
    expect(reversed.items.map((i) => i.sk)).toEqual(['ITEM#6', 'ITEM#5']);
    const byIndex = await store.query({ index: 'gsi1', pk: 'BYNAME', skBetween: ['name-0', 'name-1'] });
    expect(byIndex.items.map((i) => i.sk)).toEqual(['ITEM#6', 'ITEM#5']);
    await expect(store.query({ pk: 'LIST#1', cursor: 'not-a-cursor' })).rejects.toBeInstanceOf(ValidationError);
  });

  it('writes a transaction all or nothing and names the operation that failed', async () => {
    await store.put({ pk: 'TX#taken', sk: 'T' });
    const err = await store
      .transact([
        { put: { pk: 'TX#new', sk: 'T' }, if: { itemExists: false } },
        { update: { pk: 'TX#count', sk: 'T' }, change: { add: { n: 1 } } },
        { put: { pk: 'TX#taken', sk: 'T' }, if: { itemExists: false } },
      ])
      .catch((e) => e);
    expect(err).toBeInstanceOf(TransactionFailedError);
    expect((err as TransactionFailedError).failed).toEqual([2]);
    expect(await store.get({ pk: 'TX#new', sk: 'T' })).toBeUndefined();
    expect(await store.get({ pk: 'TX#count', sk: 'T' })).toBeUndefined();

    await store.transact([
      { put: { pk: 'TX#new', sk: 'T' }, if: { itemExists: false } },
      { check: { pk: 'TX#taken', sk: 'T' }, if: { itemExists: true } },
      { update: { pk: 'TX#count', sk: 'T' }, change: { add: { n: 1 } } },
    ]);
    expect((await store.get({ pk: 'TX#count', sk: 'T' }))?.n).toBe(1);
  });

  it('writes more than one batch of 25', async () => {
    const items = Array.from({ length: 60 }, (_, i) => ({ pk: 'BULK', sk: String(i).padStart(3, '0') }));
    await store.batchPut(items);
    let count = 0;
    let cursor: string | undefined;
    do {
      const page = await store.query({ pk: 'BULK', cursor });
      count += page.items.length;
      cursor = page.cursor;
    } while (cursor);
    expect(count).toBe(60);
  });

  it('tries a transaction cancelled by a conflict again with the same request token, so it applies once', async () => {
    // DynamoDB Local never reports TransactionConflict: two cancellations are injected in front of the real call.
    const faulty = localDynamoClient(endpoint);
    const tokens: string[] = [];
    let conflicts = 2;
    faulty.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'TransactWriteItemsCommand') {
          tokens.push(String((args.input as { ClientRequestToken?: string }).ClientRequestToken));
          if (conflicts-- > 0) {
            throw new TransactionCanceledException({
              message: 'Transaction cancelled',
              $metadata: {},
              CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }],
            });
          }
        }
        return next(args);
      },
      { step: 'initialize', name: 'injectConflicts' },
    );
    const conflicted = new DynamoStore(faulty, (store as unknown as { table: string }).table);
    try {
      const key = { pk: 'CONFLICT#1', sk: 'C' };
      await conflicted.transact([{ put: { pk: 'CONFLICT#2', sk: 'C' }, if: { itemExists: false } }, { update: key, change: { add: { n: 1 } } }]);
      expect(tokens).toHaveLength(3);
      expect(new Set(tokens).size).toBe(1);
      expect((await store.get(key))?.n).toBe(1);
      // A condition that fails is not a conflict: it is reported at once, not tried again.
      tokens.length = 0;
      await expect(conflicted.transact([{ put: { pk: 'CONFLICT#2', sk: 'C' }, if: { itemExists: false } }])).rejects.toBeInstanceOf(TransactionFailedError);
      expect(tokens).toHaveLength(1);
    } finally {
      faulty.destroy();
    }
  });
});
