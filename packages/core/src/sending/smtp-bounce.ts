/**
 * What a 5xx answer at RCPT or DATA says about the address, read by the same
 * reason table as a bounce notice (inbound/notice/reasons.ts), so a refusal
 * at the send and a report in the mailbox reach one verdict: a dead address
 * is a hard bounce; a full mailbox, a rate limit or the sending host's
 * reputation is not the address's fault, and the send is tried again later.
 */
import { isHard, reasonOf } from '../inbound/notice/reasons.ts';
import type { BounceReason } from '../inbound/classify.ts';
import { withoutAddresses } from '../log.ts';

export interface SmtpBounce {
  /** The enhanced status code (RFC 3463) the server gave, else the class of its reply code as x.0.0. */
  status: string;
  reason: BounceReason;
  hard: boolean;
  /** The server's words, without addresses, at most 300 characters. */
  diagnostic?: string;
}

export function smtpBounce(code: number | undefined, detail: string | undefined): SmtpBounce {
  const text = (detail ?? '').slice(0, 2000);
  const status = /\b([245])\.(\d{1,3})\.(\d{1,3})\b/.exec(text)?.slice(1).join('.') ?? `${String(code ?? 5).charAt(0)}.0.0`;
  const reason = reasonOf(text, status);
  const diagnostic = withoutAddresses(text).trim().slice(0, 300);
  return { status, reason, hard: isHard(reason, status, 'failed'), ...(diagnostic ? { diagnostic } : {}) };
}
