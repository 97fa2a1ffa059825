/**
 * The Store port in memory, for the fast unit tier and the benches: the same
 * observable behaviour as the DynamoDB adapter (packages/aws/src/dynamo-store.ts)
 * on its table, held to it by the store's contract tests, which run against
 * both (test/integration/store.test.ts).
 *
 * It keeps items as DynamoDB does, as typed attribute values, and converts
 * them in and out as the adapter's document client does (undefined dropped at
 * any depth, a Buffer read back as a Uint8Array, a Set as a string, number or
 * binary set, numbers exact decimals so ADD 0.1 and 0.2 make 0.3, a number
 * past 2^53 read back as a bigint), so callers never share an object with it.
 *
 * It refuses what DynamoDB refuses, with the same kind of error the adapter
 * lets through: a `ValidationException` (not a core error: the adapter does
 * not translate it) for an empty update, two changes to one attribute, a
 * change to pk or sk, an index key that is not a non-empty string, a
 * key over DynamoDB's size limits (2,048 bytes for a partition key, 1,024
 * for a sort key, on the table and its indexes), a
 * malformed key condition or cursor, a transaction of no or
 * more than 100 operations or naming one item twice, duplicates in one batch
 * of 25; and a plain Error, as the SDK throws before sending, for a value it
 * cannot convert (a Date or other class instance, NaN, an empty Set, a number
 * past Number.MAX_SAFE_INTEGER). An item over 400 KB is an EngineError
 * TOO_LARGE, as the adapter turns DynamoDB's refusal into one.
 *
 * Conditions read the item as it was before the write: a missing attribute
 * equals nothing and orders against nothing (so only `<>` holds on it), maps
 * and sets compare without order, numbers by value; comparing with a value
 * that is not a string, number or binary is refused. Updates create the item
 * (even a REMOVE alone) and ADD starts a missing attribute at 0. Transactions
 * are all or nothing: conditions first (TransactionFailedError naming every
 * operation whose condition failed), then the writes, none applied if any
 * is refused. Queries read sort keys in UTF-8 byte order, serve sparse
 * indexes (only items carrying both of the index's keys), stop a page at the
 * limit or at 1 MB read, and give cursors the adapter could have given.
 *
 * Not modelled: TTL expiry (DynamoDB deletes expired items late anyway),
 * eventually consistent index reads (an index here is read-your-writes),
 * throughput errors, and transaction conflicts with concurrent writers.
 */
import { ConditionFailedError, EngineError, TransactionFailedError } from '../errors.ts';
import type { Comparison, Condition, IndexName, Item, Key, Page, Query, Store, TransactOp, Update } from '../ports/store.ts';
import { decodeCursor, encodeCursor } from '../ports/cursor.ts';

/** What DynamoDB answers a request it refuses. The adapter lets the SDK's exception of this name through untranslated. */
export class ValidationException extends Error {
  override readonly name = 'ValidationException';
}

// ---------------------------------------------------------------------------
// Attribute values, and the document client's conversion to and from them.

type AV =
  | { S: string }
  | { N: string }
  | { B: Uint8Array }
  | { BOOL: boolean }
  | { NULL: true }
  | { L: AV[] }
  | { M: Record<string, AV> }
  | { SS: string[] }
  | { NS: string[] }
  | { BS: Uint8Array[] };

type Stored = Record<string, AV>;

const INDEXES: readonly IndexName[] = ['gsi1', 'gsi2', 'gsi3', 'gsi4'];
const MAX_ITEM_BYTES = 400 * 1024;
const MAX_PARTITION_KEY_BYTES = 2048;
const MAX_SORT_KEY_BYTES = 1024;
const MAX_PAGE_BYTES = 1024 * 1024;

const BINARY_TYPES = new Set([
  'Buffer',
  'DataView',
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
]);

const typeName = (v: unknown): string | undefined => (v as { constructor?: { name?: string } } | null | undefined)?.constructor?.name;

/** What the document client leaves out of maps, lists and sets (removeUndefinedValues). */
const dropped = (v: unknown) => v === undefined || typeof v === 'function';

