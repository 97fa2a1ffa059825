import { randomUUID } from 'node:crypto';
import { DynamoDBClient, TransactionCanceledException, ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Condition, Item, Key, Page, Query, Store, TransactOp, Update } from '@outbound/core/ports/store';
import { ConditionFailedError, EngineError, TransactionFailedError } from '@outbound/core/errors';
import { decodeCursor, encodeCursor } from '@outbound/core/ports/cursor';

/** Collects attribute names and values so expressions never embed user data. */
class Expr {
  names: Record<string, string> = {};
  values: Record<string, unknown> = {};
  private n = 0;

  /** Attribute names are always top-level names, never paths: a dot is part of the name. */
  name(attr: string): string {
    const existing = Object.entries(this.names).find(([, v]) => v === attr)?.[0];
    if (existing) return existing;
    const alias = `#n${this.n++}`;
    this.names[alias] = attr;
    return alias;
  }

  value(v: unknown): string {
    const alias = `:v${this.n++}`;
    this.values[alias] = v;
    return alias;
  }

  condition(c: Condition): string {
    if ('itemExists' in c) return `${c.itemExists ? 'attribute_exists' : 'attribute_not_exists'}(${this.name('pk')})`;
    if ('and' in c) return c.and.map((x) => `(${this.condition(x)})`).join(' AND ');
    if ('or' in c) return c.or.map((x) => `(${this.condition(x)})`).join(' OR ');
    if ('exists' in c) return `${c.exists ? 'attribute_exists' : 'attribute_not_exists'}(${this.name(c.attr)})`;
    return `${this.name(c.attr)} ${c.op} ${this.value(c.value)}`;
  }

  update(u: Update): string {
    const parts: string[] = [];
    const set = Object.entries(u.set ?? {}).filter(([, v]) => v !== undefined);
    if (set.length) parts.push('SET ' + set.map(([k, v]) => `${this.name(k)} = ${this.value(v)}`).join(', '));
    const add = Object.entries(u.add ?? {});
    if (add.length) parts.push('ADD ' + add.map(([k, v]) => `${this.name(k)} ${this.value(v)}`).join(', '));
    if (u.remove?.length) parts.push('REMOVE ' + u.remove.map((k) => this.name(k)).join(', '));
    return parts.join(' ');
  }

  /** The key condition of a query on the table or one of its indexes. */
  keyCondition(q: Omit<Query, 'limit' | 'cursor'>) {
    const pkAttr = q.index ? `${q.index}pk` : 'pk';
    const skAttr = q.index ? `${q.index}sk` : 'sk';
    let KeyConditionExpression = `${this.name(pkAttr)} = ${this.value(q.pk)}`;
    if (q.skBeginsWith !== undefined) KeyConditionExpression += ` AND begins_with(${this.name(skAttr)}, ${this.value(q.skBeginsWith)})`;
    if (q.skBetween) {
      KeyConditionExpression += ` AND ${this.name(skAttr)} BETWEEN ${this.value(q.skBetween[0])} AND ${this.value(q.skBetween[1])}`;
    }
    return { pkAttr, skAttr, KeyConditionExpression };
  }

  /** The Names/Values parameters, omitted when empty (DynamoDB refuses empty maps). */
  params(): { ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> } {
    return {
      ...(Object.keys(this.names).length ? { ExpressionAttributeNames: this.names } : {}),
      ...(Object.keys(this.values).length ? { ExpressionAttributeValues: this.values } : {}),
    };
  }
}

/**
 * The Store port over one DynamoDB table, through lib-dynamodb. The same code
 * runs against AWS and against DynamoDB Local; only the client's endpoint differs.
 */
