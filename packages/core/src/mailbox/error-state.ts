/**
 * A mailbox set to ERROR (it cannot sign in, its server refused it): the
 * mailbox.error fact. The event rides in the same write, and only when the
 * mailbox was not in ERROR already, so a mailbox failing at every turn gives
 * one event until its owner fixes it.
 */
import type { Deps } from '../deps.ts';
import { ConditionFailedError } from '../errors.ts';
import type { Condition } from '../ports/store.ts';
import { eventOps } from '../webhooks/events.ts';
import { mailboxKey } from './keys.ts';

export async function setMailboxError(
  deps: Pick<Deps, 'store' | 'wallClock' | 'clock' | 'log'>,
  mailbox: { id: string; email: string },
  sentence: string,
  /** The write's own condition (the same grant, the row still there). */
  cond?: Condition,
): Promise<void> {
  const set = { status: 'ERROR', lastError: sentence };
  const event = await eventOps(
    deps,
    'mailbox.error',
    { mailboxId: mailbox.id, email: mailbox.email, error: sentence },
    `${mailboxKey(mailbox.id).pk}#ERROR#${deps.clock.now()}`,
  );
  if (event.length) {
    const becomes: Condition = { and: [{ itemExists: true }, { attr: 'status', op: '<>', value: 'ERROR' }, ...(cond ? [cond] : [])] };
    try {
      await deps.store.transact([{ update: mailboxKey(mailbox.id), change: { set, if: becomes } }, ...event]);
      return;
    } catch (err) {
      // In ERROR already (or the write's own condition failed, which the plain write below says again): no event.
      if (!(err instanceof ConditionFailedError)) throw err;
    }
  }
  await deps.store.update(mailboxKey(mailbox.id), { set, ...(cond ? { if: cond } : {}) });
}