/** One value, as `marshall` with removeUndefinedValues and without convertClassInstanceToMap converts it. */
function toAttr(v: unknown): AV {
  if (v === null) return { NULL: true };
  if (Array.isArray(v)) return { L: v.filter((x) => !dropped(x)).map(toAttr) };
  const type = typeName(v);
  if (type === 'Set') return toSet(v as Set<unknown>);
  if (type === 'Map') return { M: toMap((v as Map<unknown, unknown>).entries()) };
  if (type === 'Object' || (typeof v === 'object' && !(v as object).constructor)) return { M: toMap(enumerable(v as object)) };
  if (type === 'ArrayBuffer' || type === 'Blob' || type === 'File') {
    throw new Error(`MemoryStore takes binary values as Buffer or typed arrays, not ${type}.`);
  }
  if (type && BINARY_TYPES.has(type)) return { B: bytes(v as ArrayBufferView) };
  if (typeof v === 'boolean' || type === 'Boolean') return { BOOL: Boolean((v as boolean).valueOf()) };
  if (typeof v === 'number' || type === 'Number') return { N: jsNumber(Number(v)) };
  if (typeof v === 'bigint') return { N: canonicalNumber(v.toString()) };
  if (typeof v === 'string' || type === 'String') return { S: String(v) };
  throw new Error(
    `Unsupported type passed: ${String(v)}. Pass options.convertClassInstanceToMap=true to marshall typeof object as map attribute.`,
  );
}

function* enumerable(o: object): Iterable<[string, unknown]> {
  for (const k in o) yield [k, (o as Record<string, unknown>)[k]];
}

function toMap(entries: Iterable<[unknown, unknown]>): Record<string, AV> {
  const m: Record<string, AV> = {};
  for (const [k, v] of entries) {
    if (dropped(v)) continue;
    if (String(k) === '') throw new ValidationException('One or more parameter values were invalid: Empty attribute name');
    m[String(k)] = toAttr(v);
  }
  return m;
}

function toSet(set: Set<unknown>): AV {
  const members = [...set].filter((x) => x !== undefined);
  if (!members.length) throw new Error('Pass a non-empty set, or options.convertEmptyValues=true.');
  const first = members[0];
  let out: AV;
  if (typeof first === 'number') out = { NS: members.map((n) => (typeof n === 'number' ? jsNumber(n) : canonicalNumber(String(n)))) };
  else if (typeof first === 'bigint') out = { NS: members.map((n) => canonicalNumber(String(n))) };
  else if (typeof first === 'string') out = { SS: members.map(String) };
  else if (BINARY_TYPES.has(typeName(first) ?? '')) out = { BS: members.map((b) => bytes(b as ArrayBufferView)) };
  else throw new Error('Only Number Set (NS), Binary Set (BS) or String Set (SS) are allowed.');
  const seen = 'SS' in out ? out.SS : 'NS' in out ? out.NS : (out as { BS: Uint8Array[] }).BS.map((b) => Buffer.from(b).toString('base64'));
  if (new Set(seen).size !== seen.length)
    throw new ValidationException('One or more parameter values were invalid: Input collection contains duplicates');
  return out;
}

const bytes = (v: ArrayBufferView) => new Uint8Array(v.buffer, v.byteOffset, v.byteLength).slice();

/** A JS number as the SDK writes it: it refuses NaN, infinities and unsafe integers before sending. */
function jsNumber(n: number): string {
  if (Number.isNaN(n) || !Number.isFinite(n)) throw new Error(`Special numeric value ${n} is not allowed`);
  if (n > Number.MAX_SAFE_INTEGER)
    throw new Error(`Number ${n} is greater than Number.MAX_SAFE_INTEGER. Use NumberValue from @aws-sdk/lib-dynamodb.`);
  if (n < Number.MIN_SAFE_INTEGER)
    throw new Error(`Number ${n} is lesser than Number.MIN_SAFE_INTEGER. Use NumberValue from @aws-sdk/lib-dynamodb.`);
  return canonicalNumber(String(n));
}

/** A value back to JS, as `unmarshall` does without wrapNumbers: always a fresh object. */
function fromAttr(v: AV): unknown {
  if ('S' in v) return v.S;
  if ('N' in v) return nativeNumber(v.N);
  if ('B' in v) return v.B.slice();
  if ('BOOL' in v) return v.BOOL;
  if ('NULL' in v) return null;
  if ('L' in v) return v.L.map(fromAttr);
  if ('M' in v) return fromMap(v.M);
  if ('SS' in v) return new Set(v.SS);
  if ('NS' in v) return new Set(v.NS.map(nativeNumber));
  return new Set(v.BS.map((b) => b.slice()));
}

function fromMap(m: Record<string, AV>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(m)) out[k] = fromAttr(v);
  return out;
}

