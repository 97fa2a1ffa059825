import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { inject } from 'vitest';
import { DynamoStore } from '@outbound/aws/dynamo-store';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { ConditionFailedError, EngineError, TransactionFailedError, ValidationError } from '@outbound/core/errors';
import { MemoryStore } from '@outbound/core/testing/memory-store';
import type { Condition, Store } from '@outbound/core/ports/store';
import { assertLocal, ensureTable, localDynamoClient } from '@outbound/local/dynamo-local';

const endpoint = inject('dynamoEndpoint');
const credentials = inject('dynamoCredentials');
const client = localDynamoClient(endpoint, credentials);
const dynamo = new DynamoStore(client, `store-${randomUUID()}`);

beforeAll(async () => {
  await ensureTable(client, (dynamo as unknown as { table: string }).table);
});
afterAll(() => client.destroy());

describe('DynamoStore on DynamoDB Local', () => {
  it('refuses any endpoint that is not on this machine', () => {
    expect(() => assertLocal('https://dynamodb.us-east-1.amazonaws.com')).toThrow(/only talks to stand-ins/);
    expect(() => localDynamoClient('http://10.0.0.5:8000', credentials)).toThrow(/only talks to stand-ins/);
    expect(() => assertLocal(endpoint)).not.toThrow();
  });
});

