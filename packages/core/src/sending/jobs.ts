import type { Deps } from '../deps.ts';
import { ConditionFailedError } from '../errors.ts';
import type { Condition, Item, Key, TransactOp, Update } from '../ports/store.ts';
import {
  campaignJobs,
  claimedIndex,
  dueIndex,
  jobId,
  jobKey,
  jobKeysOfLead,
  queueCounterKey,
  stateCounter,
  UNCONFIRMED,
  withoutClaimedIndex,
  withoutDueIndex,
} from './keys.ts';
import { fromItem, keyedFromItem, toItem, type Job, type JobState } from './job.entity.ts';
import { dueTime, type SendWindow } from './due.ts';

export type { Job, JobState } from './job.entity.ts';

const INDEXED = new Set<JobState>(['SCHEDULED', 'QUEUED']);

export interface NewJob {
  leadId: string;
  campaignId: string;
  step: number;
  dueAt: number;
  mailboxId?: string;
  domainId?: string;
  /** The lead's sending window: the job is due at its next opening from dueAt. */
  open?: SendWindow;
}

/**
 * The one job factory: every kind of job (a campaign step, a placement
 * probe, the kinds to come) is built here, with the due index and the
 * collection it belongs to (a campaign's jobs, a run's probes: jobCollectionIndex).
 */
export interface JobSpec {
  id: string;
  /** The job kind's name (sending/job-kind.ts); campaign steps carry none, as they always have. */
  kind?: string;
  /** The collection the job is listed in (jobCollectionIndex). */
  group: string;
  dueAt: number;
  mailboxId?: string;
  /** The planned mailbox's domain, so the send reads it in its first batch. */
  domainId?: string;
  /** What the kind's planner reads (lead and campaign, run and seed, ...). */
  fields: Record<string, unknown>;
  /** The window the email must start in (dueTime). */
  open?: SendWindow;
}

export function newJob(spec: JobSpec, now: number): Item {
  const job: Job = {
    id: spec.id,
    ...(spec.kind ? { kind: spec.kind } : {}),
    ...spec.fields,
    mailboxId: spec.mailboxId,
    ...(spec.domainId ? { domainId: spec.domainId } : {}),
    dueAt: dueTime(spec.dueAt, now, spec.open),
    state: 'SCHEDULED',
    attempts: 0,
    createdAt: new Date(now).toISOString(),
  };
  return toItem(job, spec.group);
}

/** A campaign step for one lead: keyed by lead and step, so planning it twice writes the same key. */
export function jobItem(j: NewJob, now: number): Item {
  return newJob(
    {
      id: jobId(j.leadId, j.step),
      group: campaignJobs(j.campaignId),
      dueAt: j.dueAt,
      open: j.open,
      mailboxId: j.mailboxId,
      domainId: j.domainId,
      fields: { leadId: j.leadId, campaignId: j.campaignId, step: j.step },
    },
    now,
  );
}

/** The writes that create a job and count it, for a caller's transaction. Refused if the job exists. */
export function createJobOps(j: NewJob | Item, now: number): TransactOp[] {
  const item = 'pk' in j ? j : jobItem(j, now);
  return [
    { put: item, if: { itemExists: false } },
    { update: queueCounterKey(fromItem(item).id), change: { add: { [stateCounter('SCHEDULED')]: 1 } } },
  ];
}

/** Creates one job unless it exists; returns whether it did. */
export async function createJob(deps: Pick<Deps, 'store'>, j: NewJob, now: number): Promise<boolean> {
  try {
    await deps.store.transact(createJobOps(j, now));
    return true;
  } catch (err) {
    if (err instanceof ConditionFailedError) return false;
    throw err;
  }
}

/** What a move writes besides the state: a new due time, any other job fields, fields it drops, and the wall time of a claim. */
export interface JobChange {
  /** The due time only changes through `due` (dueTime): never in `set`. */
  set?: Record<string, unknown> & { dueAt?: never };
  /**
   * Due again at `at` (engine ms), never before `now`, and inside `open` when the lead has a window. `open` is
   * always said: the lead's window, undefined for a job without one, or CHECKED_BEFORE_CLAIM where it is not read.
   */
  due?: { at: number; now: number; open: SendWindow | undefined };
  remove?: string[];
  wallNow?: number;
}

/**
 * The writes that move a job from its current state, keeping the state
 * counters and the indexes right; conditioned on the state it had, so two
 * writers never both move it.
 */
export function moveOps(job: Job, to: JobState, change: JobChange = {}, also: Condition[] = []): TransactOp[] {
  const from = job.state;
  const dueAt = change.due ? dueTime(change.due.at, change.due.now, change.due.open) : job.dueAt;
  const set: Record<string, unknown> = { state: to, ...change.set, ...(change.due ? { dueAt } : {}) };
  const remove = [...(change.remove ?? [])];
  if (INDEXED.has(to)) Object.assign(set, dueIndex(job.id, dueAt));
  else remove.push(...withoutDueIndex());
  if (to === 'CLAIMED') Object.assign(set, claimedIndex(job.id, change.wallNow ?? Date.now()));
  else remove.push(...withoutClaimedIndex());
  const update: Update = { set, remove, if: { and: [{ attr: 'state', op: '=', value: from }, ...also] } };
  const ops: TransactOp[] = [{ update: jobKey(job.id), change: update }];
  if (from !== to) ops.push({ update: queueCounterKey(job.id), change: { add: { [stateCounter(from)]: -1, [stateCounter(to)]: 1 } } });
  return ops;
}

/** Counts a job taken as sent without the server's answer (it is counted SENT by its move too); fold it with that move's counter. */
export const countUnconfirmedOp = (id: string): TransactOp => ({
  update: queueCounterKey(id),
  change: { add: { [stateCounter(UNCONFIRMED)]: 1 } },
});