const toItem = (s: Stored) => fromMap(s) as Item;

function nativeNumber(s: string): number | bigint {
  const n = Number(s);
  if (n > Number.MAX_SAFE_INTEGER || n < Number.MIN_SAFE_INTEGER) {
    try {
      return BigInt(s);
    } catch {
      throw new Error(`${s} can't be converted to BigInt. Set options.wrapNumbers to get string value.`);
    }
  }
  return n;
}

// ---------------------------------------------------------------------------
// Numbers: DynamoDB's are decimals of up to 38 digits, from 1e-130 to below 1e126.

interface Decimal {
  coef: bigint;
  exp: number;
}

function parseDecimal(s: string): Decimal {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s.trim());
  if (!m || !(m[2] || m[3])) throw new ValidationException('A value provided cannot be converted into a number');
  const frac = m[3] ?? '';
  let coef = BigInt(`${m[1]}${m[2] || '0'}${frac}`);
  let exp = Number(m[4] ?? 0) - frac.length;
  if (coef === 0n) return { coef: 0n, exp: 0 };
  while (coef % 10n === 0n) {
    coef /= 10n;
    exp++;
  }
  return { coef, exp };
}

function formatDecimal({ coef, exp }: Decimal): string {
  const digits = (coef < 0n ? -coef : coef).toString();
  if (coef === 0n) return '0';
  if (coef < 0n) return '-' + formatDecimal({ coef: -coef, exp });
  if (exp >= 0) return digits + '0'.repeat(exp);
  const padded = digits.padStart(-exp + 1, '0');
  return `${padded.slice(0, exp)}.${padded.slice(exp)}`;
}

/** Checks a decimal fits DynamoDB's numbers and writes it the one way (so equal numbers have equal strings). */
function checkedDecimal(d: Decimal): string {
  if (d.coef !== 0n) {
    const digits = (d.coef < 0n ? -d.coef : d.coef).toString().length;
    if (digits > 38) throw new ValidationException('Attempting to store more than 38 significant digits in a Number');
    const magnitude = digits - 1 + d.exp;
    if (magnitude > 125)
      throw new ValidationException('Number overflow. Attempting to store a number with magnitude larger than supported range');
    if (magnitude < -130)
      throw new ValidationException('Number underflow. Attempting to store a number with magnitude smaller than supported range');
  }
  return formatDecimal(d);
}

const canonicalNumber = (s: string) => checkedDecimal(parseDecimal(s));

function aligned(a: string, b: string): [bigint, bigint, number] {
  const x = parseDecimal(a);
  const y = parseDecimal(b);
  const exp = Math.min(x.exp, y.exp);
  return [x.coef * 10n ** BigInt(x.exp - exp), y.coef * 10n ** BigInt(y.exp - exp), exp];
}

function compareNumbers(a: string, b: string): number {
  const [x, y] = aligned(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function addNumbers(a: string, b: string): string {
  const [x, y, exp] = aligned(a, b);
  return checkedDecimal(parseDecimal(formatDecimal({ coef: x + y, exp })));
}

// ---------------------------------------------------------------------------
// Order, equality and size, as DynamoDB reckons them.

/** UTF-8 byte order, which is code point order (JS's own `<` orders UTF-16 units, and puts U+FFFF after an emoji). */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      const fix = (c: number) => (c >= 0xd800 ? (c >= 0xe000 ? c - 0x800 : c + 0x2000) : c);
      return fix(x) - fix(y);
    }
  }
  return a.length - b.length;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** Order of two scalars of one type (S, N or B); undefined when they do not compare. */
function order(a: AV, b: AV): number | undefined {
  if ('S' in a && 'S' in b) return compareUtf8(a.S, b.S);
  if ('N' in a && 'N' in b) return compareNumbers(a.N, b.N);
  if ('B' in a && 'B' in b) return compareBytes(a.B, b.B);
  return undefined;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return compareBytes(a, b) === 0;
}

function sameMembers<T>(a: T[], b: T[], eq: (x: T, y: T) => boolean): boolean {
  return a.length === b.length && a.every((x) => b.some((y) => eq(x, y)));
}

