/**
 * When a job is due: the one function every due time goes through, the one
 * a job is made with (newJob) and the one it is moved back to wait with
 * (moveOps' `due`). A rule about when a job may go (a sending window, a
 * quiet hour) belongs here, so that no job is made or rescheduled around it.
 */

const DAY = 86_400_000;

/** A job's due time for a wanted time: never before now, so the dispatcher's due index never holds a time already past when written. */
export function dueTime(wanted: number, now: number): number {
  return Math.max(wanted, now);
}

/** A follow-up is wanted `waitDays` after the send before it (engine ms). */
export const followUpAt = (lastSentAt: number, waitDays: number): number => lastSentAt + waitDays * DAY;
