/**
 * What one send reads, in one batch: the job, the queue switch, what its
 * kind's planner needs (campaign and lead, run and seed), and the planned
 * mailbox with today's count, its bounce-breaker pair and its domain. The
 * queue message carries the ids these keys are made of, so the whole read
 * is one request; the claim's conditions, not these reads, are what make
 * the send safe (a read that went stale fails the claim).
 */
import type { Deps } from '../deps.ts';
import type { Item, Key } from '../ports/store.ts';
import { utcDay } from '../guardrails/breaker.ts';
import { pairKey } from '../guardrails/breaker.keys.ts';
import { domainKey } from '../domain/keys.ts';
import { mailboxKey } from '../mailbox/keys.ts';
import type { Mailbox } from '../mailbox/entity.ts';
import type { JobRef } from '../ports/queue.ts';
import { dailyCapKey, jobKey, queueSwitchKey } from './keys.ts';

const id = (k: Key) => `${k.pk}\u0000${k.sk}`;

/** Items read in a batch, by key; `asked` tells a missing item from one never asked for. */
export class Reads {
  /** Engine time of the first read: the day whose send count is read (the claim counts in the day it is made). */
  constructor(readonly at: number) {}

  private readonly items = new Map<string, Item>();
  private readonly askedFor = new Set<string>();

  get(key: Key): Item | undefined {
    return this.items.get(id(key));
  }

  /** The item read under this key, through its entity's fromItem. */
  parsed<T>(key: Key, fromItem: (item: Item) => T): T | undefined {
    const item = this.get(key);
    return item && fromItem(item);
  }

  asked(key: Key): boolean {
    return this.askedFor.has(id(key));
  }

  /** Reads these keys again (they may have changed), with any not read yet, in one batch. */
  async again(deps: Pick<Deps, 'store'>, keys: Key[]): Promise<this> {
    for (const k of keys) {
      this.askedFor.delete(id(k));
      this.items.delete(id(k));
    }
    await this.fetch(deps, keys);
    return this;
  }

  /** Reads the keys not read yet, in one batch (none when all were). */
  async fetch(deps: Pick<Deps, 'store'>, keys: Key[]): Promise<void> {
    const fresh = [...new Map(keys.filter((k) => !this.asked(k)).map((k) => [id(k), k])).values()];
    if (!fresh.length) return;
    for (const k of fresh) this.askedFor.add(id(k));
    for (const item of await deps.store.batchGet(fresh)) this.items.set(id(item), item);
  }
}

/**
 * A mailbox's domain never changes (it is fixed when the mailbox is added),
 * so once a process has seen a mailbox, its domain is read in the same batch
 * as the mailbox. Per store, so engines in one process never share it.
 */
const domainOfMailbox = new WeakMap<object, Map<string, string>>();

export function rememberDomain(deps: Pick<Deps, 'store'>, mailbox: Pick<Mailbox, 'id' | 'domainId'>): void {
  let known = domainOfMailbox.get(deps.store);
  if (!known) domainOfMailbox.set(deps.store, (known = new Map()));
  if (known.size > 10_000) known.clear();
  known.set(mailbox.id, mailbox.domainId);
}

/**
 * What deciding on one mailbox reads: the mailbox, its count for the day, its
 * breaker pair, and its domain when known (seen before in this process, or
 * named by the job, which the planner gave the planned mailbox's domain).
 */
export function mailboxReads(
  deps: Pick<Deps, 'store'>,
  mailboxId: string,
  now: number,
  breakerCampaignId: string | undefined,
  domainHint?: string,
): Key[] {
  const domainId = domainOfMailbox.get(deps.store)?.get(mailboxId) ?? domainHint;
  return [
    mailboxKey(mailboxId),
    dailyCapKey(mailboxId, utcDay(now)),
    ...(breakerCampaignId ? [pairKey(breakerCampaignId, mailboxId)] : []),
    ...(domainId ? [domainKey(domainId)] : []),
  ];
}

/** The first batch of a send: the job and everything its ref lets us name before reading it. */
export function firstReads(deps: Pick<Deps, 'store'>, jobId: string, ref: JobRef | undefined, kindReads: Key[], now: number): Key[] {
  return [
    jobKey(jobId),
    queueSwitchKey,
    ...kindReads,
    ...(ref?.mailboxId ? mailboxReads(deps, ref.mailboxId, now, ref.campaignId, ref.domainId) : []),
  ];
}
