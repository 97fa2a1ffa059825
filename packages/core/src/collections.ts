import { isStorageAttribute, type Item, type Query, type StorageAttribute, type Store } from './ports/store.ts';

/** Every item of a query, page by page. For the small install-wide collections only (domains, mailboxes, campaigns). */
export async function queryAll(store: Store, q: Omit<Query, 'cursor'>): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.query({ ...q, cursor });
    items.push(...page.items);
    cursor = page.cursor;
  } while (cursor);
  return items;
}

/** The attributes {@link publicFields} drops, as a type: keys, index keys, sealed secrets, and those named. */
type Storage<H extends string> = StorageAttribute | `sealed${string}` | H;
/**
 * An item without its storage attributes. Keyed by remapping (not `Omit`), so a loose row's named fields
 * survive beside its index signature and a view function's answer is checked field by field against its view.
 */
export type PublicFields<T, H extends string = never> = { [K in keyof T as K extends Storage<H> ? never : K]: T[K] };

/** Drops the storage attributes (keys, index keys, sealed secrets) from an item before it leaves core. */
export function publicFields<T extends Record<string, unknown>, H extends string = never>(
  item: T,
  hidden: readonly H[] = [],
): PublicFields<T, H> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(item)) {
    if (isStorageAttribute(k) || k.startsWith('sealed') || (hidden as readonly string[]).includes(k)) continue;
    out[k] = v;
  }
  return out as PublicFields<T, H>;
}

/** Runs `work` on every item, at most `concurrency` at once (slow servers must not make a tick outlast its Lambda). */
export async function eachLimited<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await work(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/**
 * The first `limit` items, in sort-key order, of a collection spread over
 * several partitions (sharded indexes): each partition is read up to
 * `limit` (or `perShard`, when a fair share will do) at once and the pages are merged. Sort keys must be comparable
 * across partitions (they are time keys).
 */
export async function queryShards(
  store: Store,
  shards: Pick<Query, 'index' | 'pk'>[],
  q: Omit<Query, 'index' | 'pk' | 'cursor' | 'reverse'> & { limit: number; perShard?: number },
): Promise<Item[]> {
  const { perShard, ...query } = q;
  const pages = await Promise.all(shards.map((s) => store.query({ ...s, ...query, limit: perShard ?? q.limit })));
  const sortKey = (i: Item) => String(i[shards[0]?.index ? `${shards[0].index}sk` : 'sk'] ?? '');
  return pages
    .flatMap((p) => p.items)
    .sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0))
    .slice(0, q.limit);
}