/**
 * The store's contract, held by both implementations: DynamoDB Local through
 * the AWS adapter, and the in-memory store the unit tier runs on. Every case
 * runs against both; the few that only DynamoDB can show are further down.
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
    expect(await store.update({ pk: 'SEM#0', sk: 'S' }, { set: { a: 1 }, if: { attr: 'n', op: '<>', value: 5 } })).toEqual({
      pk: 'SEM#0',
      sk: 'S',
      a: 1,
    });
    const created = await store.update(key, {
      add: { n: 2 },
      set: { label: null, skip: undefined },
      if: {
        or: [
          { attr: 'n', exists: false },
          { attr: 'n', op: '<', value: 5 },
        ],
      },
    });
    expect(created).toEqual({ ...key, n: 2, label: null });
    expect(
      await store.update(key, { add: { n: -3 }, if: { and: [{ itemExists: true }, { attr: 'n', op: '>=', value: 2 }] } }),
    ).toMatchObject({ n: -1 });
    await expect(store.update(key, { set: { x: 1 }, if: { attr: 'n', op: '>', value: 'a' } })).rejects.toBeInstanceOf(ConditionFailedError);
    await expect(store.put({ ...key, fresh: true }, { if: { attr: 'label', exists: false } })).rejects.toBeInstanceOf(ConditionFailedError);
    expect(await store.delete({ pk: 'SEM#none', sk: 'S' })).toBeUndefined();
  });

  it('refuses a transaction with a failed check, and one that names an item twice', async () => {
    await expect(
      store.transact([{ check: { pk: 'TXC#absent', sk: 'T' }, if: { itemExists: true } }, { put: { pk: 'TXC#2', sk: 'T' } }]),
    ).rejects.toMatchObject({ failed: [0] });
    expect(await store.get({ pk: 'TXC#2', sk: 'T' })).toBeUndefined();
    await expect(
      store.transact([{ put: { pk: 'TXC#3', sk: 'T' } }, { update: { pk: 'TXC#3', sk: 'T' }, change: { add: { n: 1 } } }]),
    ).rejects.toThrow();
    expect(await store.get({ pk: 'TXC#3', sk: 'T' })).toBeUndefined();
  });

  it('reads many keys at once, each once, leaving out the missing', async () => {
    await store.batchPut(Array.from({ length: 130 }, (_, i) => ({ pk: `BG#${i}`, sk: 'B', i })));
    const keys = [
      ...Array.from({ length: 130 }, (_, i) => ({ pk: `BG#${i}`, sk: 'B' })),
      { pk: 'BG#0', sk: 'B' },
      { pk: 'BG#missing', sk: 'B' },
    ];
    const found = await store.batchGet(keys);
    expect(found).toHaveLength(130);
    expect(new Set(found.map((f) => f.i)).size).toBe(130);
  });

  /** A refusal by DynamoDB itself: the SDK's ValidationException, which the adapter lets through (not a core error). */
  async function refused(p: Promise<unknown>): Promise<void> {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err, 'refused').toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(EngineError);
    expect((err as Error).name).toBe('ValidationException');
  }

  it('reads sort keys in UTF-8 byte order, and a table range with skBetween and skBeginsWith', async () => {
    // JS compares UTF-16 units, which puts an emoji before U+FFFF; DynamoDB compares UTF-8 bytes.
    await store.batchPut(['z', '\u{1F600}', 'é', '\uffff', 'a'].map((sk) => ({ pk: 'UTF8', sk })));
    expect((await store.query({ pk: 'UTF8' })).items.map((i) => i.sk)).toEqual(['a', 'z', 'é', '\uffff', '\u{1F600}']);
    expect((await store.query({ pk: 'UTF8', skBetween: ['b', '\uffff'] })).items.map((i) => i.sk)).toEqual(['z', 'é', '\uffff']);
    expect((await store.query({ pk: 'UTF8', skBetween: ['z', 'z'], reverse: true })).items.map((i) => i.sk)).toEqual(['z']);
    expect((await store.query({ pk: 'UTF8', skBetween: ['b', '\u{1F600}'], reverse: true, limit: 2 })).items.map((i) => i.sk)).toEqual([
      '\u{1F600}',
      '\uffff',
    ]);
    expect(await store.count({ pk: 'UTF8', skBetween: ['b', '\uffff'] })).toBe(3);
    expect(await store.count({ pk: 'UTF8', skBeginsWith: '\u{1F600}' })).toBe(1);
    expect(await store.count({ pk: 'UTF8' })).toBe(5);
    expect(await store.count({ pk: 'UTF8-none' })).toBe(0);
  });

  it('pages forward to the end: a full last page carries no cursor, on the table and on an index', async () => {
    await store.batchPut(Array.from({ length: 4 }, (_, i) => ({ pk: 'PAGES', sk: `P#${i}` })));
    const first = await store.query({ pk: 'PAGES', limit: 2 });
    expect(first.items.map((i) => i.sk)).toEqual(['P#0', 'P#1']);
    expect(first.cursor).toBeTypeOf('string');
    const second = await store.query({ pk: 'PAGES', limit: 2, cursor: first.cursor });
    expect(second.items.map((i) => i.sk)).toEqual(['P#2', 'P#3']);
    expect(second.cursor).toBeUndefined();
    const all = await store.query({ pk: 'PAGES', limit: 10 });
    expect([all.items.length, all.cursor]).toEqual([4, undefined]);

    await store.batchPut(Array.from({ length: 5 }, (_, i) => ({ pk: `PAGEIDX#${i}`, sk: 'X', gsi2pk: 'PAGEIDX', gsi2sk: `T#${i}` })));
    const pages: unknown[][] = [];
    let cursor: string | undefined;
    do {
      const page = await store.query({ index: 'gsi2', pk: 'PAGEIDX', skBeginsWith: 'T#', limit: 2, cursor });
      pages.push(page.items.map((i) => i.gsi2sk));
      cursor = page.cursor;
    } while (cursor);
    expect(pages).toEqual([['T#0', 'T#1'], ['T#2', 'T#3'], ['T#4']]);
  });

  it('ends a page without a limit at 1 MB read, with a cursor to the rest', async () => {
    const big = 'x'.repeat(380_000);
    await store.batchPut([0, 1, 2, 3].map((i) => ({ pk: 'MB', sk: `M#${i}`, big })));
    const first = await store.query({ pk: 'MB' });
    expect(first.items.map((i) => i.sk)).toEqual(['M#0', 'M#1', 'M#2']);
    expect(first.cursor).toBeTypeOf('string');
    const rest = await store.query({ pk: 'MB', cursor: first.cursor });
    expect([rest.items.map((i) => i.sk), rest.cursor]).toEqual([['M#3'], undefined]);
    expect(await store.count({ pk: 'MB' })).toBe(4);
  });

  it('moves an item between index partitions as its index keys change, and out when one goes', async () => {
    const key = { pk: 'MOVE', sk: 'M' };
    await store.put({ ...key, gsi3pk: 'MOVE#A', gsi3sk: '1' });
    await store.update(key, { set: { gsi3pk: 'MOVE#B' } });
    expect(await store.count({ index: 'gsi3', pk: 'MOVE#A' })).toBe(0);
    expect((await store.query({ index: 'gsi3', pk: 'MOVE#B' })).items).toEqual([{ ...key, gsi3pk: 'MOVE#B', gsi3sk: '1' }]);
    await store.update(key, { remove: ['gsi3sk'] });
    expect(await store.count({ index: 'gsi3', pk: 'MOVE#B' })).toBe(0);
    await store.update(key, { set: { gsi3sk: '2' } });
    expect(await store.count({ index: 'gsi3', pk: 'MOVE#B' })).toBe(1);
    await store.delete(key);
    expect(await store.count({ index: 'gsi3', pk: 'MOVE#B' })).toBe(0);
  });

  it('keeps values as the document client converts them: undefined dropped at any depth, bytes as Uint8Array, sets, exact decimals', async () => {
    const key = { pk: 'VALUES', sk: 'V' };
    await store.put({
      ...key,
      gone: undefined,
      map: { kept: 1, gone: undefined, nested: { deep: [1, undefined, 'x'] } },
      list: [undefined, true, null],
      strings: new Set(['a', 'b']),
      numbers: new Set([1, 2]),
      bin: Buffer.from('hi'),
      small: 5n,
      empty: '',
      none: null,
      fromMap: new Map([['k', 'v']]),
      emptyMap: {},
      emptyList: [],
    });
    expect(await store.get(key)).toStrictEqual({
      ...key,
      map: { kept: 1, nested: { deep: [1, 'x'] } },
      list: [true, null],
      strings: new Set(['a', 'b']),
      numbers: new Set([1, 2]),
      bin: new Uint8Array([104, 105]),
      small: 5,
      empty: '',
      none: null,
      fromMap: { k: 'v' },
      emptyMap: {},
      emptyList: [],
    });
    // Numbers are decimals: ADD 0.1 and 0.2 makes 0.3, and a sum past 2^53 comes back as a bigint.
    const sums = { pk: 'VALUES', sk: 'SUM' };
    expect((await store.update(sums, { add: { x: 0.1, big: Number.MAX_SAFE_INTEGER } })).x).toBe(0.1);
    expect(await store.update(sums, { add: { x: 0.2, big: 2 } })).toStrictEqual({ ...sums, x: 0.3, big: 2n ** 53n + 1n });
  });

  it('copies in and out: no caller ever holds the stored object', async () => {
    const key = { pk: 'COPY', sk: 'C' };
    const item = { ...key, m: { a: 1 }, l: [1] };
    await store.put(item);
    item.m.a = 2;
    item.l.push(2);
    const value = { b: 1 };
    const updated = await store.update(key, { set: { s: value } });
    value.b = 2;
    (updated.m as { a: number }).a = 3;
    ((await store.get(key))!.m as { a: number }).a = 4;
    ((await store.query({ pk: 'COPY' })).items[0]!.m as { a: number }).a = 5;
    ((await store.batchGet([key]))[0]!.l as number[]).push(6);
    expect(await store.get(key)).toEqual({ ...key, m: { a: 1 }, l: [1], s: { b: 1 } });
  });

  it('compares in conditions as DynamoDB does: maps and sets without order, numbers by value, other types never', async () => {
    const key = { pk: 'CMP', sk: 'C' };
    await store.put({ ...key, m: { a: 1, b: 2 }, l: [1, 2], ns: new Set([1, 2]), n: 3, s: 'b', bin: Buffer.from('b'), z: null });
    const holds = (c: Condition) =>
      store.update(key, { add: { hits: 1 }, if: c }).then(
        () => true,
        (e: unknown) => {
          if (e instanceof ConditionFailedError) return false;
          throw e;
        },
      );
    const cases: [Condition, boolean][] = [
      [{ attr: 'm', op: '=', value: { b: 2, a: 1, c: undefined } }, true],
      [{ attr: 'm', op: '=', value: { a: 1 } }, false],
      [{ attr: 'l', op: '=', value: [1, 2] }, true],
      [{ attr: 'l', op: '=', value: [2, 1] }, false],
      [{ attr: 'ns', op: '=', value: new Set([2, 1]) }, true],
      [{ attr: 'ns', op: '=', value: new Set([1]) }, false],
      [{ attr: 'n', op: '=', value: 3n }, true],
      [{ attr: 'n', op: '=', value: '3' }, false],
      [{ attr: 'n', op: '<>', value: '3' }, true],
      [{ attr: 'n', op: '<', value: 'a' }, false],
      [{ attr: 'n', op: '<=', value: 3 }, true],
      [{ attr: 's', op: '>', value: 'a' }, true],
      [{ attr: 's', op: '>=', value: 'c' }, false],
      [{ attr: 'bin', op: '<', value: Buffer.from('c') }, true],
      [{ attr: 'z', op: '=', value: null }, true],
      [{ attr: 'z', exists: true }, true],
      [{ attr: 'missing', op: '<>', value: null }, true],
      [{ attr: 'missing', op: '>=', value: 0 }, false],
      [{ or: [{ attr: 'missing', exists: true }, { and: [{ itemExists: true }, { attr: 'n', op: '>', value: 2 }] }] }, true],
    ];
    const results: boolean[] = [];
    for (const [c] of cases) results.push(await holds(c));
    expect(results).toEqual(cases.map(([, expected]) => expected));
    expect((await store.get(key))?.hits).toBe(cases.filter(([, expected]) => expected).length);
  });

  it('creates the item on any update, even one that only removes', async () => {
    const key = { pk: 'UPC', sk: 'U' };
    expect(await store.update(key, { remove: ['x'] })).toEqual(key);
    expect(await store.get(key)).toEqual(key);
  });

  it('refuses what DynamoDB refuses, with its ValidationException, and writes nothing', async () => {
    const key = { pk: 'REFUSE', sk: 'R' };
    await store.put({ ...key, n: 1, s: 'a' });
    await refused(store.update({ pk: 'REFUSE#new', sk: 'R' }, { set: { skip: undefined } })); // nothing left to do
    await refused(store.update(key, { set: { n: 2 }, add: { n: 1 } })); // one attribute twice
    await refused(store.update(key, { set: { x: 1 }, remove: ['x'] }));
    await refused(store.update(key, { set: { pk: 'OTHER' } })); // a key attribute
    await refused(store.update(key, { add: { s: 1 } })); // ADD to a string
    await refused(store.update(key, { set: { gsi1pk: 'G', gsi1sk: 5 } })); // index keys are strings
    await refused(store.update(key, { set: { gsi1pk: null } }));
    await refused(store.put({ pk: 'REFUSE#idx', sk: 'R', gsi1pk: '', gsi1sk: 'x' }));
    await refused(store.put({ pk: 'REFUSE#sk', sk: '' }));
    await refused(store.update(key, { set: { x: 1 }, if: { attr: 'n', op: '<', value: true } })); // orders only strings, numbers, bytes
    await refused(store.update(key, { set: { x: 1 }, if: { attr: 'n', op: '=', value: undefined } }));
    await refused(store.update(key, { set: { x: 1 }, if: { and: [] } }));
    await refused(store.query({ pk: 'REFUSE', skBetween: ['b', 'a'] }));
    await refused(store.query({ pk: 'REFUSE', skBeginsWith: '' }));
    await refused(store.query({ pk: 'REFUSE', skBeginsWith: 'R', skBetween: ['a', 'z'] }));
    await refused(store.query({ pk: 'REFUSE', limit: -1 }));
    await refused(store.transact([]));
    await refused(store.transact(Array.from({ length: 101 }, (_, i) => ({ put: { pk: `REFUSE#tx${i}`, sk: 'R' } }))));
    // One item twice (with no condition: DynamoDB Local checks conditions first, and one op at a time).
    await refused(store.transact([{ put: { pk: 'REFUSE#tx', sk: 'R' } }, { delete: { pk: 'REFUSE#tx', sk: 'R' } }]));
    expect(await store.get(key)).toEqual({ ...key, n: 1, s: 'a' });
    for (const pk of ['REFUSE#new', 'REFUSE#idx', 'REFUSE#tx', 'REFUSE#tx0']) expect(await store.get({ pk, sk: 'R' })).toBeUndefined();
  });

  it("refuses keys over DynamoDB's limits (partition 2,048 bytes, sort 1,024, on the table and its indexes), on reads and writes", async () => {
    // Multi-byte characters count by their UTF-8 bytes: 1,024 × "é" is 2,048 bytes.
    const pkMax = 'P'.repeat(2048 - 1) + 'p';
    const skMax = 'é'.repeat(512);
    await store.put({ pk: pkMax, sk: skMax, gsi1pk: 'K'.repeat(2048), gsi1sk: 's'.repeat(1024) });
    expect(await store.get({ pk: pkMax, sk: skMax })).toMatchObject({ pk: pkMax });
    const longPk = 'P'.repeat(2049);
    const longSk = 'é'.repeat(513);
    await refused(store.put({ pk: longPk, sk: 'S' }));
    await refused(store.put({ pk: 'KEYS#1', sk: longSk }));
    await refused(store.put({ pk: 'KEYS#2', sk: 'S', gsi1pk: longPk, gsi1sk: 'x' }));
    await refused(store.put({ pk: 'KEYS#3', sk: 'S', gsi1pk: 'x', gsi1sk: 's'.repeat(1025) }));
    await refused(store.update({ pk: longPk, sk: 'S' }, { set: { n: 1 } }));
    await refused(store.get({ pk: longPk, sk: 'S' }));
    // One key too long refuses the whole batch read: this is what a stranger's 3 kB "Message-ID" did to a mailbox's reading.
    await refused(
      store.batchGet([
        { pk: 'KEYS#ok', sk: 'S' },
        { pk: `SENTMSG#${'word '.repeat(600)}`, sk: 'SENTMSG' },
      ]),
    );
    for (const pk of ['KEYS#1', 'KEYS#2', 'KEYS#3']) expect(await store.get({ pk, sk: 'S' })).toBeUndefined();
  });

  it('refuses an item over 400 KB, counting names as DynamoDB does, on put and on update', async () => {
    const key = { pk: 'SIZE#1', sk: 'S' };
    const room = 400 * 1024 - ('pk'.length + key.pk.length) - ('sk'.length + key.sk.length) - 'big'.length;
    await store.put({ ...key, big: 'x'.repeat(room) });
    const tooLarge = async (p: Promise<unknown>) => {
      const err = await p.then(
        () => undefined,
        (e: unknown) => e,
      );
      // A sentence for the client (413), not a fault: the validation limits should keep items far from this.
      expect(err).toBeInstanceOf(EngineError);
      expect((err as EngineError).code).toBe('TOO_LARGE');
    };
    await tooLarge(store.put({ ...key, big: 'x'.repeat(room + 1) }));
    await tooLarge(store.update(key, { set: { more: 'y' } }));
    expect(Object.keys((await store.get(key))!).sort()).toEqual(['big', 'pk', 'sk']);
  });

  it('refuses values the SDK cannot convert before anything is sent (a plain Error)', async () => {
    const key = { pk: 'CONV', sk: 'C' };
    const unconvertible = async (p: Promise<unknown>, message: RegExp) => {
      const err = await p.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(Error);
      expect(err).not.toBeInstanceOf(EngineError);
      expect((err as Error).message).toMatch(message);
    };
    await unconvertible(store.put({ ...key, at: new Date(0) }), /Unsupported type/);
    await unconvertible(store.put({ ...key, n: Number.NaN }), /NaN is not allowed/);
    await unconvertible(store.put({ ...key, n: 2 ** 60 }), /MAX_SAFE_INTEGER/);
    await unconvertible(store.update(key, { set: { tags: new Set() } }), /non-empty set/);
    await unconvertible(store.update(key, { set: { x: 1 }, if: { attr: 'x', op: '=', value: new Date(0) } }), /Unsupported type/);
    expect(await store.get(key)).toBeUndefined();
  });

  it("refuses a cursor that is not one of this query's as DynamoDB does (unlike an unreadable one, which is core's ValidationError)", async () => {
    await store.batchPut(['a', 'b', 'c'].map((sk) => ({ pk: 'CUR', sk })));
    const page = await store.query({ pk: 'CUR', limit: 1 });
    await refused(store.query({ pk: 'CUR-other', cursor: page.cursor }));
    await refused(store.query({ pk: 'CUR', skBeginsWith: 'c', cursor: page.cursor }));
    await refused(store.query({ index: 'gsi1', pk: 'CUR', cursor: page.cursor }));
    await refused(store.query({ pk: 'CUR', cursor: Buffer.from('{}').toString('base64url') }));
    await expect(store.query({ pk: 'CUR', cursor: '%%%' })).rejects.toBeInstanceOf(ValidationError);
    expect((await store.query({ pk: 'CUR', cursor: page.cursor })).items.map((i) => i.sk)).toEqual(['b', 'c']);
  });

  it('names every operation whose condition failed, and applies nothing when DynamoDB refuses one write', async () => {
    await store.put({ pk: 'TXF#taken', sk: 'T', x: 'text' });
    const err = await store
      .transact([
        { put: { pk: 'TXF#taken', sk: 'T' }, if: { itemExists: false } },
        { put: { pk: 'TXF#new', sk: 'T' } },
        { check: { pk: 'TXF#absent', sk: 'T' }, if: { itemExists: true } },
        { delete: { pk: 'TXF#other', sk: 'T' }, if: { attr: 'n', op: '=', value: 1 } },
      ])
      .catch((e: unknown) => e);
    expect((err as TransactionFailedError).failed).toEqual([0, 2, 3]);
    // Conditions hold, but ADD to a string is refused: the put beside it is not applied either.
    const refusal = await store
      .transact([
        { put: { pk: 'TXF#new', sk: 'T' }, if: { itemExists: false } },
        { update: { pk: 'TXF#taken', sk: 'T' }, change: { add: { x: 1 } } },
      ])
      .catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(Error);
    expect(refusal).not.toBeInstanceOf(EngineError);
    expect(await store.get({ pk: 'TXF#new', sk: 'T' })).toBeUndefined();
    expect(await store.get({ pk: 'TXF#taken', sk: 'T' })).toEqual({ pk: 'TXF#taken', sk: 'T', x: 'text' });
  });

  it('refuses a batch of 25 that names one key twice, and writes the other batches', async () => {
    const items: { pk: string; sk: string; v?: number }[] = Array.from({ length: 30 }, (_, i) => ({
      pk: 'DUP',
      sk: String(i).padStart(2, '0'),
    }));
    items[27] = { ...items[26]!, v: 2 };
    const err = await store.batchPut(items).catch((e: unknown) => e);
    expect((err as Error).name).toBe('ValidationException');
    // The adapter's other batches may still be landing when the refusal arrives.
    await vi.waitFor(async () => expect(await store.count({ pk: 'DUP' })).toBe(25));
    expect(await store.get({ pk: 'DUP', sk: '26' })).toBeUndefined();
  });
});

