/**
 * Metrics port: counts of what the engine did, for dashboards and alarms.
 * On AWS each count is a CloudWatch embedded-metric-format log line (no API
 * call, no extra permission); locally they go nowhere. Core counts at the
 * one place each thing happens, so a count is never doubled by a retry.
 */
export type MetricName =
  /** An email the SMTP server accepted (recorded SENT). */
  | 'EmailsSent'
  /** A send whose outcome a crash or a broken connection left unknown, with no Sent folder to say: taken as sent, never resent. */
  | 'UnconfirmedSends'
  /** A lead of a launched campaign found waiting with no job that would move it, and moved on by the dispatcher's sweep. */
  | 'LeadsHealed'
  /** A bounce: a 5xx at SMTP time or a delivery report read from the mailbox. */
  | 'Bounces'
  /** A soft bounce read from a mailbox (full mailbox, rate limit, reputation...): noted, nothing stopped. */
  | 'SoftBounces'
  /** A bounce or complaint report that returned no email the engine sent to that address: only the mailbox's own lead stopped. */
  | 'UnconfirmedReports'
  /** An inbound message that could not be read or applied, skipped so the ones after it are read. */
  | 'InboundSkipped'
  /** A reply read from a mailbox that stopped a lead's sequence. */
  | 'Replies'
  /** A reply the rules could not read whose AI reading failed (timeout, refusal, provider error): it stays NEEDS_REVIEW. */
  | 'ReplyAiFailures'
  /** A campaign/mailbox pair the bounce breaker stopped. */
  | 'BreakerTrips'
  /** Leads stored by a finished import. */
  | 'LeadsImported'
  /** A send that threw (a secret that cannot be opened, the store refusing) instead of reaching SMTP. */
  | 'SendErrors'
  /** A request answered 500. */
  | 'ApiErrors';

export interface Metrics {
  count(name: MetricName, value?: number): void;
}

export const noMetrics: Metrics = { count() {} };