/** DynamoDB's `=`: same type and same value; maps and sets without order, lists in order, numbers by value. */
function equal(a: AV, b: AV): boolean {
  if ('S' in a) return 'S' in b && a.S === b.S;
  if ('N' in a) return 'N' in b && a.N === b.N; // canonical strings
  if ('B' in a) return 'B' in b && sameBytes(a.B, b.B);
  if ('BOOL' in a) return 'BOOL' in b && a.BOOL === b.BOOL;
  if ('NULL' in a) return 'NULL' in b;
  if ('L' in a) return 'L' in b && a.L.length === b.L.length && a.L.every((x, i) => equal(x, b.L[i]!));
  if ('M' in a) {
    if (!('M' in b)) return false;
    const keys = Object.keys(a.M);
    return keys.length === Object.keys(b.M).length && keys.every((k) => k in b.M && equal(a.M[k]!, b.M[k]!));
  }
  if ('SS' in a) return 'SS' in b && sameMembers(a.SS, b.SS, (x, y) => x === y);
  if ('NS' in a) return 'NS' in b && sameMembers(a.NS, b.NS, (x, y) => x === y);
  return 'BS' in b && sameMembers(a.BS, b.BS, sameBytes);
}

const utf8Length = (s: string) => Buffer.byteLength(s, 'utf8');
const numberSize = (n: string) => Math.ceil(n.replace(/[-.]/g, '').replace(/^0+/, '').replace(/0+$/, '').length / 2) + 1;

/** Sizes as DynamoDB documents them: names count, lists and maps cost 3 bytes plus 1 per element. */
function size(v: AV): number {
  if ('S' in v) return utf8Length(v.S);
  if ('N' in v) return numberSize(v.N);
  if ('B' in v) return v.B.byteLength;
  if ('BOOL' in v || 'NULL' in v) return 1;
  if ('L' in v) return v.L.reduce((n, x) => n + 1 + size(x), 3);
  if ('M' in v) return Object.entries(v.M).reduce((n, [k, x]) => n + 1 + utf8Length(k) + size(x), 3);
  if ('SS' in v) return v.SS.reduce((n, s) => n + utf8Length(s), 0);
  if ('NS' in v) return v.NS.reduce((n, s) => n + numberSize(s), 0);
  return v.BS.reduce((n, b) => n + b.byteLength, 0);
}

const itemSize = (item: Stored) => Object.entries(item).reduce((n, [k, v]) => n + utf8Length(k) + size(v), 0);

// ---------------------------------------------------------------------------
// Keys and items, checked as DynamoDB checks them against the table's schema.

const id = (pk: string, sk: string) => `${pk}\u0000${sk}`;
const idOf = (item: Stored) => id(str(item.pk), str(item.sk));
const str = (v: AV | undefined) => (v as { S: string }).S;

const emptyKey = (attr: string) =>
  new ValidationException(
    `One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: ${attr}`,
  );

function checkKeyAttr(attr: string, v: AV | undefined): string {
  if (v === undefined) throw new ValidationException('One of the required keys was not given a value');
  if (!('S' in v)) throw new ValidationException(`One or more parameter values were invalid: Type mismatch for key ${attr} expected: S`);
  if (v.S === '') throw emptyKey(attr);
  checkKeySize(attr, v.S);
  return v.S;
}

/**
 * DynamoDB's key limits: a partition key of at most 2,048 bytes and a sort
 * key of at most 1,024 (UTF-8), on the table and on every index, for reads
 * and writes alike (a query's key condition is not checked: DynamoDB Local
 * answers it with nothing). A key built from what a stranger wrote (a quoted
 * Message-ID) can pass them, and the unit tier must see that refusal too.
 */
function checkKeySize(attr: string, value: string): void {
  const bytes = Buffer.byteLength(value, 'utf8');
  if (attr.endsWith('pk') && bytes > MAX_PARTITION_KEY_BYTES) {
    throw new ValidationException(
      `One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of ${MAX_PARTITION_KEY_BYTES} bytes`,
    );
  }
  if (attr.endsWith('sk') && bytes > MAX_SORT_KEY_BYTES) {
    throw new ValidationException(
      `One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of ${MAX_SORT_KEY_BYTES} bytes`,
    );
  }
}

/** A Key as the adapter sends it ({ pk, sk } only), checked; returns its id. */
function checkKey(key: Key): string {
  const m = toMap([
    ['pk', key?.pk],
    ['sk', key?.sk],
  ]);
  return id(checkKeyAttr('pk', m.pk), checkKeyAttr('sk', m.sk));
}

