import { createHash } from 'node:crypto';
import type { IndexQuery, Key } from '../ports/store.ts';
import { MAX_FOLLOW_UPS } from '../campaign/campaign.schema.ts';

/**
 * A job is one planned email: a lead and a step (0 is the first email).
 * Its id is derived from both, so planning the same email twice writes the
 * same key and a conditional put refuses the second.
 */
export const jobId = (leadId: string, step: number) => `${leadId}.${step}`;
export const jobKey = (id: string): Key => ({ pk: `JOB#${id}`, sk: 'JOB' });
/** Every job a lead can have: its first email and each follow-up a campaign may hold. */
export const jobKeysOfLead = (leadId: string): Key[] =>
  Array.from({ length: MAX_FOLLOW_UPS + 1 }, (_, step) => jobKey(jobId(leadId, step)));

/** Time as a fixed-width string, so index sort keys order by time. */
export const timeKey = (ms: number) => String(Math.max(0, Math.floor(ms))).padStart(15, '0');

/**
 * Install-wide job bookkeeping (the state counters, the due and claimed
 * indexes) is spread over this many partitions, chosen by the job's id, so
 * no single item or index partition is written by every send: concurrent
 * sends from different mailboxes never wait on one another's counter.
 * Readers ask every shard (and the unsharded partition older installations wrote).
 */
export const JOB_SHARDS = 8;
export const shardOf = (id: string): number => createHash('sha1').update(id).digest()[0]! % JOB_SHARDS;
const SHARDS = Array.from({ length: JOB_SHARDS }, (_, i) => i);

/** gsi1: jobs waiting for the dispatcher (SCHEDULED or QUEUED), by due time. */
const DUE = 'JOBS#DUE';
export const dueIndex = (id: string, dueAt: number) => ({ gsi1pk: `${DUE}#${shardOf(id)}`, gsi1sk: `${timeKey(dueAt)}#${id}` });
/** A job that no longer waits (claimed, or in a final state) leaves the due index. */
export const withoutDueIndex = () => ['gsi1pk', 'gsi1sk'];
/** gsi2: every job of a campaign (unparking on resume, cancelling). */
export const campaignJobs = (campaignId: string) => `CAMPAIGN#${campaignId}#JOBS`;
/** gsi2: the collection a job is listed in for good (a campaign's jobs, a run's probes). */
export const jobCollectionIndex = (collection: string, id: string) => ({ gsi2pk: collection, gsi2sk: id });
/** gsi3: jobs being sent right now, by claim time (crash recovery). */
const CLAIMED = 'JOBS#CLAIMED';
export const claimedIndex = (id: string, claimedWallAt: number) => ({
  gsi3pk: `${CLAIMED}#${shardOf(id)}`,
  gsi3sk: `${timeKey(claimedWallAt)}#${id}`,
});
/** A job no longer being sent leaves the claimed index. */
export const withoutClaimedIndex = () => ['gsi3pk', 'gsi3sk'];

/** Job counts by state, for the queue status without counting rows: one item per shard, summed by the reader. */
export const queueCounterKey = (id: string): Key => ({ pk: 'COUNTER', sk: `QUEUE#${shardOf(id)}` });
/** Every counter item, the unsharded one of older installations included. */
export const queueCounterKeys = (): Key[] => [{ pk: 'COUNTER', sk: 'QUEUE' }, ...SHARDS.map((s) => ({ pk: 'COUNTER', sk: `QUEUE#${s}` }))];
export const stateCounter = (state: string) => `jobs#${state}`;
/**
 * Not a state: the SENT jobs whose outcome a crash left unknown and that were taken as sent
 * (`unconfirmed: true`), counted with SENT and here too, so the queue status shows them apart.
 */
export const UNCONFIRMED = 'UNCONFIRMED';

/** The install-wide queue switch (POST /v1/queue/pause). */
export const queueSwitchKey: Key = { pk: 'SETTING', sk: 'QUEUE' };

/** Sends of one mailbox on one UTC day of the engine clock: the daily cap, counted at send time. */
export const dailyCapKey = (mailboxId: string, day: string): Key => ({ pk: `MAILBOX#${mailboxId}`, sk: `SENT#${day}` });

/** Campaigns whose leads are still being planned, a chunk per dispatcher tick. */
export const PLANNING = 'CAMPAIGNS#PLANNING';
/** gsi3 on a campaign row (sparse): set while the dispatcher still has leads of it to plan, removed when the last chunk is planned. */
export const planningIndex = (campaignId: string) => ({ gsi3pk: PLANNING, gsi3sk: campaignId });
export const withoutPlanningIndex = () => ['gsi3pk', 'gsi3sk'];
/** A campaign row still being planned (its gsi3 names the planning collection). */
export const isPlanning = (campaignItem: Record<string, unknown>) => campaignItem.gsi3pk === PLANNING;

/**
 * Where the sweep for waiting leads (healing.ts) stopped in a campaign's lead index: an item beside the
 * campaign, not on it, so the sweep never writes the item every send's record updates.
 */
export const healCursorKey = (campaignId: string): Key => ({ pk: `CAMPAIGN#${campaignId}`, sk: 'HEALCURSOR' });

/**
 * Access patterns: jobs waiting for the dispatcher, by due time, and jobs
 * being sent, by claim time (one query per shard: see queryShards); a
 * campaign's jobs; campaigns still being planned.
 */
export const dueJobs = (): IndexQuery[] => [
  { index: 'gsi1', pk: DUE },
  ...SHARDS.map((s) => ({ index: 'gsi1' as const, pk: `${DUE}#${s}` })),
];
export const claimedJobs = (): IndexQuery[] => [
  { index: 'gsi3', pk: CLAIMED },
  ...SHARDS.map((s) => ({ index: 'gsi3' as const, pk: `${CLAIMED}#${s}` })),
];
export const jobsOfCampaign = (campaignId: string): IndexQuery => ({ index: 'gsi2', pk: campaignJobs(campaignId) });
export const campaignsPlanning = (): IndexQuery => ({ index: 'gsi3', pk: PLANNING });
