/**
 * Whether a mailbox's server files what it sends in the Sent folder, found
 * out rather than assumed (docs/sending.md, Exactly once). GOOGLE and
 * MICROSOFT always do. Any other IMAP server may or may not (many hosts
 * copy submitted mail to Sent, plain MTAs do not): once the mailbox has an
 * email known to have gone, the poller looks for it in the Sent folder and
 * writes the answer on the mailbox (again each day). From then on an unknown send outcome on
 * that mailbox is settled by the Sent folder instead of being taken as sent.
 */
import type { Deps } from '../deps.ts';
import { leadsPinnedTo } from '../lead/keys.ts';
import { fromItem as leadFromItem } from '../lead/entity.ts';
import { mailboxKey } from '../mailbox/keys.ts';
import { knownToFileSentMail, type Mailbox } from '../mailbox/entity.ts';
import type { ServerLogin } from '../ports/mail.ts';
import { fromItem as jobFromItem } from '../sending/job.entity.ts';
import { jobId, jobKey } from '../sending/keys.ts';

/** A server files at submission, or within seconds: an email sent this long ago (wall ms) is in Sent if it ever will be. */
export const FILING_DELAY_MS = 60_000;
/**
 * The answer is looked for again after a day: an owner may turn filing on or off, and a mailbox still marked as
 * filing after it stopped would have an unknown outcome looked for in vain and sent again. One lookup a day is cheap.
 */
export const RECHECK_MS = 86_400_000;
/** Leads pinned to the mailbox looked at for a sent email: a bounded read, once a day per mailbox. */
const CANDIDATES = 10;

type D = Pick<Deps, 'store' | 'mailReader' | 'wallClock' | 'log'>;

/** Whether the mailbox's filing is still to be found out (or old enough to look again). */
export function filingUnknown(mailbox: Mailbox, wallNow: number): boolean {
  if (knownToFileSentMail(mailbox)) return false;
  const checked = Date.parse(mailbox.sentFiling?.checkedAt ?? '');
  return !(checked > wallNow - RECHECK_MS);
}

/**
 * Looks up one email known to have gone from this mailbox (SMTP accepted it,
 * not taken as sent) in its Sent folder, and records on the mailbox whether it
 * was there. Returns the answer, or undefined when there was no such email yet.
 * Throws as the reader throws: "cannot tell" is never written as "does not file".
 */
export async function findOutSentFiling(deps: D, mailbox: Mailbox, login: ServerLogin): Promise<boolean | undefined> {
  const wallNow = deps.wallClock.now();
  if (!filingUnknown(mailbox, wallNow)) return undefined;
  const pinned = (await deps.store.query({ ...leadsPinnedTo(mailbox.id), limit: CANDIDATES })).items.map(leadFromItem);
  const lastJobs = pinned.filter((l) => (l.stepsSent ?? 0) > 0).map((l) => jobKey(jobId(l.id, (l.stepsSent ?? 1) - 1)));
  if (!lastJobs.length) return undefined;
  const sent = (await deps.store.batchGet(lastJobs))
    .map(jobFromItem)
    .find(
      (j) =>
        j.state === 'SENT' &&
        !j.unconfirmed &&
        j.mailboxId === mailbox.id &&
        j.messageId &&
        (j.smtpStartedAt ?? wallNow) <= wallNow - FILING_DELAY_MS,
    );
  if (!sent?.messageId) return undefined;
  const files = await deps.mailReader.sentContains(login, sent.messageId);
  await deps.store.update(mailboxKey(mailbox.id), {
    set: { sentFiling: { files, checkedAt: new Date(wallNow).toISOString() } },
    if: { itemExists: true },
  });
  deps.log.info(
    files
      ? 'the mailbox server files sent mail: unknown outcomes go to its Sent folder'
      : 'the mailbox server does not file sent mail: unknown outcomes are taken as sent',
    {
      mailboxId: mailbox.id,
    },
  );
  return files;
}