/** An item as written: table keys present, index keys (when present) non-empty strings, at most 400 KB. */
function checkItem(item: Stored): void {
  checkKeyAttr('pk', item.pk);
  checkKeyAttr('sk', item.sk);
  for (const index of INDEXES) {
    for (const attr of [`${index}pk`, `${index}sk`]) {
      const v = item[attr];
      if (v === undefined) continue;
      if ('NULL' in v) throw new ValidationException('One or more parameter values were invalid: Invalid attribute value type');
      if (!('S' in v)) throw new ValidationException('One or more parameter values were invalid: Type mismatch for Index Key');
      if (v.S === '') {
        throw new ValidationException(
          `One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: ${index}, IndexKey: ${attr}`,
        );
      }
      checkKeySize(attr, v.S);
    }
  }
  // As the DynamoDB adapter answers DynamoDB's own refusal: a sentence for the client, not a fault.
  if (itemSize(item) > MAX_ITEM_BYTES)
    throw new EngineError('TOO_LARGE', 'This record would be larger than the table takes (400 KB an item): shorten its text.');
}

function marshalItem(item: Item): Stored {
  if (item === null || typeof item !== 'object') throw new ValidationException('One of the required keys was not given a value');
  const stored = toMap(enumerable(item));
  checkItem(stored);
  return stored;
}

// ---------------------------------------------------------------------------
// Expressions: checked when the request is made, then applied to the stored item.

function checkName(attr: string): void {
  if (typeof attr !== 'string' || attr === '')
    throw new ValidationException('ExpressionAttributeNames contains invalid value: Empty attribute name');
}

/** A value bound into an expression; the document client drops an undefined one, which DynamoDB then finds missing. */
function boundValue(v: unknown, expression: 'ConditionExpression' | 'UpdateExpression'): AV {
  if (dropped(v)) throw new ValidationException(`Invalid ${expression}: An expression attribute value used in expression is not defined`);
  return toAttr(v);
}

type Predicate = (item: Stored | undefined) => boolean;

function compileCondition(c: Condition, top = true): Predicate {
  if ('itemExists' in c) return (item) => (item !== undefined) === c.itemExists;
  if ('and' in c || 'or' in c) {
    const list = 'and' in c ? c.and : c.or;
    if (!list.length) {
      throw new ValidationException(
        top
          ? 'Invalid ConditionExpression: The expression can not be empty;'
          : 'Invalid ConditionExpression: Syntax error; token: ")", near: "()"',
      );
    }
    const parts = list.map((x) => compileCondition(x, false));
    return 'and' in c ? (item) => parts.every((p) => p(item)) : (item) => parts.some((p) => p(item));
  }
  checkName(c.attr);
  if ('exists' in c) return (item) => (item?.[c.attr] !== undefined) === c.exists;
  const value = boundValue(c.value, 'ConditionExpression');
  const op: Comparison = c.op;
  if (op !== '=' && op !== '<>' && !('S' in value || 'N' in value || 'B' in value)) {
    const type = Object.keys(value)[0];
    throw new ValidationException(
      `Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: ${op}, operand type: ${type}`,
    );
  }
  return (item) => {
    const stored = item?.[c.attr];
    // A missing attribute equals nothing and orders against nothing: only `<>` holds.
    if (stored === undefined) return op === '<>';
    if (op === '=') return equal(stored, value);
    if (op === '<>') return !equal(stored, value);
    const o = order(stored, value);
    if (o === undefined) return false;
    return op === '<' ? o < 0 : op === '<=' ? o <= 0 : op === '>' ? o > 0 : o >= 0;
  };
}

type Change = (key: Key, before: Stored | undefined) => Stored;

function compileUpdate(u: Update): Change {
  const set = Object.entries(u.set ?? {})
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k, boundValue(v, 'UpdateExpression')] as const);
  const add = Object.entries(u.add ?? {}).map(([k, v]) => [k, boundValue(v, 'UpdateExpression')] as const);
  const remove = u.remove ?? [];
  const paths = [...set.map(([k]) => k), ...add.map(([k]) => k), ...remove];
  if (!paths.length) throw new ValidationException('Invalid UpdateExpression: The expression can not be empty;');
  paths.forEach(checkName);
  const seen = new Set<string>();
  for (const p of paths) {
    if (seen.has(p)) {
      throw new ValidationException(
        `Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [${p}], path two: [${p}]`,
      );
    }
    seen.add(p);
  }
  for (const p of ['pk', 'sk']) {
    if (seen.has(p))
      throw new ValidationException(
        `One or more parameter values were invalid: Cannot update attribute ${p}. This attribute is part of the key`,
      );
  }
  for (const [k, v] of add) {
    if (!('N' in v)) {
      throw new ValidationException(
        `Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: ${Object.keys(v)[0]}, typeSet: ALLOWED_FOR_ADD_OPERAND (${k})`,
      );
    }
  }
  return (key, before) => {
    // Values are immutable once converted, so a shallow copy of the item is enough.
    const after: Stored = before ? { ...before } : { pk: { S: key.pk }, sk: { S: key.sk } };
    for (const [k, v] of set) after[k] = v;
    for (const [k, v] of add) {
      const current = after[k];
      if (current !== undefined && !('N' in current))
        throw new ValidationException('An operand in the update expression has an incorrect data type');
      after[k] = { N: addNumbers(current ? current.N : '0', (v as { N: string }).N) };
    }
    for (const k of remove) delete after[k];
    checkItem(after);
    return after;
  };
}

