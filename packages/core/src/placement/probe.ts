import type { Deps } from '../deps.ts';
import { renderCopy } from '../copy/placeholders.ts';
import { seedSubject, unsubscribeUrl } from '../guardrails/unsubscribe.ts';
import type { Domain } from '../domain/entity.ts';
import type { Mailbox } from '../mailbox/entity.ts';
import { seedKey } from '../seed/keys.ts';
import { fromItem as seedFromItem } from '../seed/entity.ts';
import type { Reads } from '../sending/read-batch.ts';
import { placeholderValues, wrapEmail, type Composed } from '../sending/compose.ts';
import type { Job } from '../sending/job.entity.ts';
import { move } from '../sending/jobs.ts';
import type { JobControl, JobKind, SendOutcome, SendPlan } from '../sending/job-kind.ts';
import { probeFromItem, runFromItem, type ProbeCopy } from './entity.ts';
import { runKey } from './keys.ts';

export type { ProbeCopy } from './entity.ts';

/**
 * The sample email to one seed inbox: the copy with placeholders filled as
 * for a lead who gave only an address (fallbacks apply), spun, and wrapped
 * like every email (footer, unsubscribe link, RFC 8058 headers). Never AI:
 * a sample must not spend the customer's AI credits.
 */
export async function composeProbe(
  deps: Pick<Deps, 'store' | 'keys' | 'config' | 'random'>,
  p: { copy: ProbeCopy; seedId: string; to: string; mailbox: Mailbox; domain: Domain },
): Promise<Composed> {
  const { to } = p;
  const values = placeholderValues({ email: to }, p.mailbox);
  const subject = renderCopy(p.copy.subject, values, undefined, deps.random).text.trim();
  const body = renderCopy(p.copy.body, values, undefined, deps.random).text;
  const url = await unsubscribeUrl(
    deps,
    { id: seedSubject(p.seedId), email: to },
    { unsubscribeUrlTemplate: p.copy.unsubscribeUrlTemplate },
  );
  return {
    aiGenerated: false,
    subject,
    email: wrapEmail({ mailbox: p.mailbox, domain: p.domain, to, subject, body, unsubscribeUrl: url, aiDisclosure: false }),
  };
}

/**
 * A placement probe on the send path: from the mailbox the run chose, to
 * its seed inbox. Its outcome is written on the probe's job only: no
 * campaign counts it, no lead moves, no breaker sees it.
 */
export async function planProbeSend(deps: Deps, queued: Job, read: Reads, ctl: JobControl): Promise<SendPlan | SendOutcome> {
  const job = probeFromItem(queued);
  const runRow = read.get(runKey(job.runId));
  const seed = read.parsed(seedKey(job.seedId), seedFromItem);
  if (!runRow) return ctl.cancel('placement run removed');
  if (!seed) return ctl.cancel('seed inbox removed');
  const run = runFromItem(runRow);
  if (seed.unsubscribedAt) return ctl.cancel('The seed inbox unsubscribed from samples: delete it and add it again to sample it.');
  // A suppressed seed address is refused by the send path's claim, before a slot is booked.
  // The address the run took from the seed (a seed's address never changes: a new address is a new seed).
  const to = job.seedEmail;
  const at = () => ({ ms: deps.clock.now(), iso: new Date(deps.clock.now()).toISOString() });
  return {
    mailboxIds: [job.mailboxId],
    pinned: true,
    to,
    // Never AI: a sample must not spend the customer's AI credits.
    paid: false,
    // A seed is the customer's own inbox, not a lead: there is no sequence to stop.
    onSuppressed: async () => {},
    compose: (mailbox, domain) => composeProbe(deps, { copy: run.copy, seedId: job.seedId, to, mailbox, domain }),
    async recordSent(held, _mailbox, composed) {
      const t = at();
      await move(deps, held, 'SENT', { set: { sentAt: t.iso, sentAtMs: t.ms, subject: composed.subject } });
    },
    async recordBounce(held, _mailbox, lastError) {
      // The 5xx came from the sending mailbox's own server (a quota, a policy), not from the seed's provider,
      // so it says nothing about where the sample would have landed.
      await move(deps, held, 'FAILED', {
        set: {
          lastError,
          failedAt: at().iso,
          placement: 'SKIPPED',
          placementReason: `The sending mailbox's server refused the sample (${lastError}).`,
        },
      });
    },
    async recordUnknown(held) {
      // Never sent again; the read of the seed inbox tells whether it arrived.
      const t = at();
      await move(deps, held, 'FAILED', {
        set: { lastError: 'outcome unknown: the connection broke during the send', failedAt: t.iso, unknownOutcome: true, sentAtMs: t.ms },
      });
    },
  };
}

/** Stored on a probe's job: the registry (job-kinds.ts) finds this kind by it. */
export const PROBE_KIND = 'probe';

export const placementProbe: JobKind = {
  name: PROBE_KIND,
  // A placement sample waits in the same queue: it has a seed, not a campaign and a lead.
  label: 'placement',
  refOf: (job) => {
    const { runId, seedId } = probeFromItem(job);
    return { runId, seedId };
  },
  reads: (ref) => [...(ref.runId ? [runKey(ref.runId)] : []), ...(ref.seedId ? [seedKey(ref.seedId)] : [])],
  plan: planProbeSend,
  settleSent: async (deps, job) => {
    const t = deps.clock.now();
    await move(deps, job, 'SENT', { set: { sentAt: new Date(t).toISOString(), sentAtMs: t } });
  },
  // Never sent again either: the read of its seed inbox tells whether it arrived.
  settleUnknown: (deps, job) =>
    move(deps, job, 'FAILED', {
      set: {
        lastError: 'outcome unknown: the sender stopped during the send',
        failedAt: new Date(deps.clock.now()).toISOString(),
        unknownOutcome: true,
        sentAtMs: job.claimedAt,
      },
    }),
};
