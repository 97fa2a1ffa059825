import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { DynamoStore } from '@outbound/aws/dynamo-store';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { ConditionFailedError, TransactionFailedError, ValidationError } from '@outbound/core/errors';
import { MemoryStore } from '@outbound/core/ports/memory-store';
import type { Store } from '@outbound/core/ports/store';
import { assertLocal, ensureTable, localDynamoClient } from '@outbound/local/dynamo-local';

const endpoint = inject('dynamoEndpoint');
const client = localDynamoClient(endpoint);
const dynamo = new DynamoStore(client, `store-${randomUUID()}`);

beforeAll(async () => {
  await ensureTable(client, (dynamo as unknown as { table: string }).table);
});
afterAll(() => client.destroy());

describe('DynamoStore on DynamoDB Local', () => {
  it('refuses any endpoint that is not on this machine', () => {
    expect(() => assertLocal('https://dynamodb.us-east-1.amazonaws.com')).toThrow(/only talks to stand-ins/);
    expect(() => localDynamoClient('http://10.0.0.5:8000')).toThrow(/only talks to stand-ins/);
    expect(() => assertLocal(endpoint)).not.toThrow();
  });
});

/**
 * The store's contract, held by both implementations: DynamoDB Local through
 * the AWS adapter, and the in-memory store the unit tier runs on.
 */
describe.each([
  ['DynamoStore on DynamoDB Local', () => dynamo],
  ['MemoryStore', () => new MemoryStore()],
] as [string, () => Store][])('the Store contract: %s', (_name, make) => {
  let store: Store;
  beforeAll(() => {
    store = make();
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

  it('serves a sparse index: only items with both of its keys, ordered by its sort key as bytes', async () => {
    await store.batchPut([
      { pk: 'SPARSE#1', sk: 'A', gsi4pk: 'PINNED', gsi4sk: 'b' },
      { pk: 'SPARSE#2', sk: 'A', gsi4pk: 'PINNED', gsi4sk: 'a' },
      { pk: 'SPARSE#3', sk: 'A', gsi4pk: 'PINNED' },
      { pk: 'SPARSE#4', sk: 'A', gsi4pk: 'PINNED', gsi4sk: 'Z' },
      { pk: 'SPARSE#5', sk: 'A' },
    ]);
    const page = await store.query({ index: 'gsi4', pk: 'PINNED' });
    expect(page.items.map((i) => i.pk)).toEqual(['SPARSE#4', 'SPARSE#2', 'SPARSE#1']);
    expect(await store.count({ index: 'gsi4', pk: 'PINNED' })).toBe(3);
    expect(await store.count({ index: 'gsi4', pk: 'PINNED', skBeginsWith: 'a' })).toBe(1);
  });

  it('pages in reverse to the end, and goes on after a cursor whose item was deleted', async () => {
    await store.batchPut(Array.from({ length: 5 }, (_, i) => ({ pk: 'REV', sk: `S#${i}` })));
    const first = await store.query({ pk: 'REV', reverse: true, limit: 2 });
    expect(first.items.map((i) => i.sk)).toEqual(['S#4', 'S#3']);
    await store.delete({ pk: 'REV', sk: 'S#3' });
    const second = await store.query({ pk: 'REV', reverse: true, limit: 2, cursor: first.cursor });
    expect(second.items.map((i) => i.sk)).toEqual(['S#2', 'S#1']);
    const last = await store.query({ pk: 'REV', reverse: true, limit: 2, cursor: second.cursor });
    expect(last.items.map((i) => i.sk)).toEqual(['S#0']);
    expect(last.cursor).toBeUndefined();
  });

  it('evaluates conditions on the stored item: a missing attribute is only <> anything; ADD starts at 0; an update creates', async () => {
    const key = { pk: 'SEM#1', sk: 'S' };
    await expect(store.update(key, { set: { a: 1 }, if: { attr: 'n', op: '<', value: 5 } })).rejects.toBeInstanceOf(ConditionFailedError);
    await expect(store.update(key, { set: { a: 1 }, if: { attr: 'n', op: '=', value: 5 } })).rejects.toBeInstanceOf(ConditionFailedError);
    expect(await store.get(key)).toBeUndefined();
    expect(await store.update({ pk: 'SEM#0', sk: 'S' }, { set: { a: 1 }, if: { attr: 'n', op: '<>', value: 5 } })).toEqual({ pk: 'SEM#0', sk: 'S', a: 1 });
    const created = await store.update(key, { add: { n: 2 }, set: { label: null, skip: undefined }, if: { or: [{ attr: 'n', exists: false }, { attr: 'n', op: '<', value: 5 }] } });
    expect(created).toEqual({ ...key, n: 2, label: null });
    expect(await store.update(key, { add: { n: -3 }, if: { and: [{ itemExists: true }, { attr: 'n', op: '>=', value: 2 }] } })).toMatchObject({ n: -1 });
    await expect(store.update(key, { set: { x: 1 }, if: { attr: 'n', op: '>', value: 'a' } })).rejects.toBeInstanceOf(ConditionFailedError);
    await expect(store.put({ ...key, fresh: true }, { if: { attr: 'label', exists: false } })).rejects.toBeInstanceOf(ConditionFailedError);
    expect(await store.delete({ pk: 'SEM#none', sk: 'S' })).toBeUndefined();
  });

  it('refuses a transaction with a failed check, and one that names an item twice', async () => {
    await expect(store.transact([{ check: { pk: 'TXC#absent', sk: 'T' }, if: { itemExists: true } }, { put: { pk: 'TXC#2', sk: 'T' } }])).rejects.toMatchObject({ failed: [0] });
    expect(await store.get({ pk: 'TXC#2', sk: 'T' })).toBeUndefined();
    await expect(store.transact([{ put: { pk: 'TXC#3', sk: 'T' } }, { update: { pk: 'TXC#3', sk: 'T' }, change: { add: { n: 1 } } }])).rejects.toThrow();
    expect(await store.get({ pk: 'TXC#3', sk: 'T' })).toBeUndefined();
  });

  it('reads many keys at once, each once, leaving out the missing', async () => {
    await store.batchPut(Array.from({ length: 130 }, (_, i) => ({ pk: `BG#${i}`, sk: 'B', i })));
    const keys = [...Array.from({ length: 130 }, (_, i) => ({ pk: `BG#${i}`, sk: 'B' })), { pk: 'BG#0', sk: 'B' }, { pk: 'BG#missing', sk: 'B' }];
    const found = await store.batchGet(keys);
    expect(found).toHaveLength(130);
    expect(new Set(found.map((f) => f.i)).size).toBe(130);
  });
});

describe('DynamoStore on DynamoDB Local, faults', () => {
  const store = dynamo;
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
