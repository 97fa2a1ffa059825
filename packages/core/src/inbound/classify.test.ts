import { describe, expect, it } from 'vitest';
import type { InboundMessage } from '../ports/mail-reader.ts';
import { classify, isAutoReply, snippetOf, threadIdsOf } from './classify.ts';

const BOX = 'rep@sender.com';
const msg = (over: Partial<InboundMessage> = {}): InboundMessage => ({
  uid: 1,
  receivedAt: Date.UTC(2026, 2, 3),
  messageId: 'abc@client.com',
  inReplyTo: [],
  references: [],
  from: 'ann@client.com',
  to: [BOX],
  subject: 'Re: Quick question',
  headers: {},
  text: 'Sounds good.',
  ...over,
});

const dsn = (action: string, status: string) =>
  `Reporting-MTA: dns; mx.client.com\r\n\r\nFinal-Recipient: rfc822; ann@client.com\r\nAction: ${action}\r\nStatus: ${status}\r\n`;

describe('classify: reports first, then automatic answers, then replies', () => {
  it('a delivery-status report with a permanent failure is a bounce, whatever its Auto-Submitted or threading says', () => {
    const c = classify(
      msg({ from: 'mailer-daemon@mx.client.com', headers: { 'auto-submitted': 'auto-replied' }, inReplyTo: ['sent@sender.com'], report: { type: 'delivery-status', fields: dsn('failed', '5.1.1'), original: { messageId: 'Sent@Sender.com', to: [] } } }),
      BOX,
    );
    expect(c).toMatchObject({ kind: 'BOUNCE', originalMessageId: 'sent@sender.com', recipients: [{ recipient: 'ann@client.com', status: '5.1.1' }] });
  });

  it('a delay (4.x.x) changes nothing, and neither does a report of another type', () => {
    expect(classify(msg({ report: { type: 'delivery-status', fields: dsn('delayed', '4.4.1') } }), BOX).kind).toBe('IGNORE');
    expect(classify(msg({ report: { type: 'disposition-notification', fields: '' } }), BOX).kind).toBe('IGNORE');
  });

  it('a feedback report is a complaint naming Original-Rcpt-To, else the returned original To', () => {
    const fields = 'Feedback-Type: abuse\r\nUser-Agent: FBL/1.0\r\nVersion: 1\r\nOriginal-Rcpt-To: <Ann@Client.com>\r\n';
    expect(classify(msg({ report: { type: 'feedback-report', fields } }), BOX)).toMatchObject({ kind: 'COMPLAINT', recipients: ['ann@client.com'] });
    expect(classify(msg({ report: { type: 'feedback-report', fields: 'Feedback-Type: abuse\r\n', original: { to: ['bob@client.com'] } } }), BOX)).toMatchObject({
      kind: 'COMPLAINT',
      recipients: ['bob@client.com'],
    });
  });

  it.each([
    [{ 'auto-submitted': 'auto-replied' }],
    [{ 'auto-submitted': 'auto-generated; owner-email="x@y"' }],
    [{ 'x-autoreply': 'yes' }],
    [{ 'x-autorespond': 'Out of office' }],
    [{ precedence: 'auto_reply' }],
  ])('an RFC 3834 marker %o makes a threaded message an auto-reply, not a reply', (headers) => {
    expect(classify(msg({ headers, inReplyTo: ['sent@sender.com'] }), BOX)).toEqual({ kind: 'AUTO_REPLY', threadIds: ['sent@sender.com'] });
  });

  it('Auto-Submitted: no is a person', () => {
    expect(isAutoReply(msg({ headers: { 'auto-submitted': 'no' } }))).toBe(false);
    expect(classify(msg({ headers: { 'auto-submitted': 'no' } }), BOX).kind).toBe('REPLY');
  });

  it('subjects of out-of-office answers count without headers; a person replying about one does not', () => {
    expect(isAutoReply(msg({ subject: 'Automatic reply: Quick question' }))).toBe(true);
    expect(isAutoReply(msg({ subject: 'Out of Office: Quick question' }))).toBe(true);
    expect(isAutoReply(msg({ subject: 'Abwesenheitsnotiz: Frage' }))).toBe(true);
    expect(isAutoReply(msg({ subject: 'Re: out of office next week?' }))).toBe(false);
  });

  it('list and bulk mail is never a reply; the mailbox own copy is ignored', () => {
    expect(classify(msg({ headers: { 'list-id': '<news.vendor.com>' } }), BOX).kind).toBe('IGNORE');
    expect(classify(msg({ headers: { precedence: 'bulk' } }), BOX).kind).toBe('IGNORE');
    expect(classify(msg({ from: BOX }), BOX).kind).toBe('IGNORE');
  });

  it('thread ids: In-Reply-To first, then References newest first, lower-cased, once each', () => {
    expect(threadIdsOf({ inReplyTo: ['C@x'], references: ['a@x', 'B@x', 'c@x'] })).toEqual(['c@x', 'b@x', 'a@x']);
  });
});

describe('snippetOf', () => {
  it('keeps what the person wrote and drops the quoted original and the signature', () => {
    const text = 'Thanks, not right now.\nMaybe next quarter.\n\n-- \nAnn\n\nOn Tue, 3 Mar 2026 at 09:00, Rita <rita@sender.com> wrote:\n> Hi Ann';
    expect(snippetOf(text)).toBe('Thanks, not right now. Maybe next quarter.');
    expect(snippetOf('Sure.\n\n-----Original Message-----\nFrom: Rita')).toBe('Sure.');
    expect(snippetOf('x'.repeat(500))).toHaveLength(200);
  });
});