// Cursors are the adapter's own (ports/cursor.ts): the last key read, base64url JSON.

// ---------------------------------------------------------------------------

type Method = 'get' | 'put' | 'update' | 'delete' | 'query' | 'count' | 'transact' | 'batchGet' | 'batchPut';
const METHODS: readonly Method[] = ['get', 'put', 'update', 'delete', 'query', 'count', 'transact', 'batchGet', 'batchPut'];

interface KeyRange {
  index?: IndexName;
  pkAttr: string;
  skAttr: string;
  pk: string;
  inRange: (sk: string) => boolean;
}

export class MemoryStore implements Store {
  private readonly items = new Map<string, Stored>();
  /** Items by partition: the table's (`\u0000pk`) and each index's (`gsi1\u0000gsi1pk`), by item id. */
  private readonly partitions = new Map<string, Map<string, Stored>>();

  /** Calls made, by method (a batch or a transaction counts once, a refused call too). */
  readonly requests: Record<Method, number> = Object.fromEntries(METHODS.map((m) => [m, 0])) as Record<Method, number>;

  /** Sets the request counts back to 0 (the items stay). */
  reset(): void {
    for (const m of METHODS) this.requests[m] = 0;
  }

  async get(key: Key, _opts: { consistent?: boolean } = {}): Promise<Item | undefined> {
    this.requests.get++;
    const item = this.items.get(checkKey(key));
    return item && toItem(item);
  }

  async put(item: Item, opts: { if?: Condition } = {}): Promise<void> {
    this.requests.put++;
    const stored = marshalItem(item);
    const holds = opts.if ? compileCondition(opts.if) : undefined;
    if (holds && !holds(this.items.get(idOf(stored)))) throw new ConditionFailedError();
    this.write(idOf(stored), stored);
  }

  async update(key: Key, change: Update): Promise<Item> {
    this.requests.update++;
    const k = checkKey(key);
    const apply = compileUpdate(change);
    const holds = change.if ? compileCondition(change.if) : undefined;
    const before = this.items.get(k);
    if (holds && !holds(before)) throw new ConditionFailedError();
    const after = apply(key, before);
    this.write(k, after);
    return toItem(after);
  }

  async delete(key: Key, opts: { if?: Condition } = {}): Promise<Item | undefined> {
    this.requests.delete++;
    const k = checkKey(key);
    const holds = opts.if ? compileCondition(opts.if) : undefined;
    const before = this.items.get(k);
    if (holds && !holds(before)) throw new ConditionFailedError();
    this.write(k, undefined);
    return before && toItem(before);
  }

  async query(q: Query): Promise<Page> {
    this.requests.query++;
    // The adapter reads the cursor before it sends anything: one it cannot read is core's ValidationError.
    const start = decodeCursor(q.cursor);
    const range = this.keyRange(q);
    // The adapter asks DynamoDB for one item more than the page, so a full last page ends without a cursor.
    const Limit = q.limit === undefined ? undefined : q.limit + 1;
    if (Limit !== undefined && !(Limit >= 1)) throw new ValidationException('Limit must be greater than or equal to 1');
    let items = this.select(range, q.reverse);
    if (start) {
      const at = this.startPosition(start, range);
      items = items.filter((i) => {
        const o = comparePositions(position(i, range), at);
        return q.reverse ? o < 0 : o > 0;
      });
    }
    // One DynamoDB page: up to Limit items, and no more once 1 MB has been read.
    const read: Stored[] = [];
    let bytes = 0;
    for (const item of items) {
      if (Limit !== undefined && read.length >= Limit) break;
      read.push(item);
      bytes += itemSize(item);
      if (bytes >= MAX_PAGE_BYTES) break;
    }
    const lastEvaluated = read.length < items.length ? read[read.length - 1] : undefined;
    const out = read.map(toItem);
    // From here on, the adapter's own logic.
    if (q.limit !== undefined && out.length > q.limit) {
      const last = out[q.limit - 1]!;
      const key: Record<string, unknown> = { pk: last.pk, sk: last.sk };
      if (q.index) Object.assign(key, { [range.pkAttr]: last[range.pkAttr], [range.skAttr]: last[range.skAttr] });
      return { items: out.slice(0, q.limit), cursor: encodeCursor(key) };
    }
    return { items: out, cursor: encodeCursor(lastEvaluated && keyOf(lastEvaluated, range)) };
  }