/** What a job taken as sent without the server's answer carries: the flag and the reason, shown with the job. */
const UNCONFIRMED_FIELDS = { unconfirmed: true, lastError: 'outcome unknown: taken as sent (no Sent folder could say), never resent' };

/** The writes that make a claimed job SENT, and count it as unconfirmed when its outcome is unknown. */
export function sentJobOps(job: Job, set: Record<string, unknown>, unconfirmed: boolean): TransactOp[] {
  return [
    ...moveOps(job, 'SENT', { set: { ...set, ...(unconfirmed ? UNCONFIRMED_FIELDS : {}) }, remove: ['aiBody'] }),
    ...(unconfirmed ? [countUnconfirmedOp(job.id)] : []),
  ];
}

/** Moves a job; false when it had already moved (another instance, a redelivery). */
export async function move(
  deps: Pick<Deps, 'store'>,
  job: Job,
  to: JobState,
  change: JobChange = {},
  extra: TransactOp[] = [],
  also: Condition[] = [],
): Promise<boolean> {
  try {
    await deps.store.transact([...moveOps(job, to, change, also), ...extra]);
    return true;
  } catch (err) {
    if (err instanceof ConditionFailedError) return false;
    throw err;
  }
}

/** A job as stored, typed, with its key. */
export async function getJob(deps: Pick<Deps, 'store'>, id: string): Promise<(Job & Key) | undefined> {
  const item = await deps.store.get(jobKey(id));
  return item && keyedFromItem(item);
}

/**
 * DynamoDB refuses two operations on one item in a transaction; counter
 * updates (ADD only, no condition) on the same key are folded into one.
 */
export function foldCounters(ops: TransactOp[]): TransactOp[] {
  const out: TransactOp[] = [];
  const counters = new Map<string, Record<string, number>>();
  for (const op of ops) {
    if ('update' in op && op.change.add && !op.change.set && !op.change.remove && !op.change.if) {
      const k = `${op.update.pk}\u0000${op.update.sk}`;
      const add = counters.get(k);
      if (add) {
        for (const [attr, n] of Object.entries(op.change.add)) add[attr] = (add[attr] ?? 0) + n;
        continue;
      }
      const fresh = { ...op.change.add };
      counters.set(k, fresh);
      out.push({ update: op.update, change: { add: fresh } });
    } else out.push(op);
  }
  return out;
}

/** Jobs written together in one transaction (each with its own condition; the counters fold into one update per shard). */
const GROUPED = 40;

/**
 * Applies the writes of many jobs (each group: one job's conditional write
 * and its counter) in few transactions, GROUPED jobs to a request. A
 * transaction refused because one job's condition failed is applied job by
 * job instead, so the others still go. Returns, per group, whether it was
 * applied (false: its condition failed, another writer was first).
 */
export async function applyGroups(deps: Pick<Deps, 'store'>, groups: TransactOp[][]): Promise<boolean[]> {
  const applied: boolean[] = new Array(groups.length).fill(false);
  const one = async (i: number) => {
    try {
      await deps.store.transact(groups[i]!);
      applied[i] = true;
    } catch (err) {
      if (!(err instanceof ConditionFailedError)) throw err;
    }
  };
  for (let start = 0; start < groups.length; start += GROUPED) {
    const chunk = groups.slice(start, start + GROUPED);
    if (chunk.length === 1) {
      await one(start);
      continue;
    }
    try {
      await deps.store.transact(foldCounters(chunk.flat()));
      chunk.forEach((_, j) => (applied[start + j] = true));
    } catch (err) {
      if (!(err instanceof ConditionFailedError)) throw err;
      for (let j = 0; j < chunk.length; j++) await one(start + j);
    }
  }
  return applied;
}

/** Jobs not yet started: a stop or a hold may still change them. */
const OPEN = new Set<JobState>(['SCHEDULED', 'QUEUED', 'PARKED']);
/** A lead's jobs are keyed by its id and step (0 to MAX_FOLLOW_UPS), so they are read in one batch without an index. */
const leadJobs = async (deps: Pick<Deps, 'store'>, leadId: string) => (await deps.store.batchGet(jobKeysOfLead(leadId))).map(fromItem);

/**
 * Ends a lead's sequence in the queue at once (a reply, a bounce, a
 * complaint): open jobs are cancelled with the reason. A job already claimed
 * is stopped by the send path's own check of the lead right before SMTP.
 */
export async function cancelOpenJobs(deps: Pick<Deps, 'store'>, leadId: string, reason: string): Promise<number> {
  let cancelled = 0;
  for (const job of await leadJobs(deps, leadId)) {
    if (OPEN.has(job.state) && (await move(deps, job, 'CANCELLED', { set: { reason } }))) cancelled++;
  }
  return cancelled;
}

/** Moves a lead's open jobs that are due before `notBefore` (engine ms) to then, or to the lead's window's next opening after. */
export async function delayOpenJobs(
  deps: Pick<Deps, 'store' | 'clock'>,
  leadId: string,
  notBefore: number,
  open: SendWindow | undefined,
): Promise<number> {
  let delayed = 0;
  const now = deps.clock.now();
  for (const job of await leadJobs(deps, leadId)) {
    if (!OPEN.has(job.state) || job.dueAt >= notBefore) continue;
    // A queued message will find the job SCHEDULED and leave it; the dispatcher queues it again when due.
    const held = { due: { at: notBefore, now, open }, set: { heldUntil: new Date(notBefore).toISOString() } };
    if (await move(deps, job, job.state === 'PARKED' ? 'PARKED' : 'SCHEDULED', held)) delayed++;
  }
  return delayed;
}