/**
 * DynamoDB only: the conflict is injected in front of the SDK client, and the
 * retry with one request token is the adapter's own; the MemoryStore has no
 * concurrent writers to conflict with.
 */
describe('DynamoStore on DynamoDB Local, faults', () => {
  const store = dynamo;
  it('tries a transaction cancelled by a conflict again with the same request token, so it applies once', async () => {
    // DynamoDB Local never reports TransactionConflict: two cancellations are injected in front of the real call.
    const faulty = localDynamoClient(endpoint, credentials);
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
      await conflicted.transact([
        { put: { pk: 'CONFLICT#2', sk: 'C' }, if: { itemExists: false } },
        { update: key, change: { add: { n: 1 } } },
      ]);
      expect(tokens).toHaveLength(3);
      expect(new Set(tokens).size).toBe(1);
      expect((await store.get(key))?.n).toBe(1);
      // A condition that fails is not a conflict: it is reported at once, not tried again.
      tokens.length = 0;
      await expect(conflicted.transact([{ put: { pk: 'CONFLICT#2', sk: 'C' }, if: { itemExists: false } }])).rejects.toBeInstanceOf(
        TransactionFailedError,
      );
      expect(tokens).toHaveLength(1);
    } finally {
      faulty.destroy();
    }
  });
});

describe('MemoryStore only', () => {
  it('counts its requests by method, refused ones too, and forgets the counts (not the items) on reset', async () => {
    const store = new MemoryStore();
    await store.put({ pk: 'A', sk: 'A' });
    await store.get({ pk: 'A', sk: 'A' });
    await store.get({ pk: 'B', sk: 'B' });
    await store.batchGet(Array.from({ length: 250 }, (_, i) => ({ pk: `K${i}`, sk: 'K' })));
    await store.update({ pk: 'A', sk: 'A' }, { set: { x: 1 }, if: { itemExists: false } }).catch(() => {});
    expect(store.requests).toEqual({ get: 2, put: 1, update: 1, delete: 0, query: 0, count: 0, transact: 0, batchGet: 1, batchPut: 0 });
    store.reset();
    expect(Object.values(store.requests).every((n) => n === 0)).toBe(true);
    expect(await store.get({ pk: 'A', sk: 'A' })).toEqual({ pk: 'A', sk: 'A' });
    expect(store.requests.get).toBe(1);
  });
});
