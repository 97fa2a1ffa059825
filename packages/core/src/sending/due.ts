/**
 * When a job is due: the one function every due time goes through, the one
 * a job is made with (newJob) and the one it is moved back to wait with
 * (moveOps' `due`). A rule about when a job may go (a sending window, a
 * quiet hour) belongs here, so that no job is made or rescheduled around it.
 */
import { leadZone, type LeadZone } from '../schedule/lead-zone.ts';
import { isOpen, nextOpen, type Window } from '../schedule/window.ts';

const DAY = 86_400_000;

/** A lead's sending window: its campaign's days and hours, in the lead's zone. */
export interface SendWindow extends LeadZone {
  window: Window;
}

/** The window a lead's emails wait for, or undefined when its campaign sends at any hour. */
export function sendWindow(
  schedule: (Window & { timezone: string; useLeadTimezone?: boolean }) | null | undefined,
  customFields: Record<string, unknown> | null | undefined,
): SendWindow | undefined {
  return schedule ? { window: schedule, ...leadZone(customFields, schedule) } : undefined;
}

/**
 * The window of a move made where whom the job is for is not read (a dead
 * claim due again, a Sent-folder resend, a campaign's parked jobs on resume):
 * none is applied, and the send path looks at the lead's window before it
 * claims, moving the job to the next opening when it is closed.
 */
export const CHECKED_BEFORE_CLAIM: SendWindow | undefined = undefined;

/** Whether a send may start at `t` (always, without a window). */
export const openAt = (open: SendWindow | undefined, t: number): boolean => !open || isOpen(open.window, open.timezone, t);

/**
 * A job's due time for a wanted time: never before now, so the dispatcher's
 * due index never holds a time already past when written; and, with a
 * window, never outside it: the window's next opening in the lead's zone.
 */
export function dueTime(wanted: number, now: number, open?: SendWindow): number {
  const at = Math.max(wanted, now);
  return open ? nextOpen(open.window, open.timezone, at) : at;
}

/** A follow-up is wanted `waitDays` after the send before it (engine ms); its window is applied by dueTime. */
export const followUpAt = (lastSentAt: number, waitDays: number): number => lastSentAt + waitDays * DAY;