export class DynamoStore implements Store {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    private readonly table: string,
  ) {
    this.doc = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    });
  }

  async get(key: Key, opts: { consistent?: boolean } = {}): Promise<Item | undefined> {
    const out = await this.doc.send(
      new GetCommand({ TableName: this.table, Key: { pk: key.pk, sk: key.sk }, ConsistentRead: opts.consistent ?? true }),
    );
    return out.Item as Item | undefined;
  }

  async put(item: Item, opts: { if?: Condition } = {}): Promise<void> {
    const e = new Expr();
    const ConditionExpression = opts.if ? e.condition(opts.if) : undefined;
    await this.guard(() => this.doc.send(new PutCommand({ TableName: this.table, Item: item, ConditionExpression, ...e.params() })));
  }

  async update(key: Key, change: Update): Promise<Item> {
    const e = new Expr();
    const UpdateExpression = e.update(change);
    const ConditionExpression = change.if ? e.condition(change.if) : undefined;
    const out = await this.guard(() =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: key.pk, sk: key.sk },
          UpdateExpression,
          ConditionExpression,
          ReturnValues: 'ALL_NEW',
          ...e.params(),
        }),
      ),
    );
    return out.Attributes as Item;
  }

  async delete(key: Key, opts: { if?: Condition } = {}): Promise<Item | undefined> {
    const e = new Expr();
    const ConditionExpression = opts.if ? e.condition(opts.if) : undefined;
    const out = await this.guard(() =>
      this.doc.send(
        new DeleteCommand({
          TableName: this.table,
          Key: { pk: key.pk, sk: key.sk },
          ConditionExpression,
          ReturnValues: 'ALL_OLD',
          ...e.params(),
        }),
      ),
    );
    return out.Attributes as Item | undefined;
  }

  async query(q: Query): Promise<Page> {
    const e = new Expr();
    const { pkAttr, skAttr, KeyConditionExpression } = e.keyCondition(q);
    // One item more than asked: a full last page then ends with no cursor, instead of an empty extra page.
    const out = await this.doc.send(
      new QueryCommand({
        TableName: this.table,
        IndexName: q.index,
        KeyConditionExpression,
        Limit: q.limit === undefined ? undefined : q.limit + 1,
        ExclusiveStartKey: decodeCursor(q.cursor),
        ScanIndexForward: !q.reverse,
        ...e.params(),
      }),
    );
    const items = (out.Items ?? []) as Item[];
    if (q.limit !== undefined && items.length > q.limit) {
      const last = items[q.limit - 1]!;
      const key: Record<string, unknown> = { pk: last.pk, sk: last.sk };
      if (q.index) Object.assign(key, { [pkAttr]: last[pkAttr], [skAttr]: last[skAttr] });
      return { items: items.slice(0, q.limit), cursor: encodeCursor(key) };
    }
    return { items, cursor: encodeCursor(out.LastEvaluatedKey) };
  }

  async count(q: Omit<Query, 'limit' | 'cursor'>): Promise<number> {
    const e = new Expr();
    const { KeyConditionExpression } = e.keyCondition(q);
    let total = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.doc.send(
        new QueryCommand({
          TableName: this.table,
          IndexName: q.index,
          KeyConditionExpression,
          Select: 'COUNT',
          ExclusiveStartKey: start,
          ...e.params(),
        }),
      );
      total += out.Count ?? 0;
      start = out.LastEvaluatedKey;
    } while (start);
    return total;
  }

  async transact(ops: TransactOp[]): Promise<void> {
    const TransactItems = ops.map((op) => {
      const e = new Expr();
      if ('put' in op) {
        const ConditionExpression = op.if ? e.condition(op.if) : undefined;
        return { Put: { TableName: this.table, Item: op.put, ConditionExpression, ...e.params() } };
      }
      if ('update' in op) {
        const UpdateExpression = e.update(op.change);
        const ConditionExpression = op.change.if ? e.condition(op.change.if) : undefined;
        return {
          Update: {
            TableName: this.table,
            Key: { pk: op.update.pk, sk: op.update.sk },
            UpdateExpression,
            ConditionExpression,
            ...e.params(),
          },
        };
      }
      if ('delete' in op) {
        const ConditionExpression = op.if ? e.condition(op.if) : undefined;
        return { Delete: { TableName: this.table, Key: { pk: op.delete.pk, sk: op.delete.sk }, ConditionExpression, ...e.params() } };
      }
      const ConditionExpression = e.condition(op.if);
      return { ConditionCheck: { TableName: this.table, Key: { pk: op.check.pk, sk: op.check.sk }, ConditionExpression, ...e.params() } };
    });
    // One token for every try: DynamoDB applies a retried transaction at most once.
    const ClientRequestToken = randomUUID();
    for (let attempt = 0; ; attempt++) {
      try {
        await this.doc.send(new TransactWriteCommand({ TransactItems, ClientRequestToken }));
        return;
      } catch (err) {
        const name = (err as Error)?.name;
        if (err instanceof TransactionCanceledException || name === 'TransactionCanceledException') {
          const reasons = (err as TransactionCanceledException).CancellationReasons ?? [];
          const failed = reasons.flatMap((r, i) => (r.Code === 'ConditionalCheckFailed' ? [i] : []));
          if (failed.length) throw new TransactionFailedError(failed, { cause: err });
          // Cancelled only because another transaction touched one of the items (a shared counter):
          // nothing was applied, so trying again is safe. The SDK does not retry these itself.
          const conflict = reasons.some((r) => r.Code === 'TransactionConflict');
          if (conflict && attempt < 10) {
            await new Promise((r) => setTimeout(r, Math.min(1000, 10 * 2 ** attempt) * (0.5 + Math.random())));
            continue;
          }
        }
        if (name === 'TransactionInProgressException' && attempt < 10) {
          await new Promise((r) => setTimeout(r, 50 * (attempt + 1)));
          continue;
        }
        throw err;
      }
    }
  }

  async batchGet(keys: Key[]): Promise<Item[]> {
    const unique = [...new Map(keys.map((k) => [`${k.pk}\u0000${k.sk}`, { pk: k.pk, sk: k.sk }])).values()];
    const chunks: Record<string, unknown>[][] = [];
    for (let i = 0; i < unique.length; i += 100) chunks.push(unique.slice(i, i + 100));
    const found: Item[] = [];
    // Several requests at once: a 50,000-row import checks 50,000 addresses.
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(8, chunks.length) }, async () => {
        while (next < chunks.length) found.push(...(await this.readBatch(chunks[next++]!)));
      }),
    );
    return found;
  }

  private async readBatch(keys: Record<string, unknown>[]): Promise<Item[]> {
    const found: Item[] = [];
    let pending = keys;
    for (let attempt = 0; pending.length; attempt++) {
      if (attempt > 8) throw new Error('DynamoDB kept refusing a batch of reads.');
      if (attempt) await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
      const out = await this.doc.send(new BatchGetCommand({ RequestItems: { [this.table]: { Keys: pending, ConsistentRead: true } } }));
      found.push(...((out.Responses?.[this.table] ?? []) as Item[]));
      pending = (out.UnprocessedKeys?.[this.table]?.Keys ?? []) as Record<string, unknown>[];
    }
    return found;
  }

  async batchPut(items: Item[]): Promise<void> {
    const batches: Item[][] = [];
    for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
    // A few batches at a time: DynamoDB spreads them, and one slow batch does not hold the rest.
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(8, batches.length) }, async () => {
        while (next < batches.length) await this.writeBatch(batches[next++]!);
      }),
    );
  }

  private async writeBatch(batch: Item[]): Promise<void> {
    let pending: Record<string, unknown>[] = batch.map((Item) => ({ PutRequest: { Item } }));
    // Unprocessed items are retried with back-off: throttling must not drop rows.
    for (let attempt = 0; pending.length; attempt++) {
      if (attempt > 8) throw new Error('DynamoDB kept refusing a batch of writes.');
      if (attempt) await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
      const out = await this.guard(() => this.doc.send(new BatchWriteCommand({ RequestItems: { [this.table]: pending as never } })));
      pending = (out.UnprocessedItems?.[this.table] ?? []) as Record<string, unknown>[];
    }
  }

  /** Turns the SDK's conditional-check failure, and an item over the table's size, into core's errors. */
  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException || (err as Error)?.name === 'ConditionalCheckFailedException') {
        throw new ConditionFailedError(undefined, { cause: err });
      }
      // The validation limits keep items far under 400 KB; should one still get there, the client gets a sentence, not a fault.
      if ((err as Error)?.name === 'ValidationException' && /item size/i.test((err as Error).message)) {
        throw new EngineError('TOO_LARGE', 'This record would be larger than the table takes (400 KB an item): shorten its text.');
      }
      throw err;
    }
  }
}