  async count(q: Omit<Query, 'limit' | 'cursor'>): Promise<number> {
    this.requests.count++;
    return this.select(this.keyRange(q)).length;
  }

  async transact(ops: TransactOp[]): Promise<void> {
    this.requests.transact++;
    if (!ops.length)
      throw new ValidationException(
        "1 validation error detected: Value [] at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1",
      );
    if (ops.length > 100)
      throw new ValidationException(
        "1 validation error detected: Value at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100",
      );
    // The request as a whole is checked first, as DynamoDB does.
    const planned = ops.map((op) => {
      if ('put' in op) {
        const stored = marshalItem(op.put);
        return { id: idOf(stored), holds: op.if && compileCondition(op.if), write: () => stored as Stored | undefined };
      }
      if ('update' in op) {
        const k = checkKey(op.update);
        const apply = compileUpdate(op.change);
        const holds = op.change.if && compileCondition(op.change.if);
        return { id: k, holds, write: (before: Stored | undefined) => apply(op.update, before) as Stored | undefined };
      }
      if ('delete' in op) return { id: checkKey(op.delete), holds: op.if && compileCondition(op.if), write: () => undefined };
      return { id: checkKey(op.check), holds: compileCondition(op.if), write: null };
    });
    if (new Set(planned.map((p) => p.id)).size !== planned.length) {
      throw new ValidationException('Transaction request cannot include multiple operations on one item');
    }
    const failed = planned.flatMap((p, i) => (p.holds && !p.holds(this.items.get(p.id)) ? [i] : []));
    if (failed.length) throw new TransactionFailedError(failed);
    // Every write is worked out before any is applied: one that is refused leaves the table as it was.
    const writes = planned.flatMap((p) => (p.write ? [[p.id, p.write(this.items.get(p.id))] as const] : []));
    for (const [k, after] of writes) this.write(k, after);
  }

  async batchGet(keys: Key[]): Promise<Item[]> {
    this.requests.batchGet++;
    // The adapter asks for each key once; DynamoDB answers in no particular order (here: the order asked).
    const ids = [...new Set(keys.map(checkKey))];
    return ids.flatMap((k) => {
      const item = this.items.get(k);
      return item ? [toItem(item)] : [];
    });
  }

  async batchPut(items: Item[]): Promise<void> {
    this.requests.batchPut++;
    // The adapter writes batches of 25, several at once: a refused batch writes none of its items, the others are written.
    let refused: unknown;
    for (let i = 0; i < items.length; i += 25) {
      try {
        const batch = items.slice(i, i + 25).map((item) => marshalItem(item));
        if (new Set(batch.map(idOf)).size !== batch.length) throw new ValidationException('Provided list of item keys contains duplicates');
        for (const stored of batch) this.write(idOf(stored), stored);
      } catch (err) {
        refused ??= err;
      }
    }
    if (refused) throw refused;
  }

  // -------------------------------------------------------------------------

  private write(k: string, after: Stored | undefined): void {
    const before = this.items.get(k);
    if (before) for (const p of partitionsOf(before)) this.partitions.get(p)?.delete(k);
    if (!after) {
      this.items.delete(k);
      return;
    }
    this.items.set(k, after);
    for (const p of partitionsOf(after)) {
      let members = this.partitions.get(p);
      if (!members) this.partitions.set(p, (members = new Map()));
      members.set(k, after);
    }
  }

