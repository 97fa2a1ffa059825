/**
 * Amazon SES event notifications mailed by Amazon SNS (an email
 * subscription to a topic SES publishes bounces and complaints to): a
 * text/plain message whose body is the JSON SES documents
 * (notificationType Bounce or Complaint), sometimes inside the SNS envelope
 * ({"Type":"Notification","Message":"<the JSON as a string>"}).
 */
import type { InboundMessage } from '../../ports/mail-reader.ts';
import { addressOfToken, cleanId } from './text.ts';

export interface SesBounceRecipient {
  recipient: string;
  action?: string;
  status?: string;
  diagnostic?: string;
}

export type SesNotification =
  | { kind: 'bounce'; permanent: boolean; recipients: SesBounceRecipient[]; originalMessageId?: string }
  | { kind: 'complaint'; recipients: string[]; originalMessageId?: string };

const JSON_MAX = 64 * 1024;
const RECIPIENTS_MAX = 20;

/** The message looks like an SNS notification: the SNS headers, or the subject SNS writes, with a JSON body. */
export function looksLikeSes(m: InboundMessage): boolean {
  const body = (m.bodyText ?? m.text).trimStart();
  return body.startsWith('{') && (m.headers['x-amz-sns-message-id'] !== undefined || /^aws notification message$/i.test(m.subject.trim()));
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

function parseJson(text: string): Json | undefined {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start || end - start > JSON_MAX) return undefined;
  try {
    const value: unknown = JSON.parse(text.slice(start, end + 1));
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The original's Message-ID header, when SES included the headers (mail.headers or mail.commonHeaders). */
function messageIdOf(mail: unknown): string | undefined {
  if (!isObject(mail)) return undefined;
  const common = isObject(mail.commonHeaders) ? str(mail.commonHeaders.messageId) : undefined;
  const header = Array.isArray(mail.headers)
    ? mail.headers.find((h) => isObject(h) && str(h.name)?.toLowerCase() === 'message-id')
    : undefined;
  const raw = (isObject(header) ? str(header.value) : undefined) ?? common;
  return raw ? cleanId(raw.replace(/^\s*<|>\s*$/g, ''))?.toLowerCase() : undefined;
}

/** The SES notification this message carries; undefined when it carries none. */
export function sesNotificationOf(m: InboundMessage): SesNotification | undefined {
  if (!looksLikeSes(m)) return undefined;
  // Lines over 998 characters reach the mailbox split by a relay as "!" + line break + space (RFC 5322 §2.1.1's limit).
  let event = parseJson((m.bodyText ?? m.text).replace(/!\r?\n /g, ''));
  // The SNS envelope holds the SES JSON as a string.
  if (event && typeof event.Message === 'string') event = parseJson(event.Message);
  if (!event) return undefined;
  const type = str(event.notificationType ?? event.eventType)?.toLowerCase();
  const originalMessageId = messageIdOf(event.mail);
  const ids = originalMessageId ? { originalMessageId } : {};
  if (type === 'bounce' && isObject(event.bounce)) {
    const list = Array.isArray(event.bounce.bouncedRecipients) ? event.bounce.bouncedRecipients.slice(0, RECIPIENTS_MAX) : [];
    const recipients = list.flatMap((r): SesBounceRecipient[] => {
      const recipient = isObject(r) ? addressOfToken(str(r.emailAddress) ?? '') : undefined;
      if (!recipient || !isObject(r)) return [];
      const status = /^[245]\.\d{1,3}\.\d{1,3}$/.exec(str(r.status) ?? '')?.[0];
      const action = str(r.action)?.toLowerCase().slice(0, 20);
      const diagnostic = str(r.diagnosticCode)?.slice(0, 1000);
      return [{ recipient, ...(action ? { action } : {}), ...(status ? { status } : {}), ...(diagnostic ? { diagnostic } : {}) }];
    });
    return { kind: 'bounce', permanent: str(event.bounce.bounceType) === 'Permanent', recipients, ...ids };
  }
  if (type === 'complaint' && isObject(event.complaint)) {
    const list = Array.isArray(event.complaint.complainedRecipients) ? event.complaint.complainedRecipients.slice(0, RECIPIENTS_MAX) : [];
    const recipients = list.flatMap((r) => {
      const address = isObject(r) ? addressOfToken(str(r.emailAddress) ?? '') : undefined;
      return address ? [address] : [];
    });
    return { kind: 'complaint', recipients, ...ids };
  }
  return undefined;
}