  /** The key condition, checked as DynamoDB checks it. */
  private keyRange(q: Omit<Query, 'limit' | 'cursor'>): KeyRange {
    const pkAttr = q.index ? `${q.index}pk` : 'pk';
    const skAttr = q.index ? `${q.index}sk` : 'sk';
    if (q.index !== undefined && !INDEXES.includes(q.index)) throw new ValidationException('The table does not have the specified index');
    if (typeof q.pk !== 'string')
      throw new ValidationException('One or more parameter values were invalid: Condition parameter type does not match schema type');
    if (q.pk === '') throw emptyKey(pkAttr);
    if (q.skBeginsWith !== undefined && q.skBetween)
      throw new ValidationException('KeyConditionExpressions must only contain one condition per key');
    if (q.skBeginsWith !== undefined) {
      const prefix = q.skBeginsWith;
      if (prefix === '') throw emptyKey(skAttr);
      return { index: q.index, pkAttr, skAttr, pk: q.pk, inRange: (sk) => sk.startsWith(prefix) };
    }
    if (q.skBetween) {
      const [lo, hi] = q.skBetween;
      if (lo === '' || hi === '') throw emptyKey(skAttr);
      if (compareUtf8(lo, hi) > 0) {
        throw new ValidationException(
          `Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {S:${lo}}, upper bound operand: AttributeValue: {S:${hi}}`,
        );
      }
      return { index: q.index, pkAttr, skAttr, pk: q.pk, inRange: (sk) => compareUtf8(sk, lo) >= 0 && compareUtf8(sk, hi) <= 0 };
    }
    return { index: q.index, pkAttr, skAttr, pk: q.pk, inRange: () => true };
  }

  /** The items a key condition selects, in the order DynamoDB reads them. */
  private select(range: KeyRange, reverse = false): Stored[] {
    const members = this.partitions.get(`${range.index ?? ''}\u0000${range.pk}`);
    if (!members) return [];
    const out = [...members.values()].filter((item) => range.inRange(str(item[range.skAttr])));
    out.sort((a, b) => comparePositions(position(a, range), position(b, range)));
    return reverse ? out.reverse() : out;
  }

  /** Where a cursor (DynamoDB's ExclusiveStartKey) stands, refused unless it is a key of this query's range. */
  private startPosition(start: Record<string, unknown>, range: KeyRange): string[] {
    const attrs = range.index ? ['pk', 'sk', range.pkAttr, range.skAttr] : ['pk', 'sk'];
    const given = Object.keys(start);
    if (given.length !== attrs.length || !attrs.every((a) => given.includes(a)))
      throw new ValidationException('The provided starting key is invalid');
    for (const a of attrs) {
      const v = start[a];
      if (typeof v !== 'string') throw new ValidationException('The provided starting key is invalid: Type mismatch for attribute');
      if (v === '') throw new ValidationException(`The provided starting key is invalid: ${emptyKey(a).message}`);
    }
    if (start[range.pkAttr] !== range.pk || !range.inRange(start[range.skAttr] as string)) {
      throw new ValidationException('The provided starting key does not match the range key predicate');
    }
    const s = start as Record<string, string>;
    return range.index ? [s[range.skAttr]!, s.pk!, s.sk!] : [s.sk!];
  }
}

/** The partitions an item is in: its table partition, and each index whose two key attributes it has. */
function partitionsOf(item: Stored): string[] {
  const out = [`\u0000${str(item.pk)}`];
  for (const index of INDEXES) {
    const pk = item[`${index}pk`];
    const sk = item[`${index}sk`];
    if (pk && sk && 'S' in pk && 'S' in sk) out.push(`${index}\u0000${pk.S}`);
  }
  return out;
}

/** An item's place in a query's order: its sort key, and on an index its table key after (ties have some order in DynamoDB too). */
const position = (item: Stored, range: KeyRange): string[] =>
  range.index ? [str(item[range.skAttr]), str(item.pk), str(item.sk)] : [str(item.sk)];

function comparePositions(a: string[], b: string[]): number {
  for (let i = 0; i < a.length; i++) {
    const o = compareUtf8(a[i]!, b[i]!);
    if (o) return o;
  }
  return 0;
}

/** DynamoDB's LastEvaluatedKey for an item: the table key, and the index key on an index. */
function keyOf(item: Stored, range: KeyRange): Record<string, unknown> {
  const key: Record<string, unknown> = { pk: str(item.pk), sk: str(item.sk) };
  if (range.index) Object.assign(key, { [range.pkAttr]: str(item[range.pkAttr]), [range.skAttr]: str(item[range.skAttr]) });
  return key;
}
