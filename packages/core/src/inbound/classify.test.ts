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
      msg({
        from: 'mailer-daemon@mx.client.com',
        headers: { 'auto-submitted': 'auto-replied' },
        inReplyTo: ['sent@sender.com'],
        report: { type: 'delivery-status', fields: dsn('failed', '5.1.1'), original: { messageId: 'Sent@Sender.com', to: [] } },
      }),
      BOX,
    );
    expect(c).toMatchObject({
      kind: 'BOUNCE',
      originalMessageId: 'sent@sender.com',
      recipients: [{ recipient: 'ann@client.com', status: '5.1.1' }],
    });
  });

  it('a delay (4.x.x) changes nothing, and neither does a report of another type', () => {
    expect(classify(msg({ report: { type: 'delivery-status', fields: dsn('delayed', '4.4.1') } }), BOX).kind).toBe('IGNORE');
    expect(classify(msg({ report: { type: 'disposition-notification', fields: '' } }), BOX).kind).toBe('IGNORE');
  });

  it('a feedback report is a complaint naming Original-Rcpt-To, else the returned original To', () => {
    const fields = 'Feedback-Type: abuse\r\nUser-Agent: FBL/1.0\r\nVersion: 1\r\nOriginal-Rcpt-To: <Ann@Client.com>\r\n';
    expect(classify(msg({ report: { type: 'feedback-report', fields } }), BOX)).toMatchObject({
      kind: 'COMPLAINT',
      recipients: ['ann@client.com'],
    });
    expect(
      classify(msg({ report: { type: 'feedback-report', fields: 'Feedback-Type: abuse\r\n', original: { to: ['bob@client.com'] } } }), BOX),
    ).toMatchObject({
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

describe('classify: notices from mail systems in every form', () => {
  const notice = (over: Partial<InboundMessage>) =>
    msg({
      from: 'mailer-daemon@mx.sender.com',
      fromName: 'Mail Delivery System',
      subject: 'Mail delivery failed: returning message to sender',
      messageId: 'n1@mx.sender.com',
      ...over,
    });

  it('every failed recipient comes back, hard and soft, each with a reason; delays and successes are left out', () => {
    const fields = [
      'Reporting-MTA: dns; mx.sender.com',
      '',
      'Final-Recipient: rfc822; gone@client.com',
      'Action: failed',
      'Status: 5.1.1',
      'Diagnostic-Code: smtp; 550 5.1.1 User unknown',
      '',
      'Final-Recipient: rfc822; full@client.com',
      'Action: failed',
      'Status: 5.2.2',
      'Diagnostic-Code: smtp; 552 5.2.2 Mailbox full',
      '',
      'Final-Recipient: rfc822; slow@client.com',
      'Action: delayed',
      'Status: 4.4.1',
    ].join('\r\n');
    const c = classify(notice({ report: { type: 'delivery-status', fields } }), BOX);
    expect(c).toEqual({
      kind: 'BOUNCE',
      recipients: [
        {
          recipient: 'gone@client.com',
          action: 'failed',
          status: '5.1.1',
          diagnostic: 'smtp; 550 5.1.1 User unknown',
          reason: 'user-unknown',
          hard: true,
        },
        {
          recipient: 'full@client.com',
          action: 'failed',
          status: '5.2.2',
          diagnostic: 'smtp; 552 5.2.2 Mailbox full',
          reason: 'mailbox-full',
          hard: false,
        },
      ],
    });
  });

  it('a multipart/report without report-type is read as a delivery report', () => {
    const c = classify(notice({ report: { type: '', fields: dsn('failed', '5.1.1') } }), BOX);
    expect(c).toMatchObject({ kind: 'BOUNCE', recipients: [{ recipient: 'ann@client.com', hard: true }] });
  });

  it("Exim's prose notice with Auto-Submitted: auto-replied is a bounce, never an out-of-office", () => {
    const text = [
      'This message was created automatically by mail delivery software.',
      '',
      'A message that you sent could not be delivered to one or more of its',
      'recipients. This is a permanent error. The following address(es) failed:',
      '',
      '  gone@client.com',
      '    SMTP error from remote mail server after RCPT TO:<gone@client.com>:',
      '    550 5.1.1 <gone@client.com>: Recipient address rejected: User unknown',
      '',
      '------ This is a copy of the message, including all the headers. ------',
      '',
      `From: ${BOX}`,
      'To: gone@client.com',
      'Message-ID: <sent@sender.com>',
    ].join('\n');
    const c = classify(
      notice({ headers: { 'auto-submitted': 'auto-replied' }, text, original: { messageId: 'sent@sender.com', to: ['gone@client.com'] } }),
      BOX,
    );
    expect(c).toEqual({
      kind: 'BOUNCE',
      originalMessageId: 'sent@sender.com',
      recipients: [
        expect.objectContaining({ recipient: 'gone@client.com', action: 'failed', status: '5.1.1', reason: 'user-unknown', hard: true }),
      ],
    });
  });

  it('a notice threaded under the engine own email (Verizon, James, fml) is never a reply, even when no recipient can be read', () => {
    const c = classify(notice({ inReplyTo: ['sent@sender.com'], text: 'Your message could not be delivered.' }), BOX);
    expect(c.kind).toBe('IGNORE');
    const nullSender = classify(
      msg({ from: 'ops@client.com', headers: { 'return-path': '<>' }, inReplyTo: ['sent@sender.com'], text: 'Delivery failed.' }),
      BOX,
    );
    expect(nullSender.kind).toBe('IGNORE');
  });

  it('a 5.x.x for a full mailbox, a rate limit or an expired message is soft; the reason comes from the words', () => {
    const read = (line: string) => classify(notice({ text: `<ann@client.com>:\n${line}\n` }), BOX);
    expect(read('Remote host said: 552 5.2.2 <ann@client.com>... Mailbox full')).toMatchObject({
      kind: 'BOUNCE',
      recipients: [{ reason: 'mailbox-full', hard: false, status: '5.2.2' }],
    });
    expect(read('550 5.7.1 Sender has sent to too many recipients this hour')).toMatchObject({
      recipients: [{ reason: 'rate-limited', hard: false }],
    });
    expect(read('550 Ip frequency limited')).toMatchObject({ recipients: [{ reason: 'rate-limited', hard: false, status: '5.0.0' }] });
    expect(read('550 5.4.316 Message expired')).toMatchObject({ recipients: [{ reason: 'expired', hard: false }] });
    expect(read('Sorry, no mailbox here by that name. (#5.1.1)')).toMatchObject({
      recipients: [{ reason: 'user-unknown', hard: true, status: '5.1.1' }],
    });
  });

  it('a policy refusal the server gave as 4xx is soft even when the report, having given up, says failed 5.x.x; a dead address is not', () => {
    const report = (diagnostic: string) => ({
      type: 'delivery-status',
      fields: `Final-Recipient: rfc822; ann@client.com\r\nAction: failed\r\nStatus: 5.0.0\r\nDiagnostic-Code: smtp; ${diagnostic}\r\n`,
    });
    expect(classify(notice({ report: report('450 4.7.1 Client host rejected: cannot find your hostname') }), BOX)).toMatchObject({
      recipients: [{ reason: 'blocked', hard: false }],
    });
    expect(classify(notice({ report: report('550 5.7.1 Client host rejected: cannot find your hostname') }), BOX)).toMatchObject({
      recipients: [{ reason: 'blocked', hard: true }],
    });
    expect(classify(notice({ report: report('450 4.1.1 <ann@client.com>: Recipient address rejected: User unknown') }), BOX)).toMatchObject(
      { recipients: [{ reason: 'user-unknown', hard: true }] },
    );
  });

  it('a success notice in prose (Exchange "Delivered:", "Relayed:") fails no one', () => {
    expect(
      classify(
        notice({
          from: 'postmaster@client.com',
          subject: 'Delivered: Quick question',
          text: 'Your message has been delivered to the following recipients:\n\nann@client.com',
        }),
        BOX,
      ).kind,
    ).toBe('IGNORE');
    expect(
      classify(
        notice({ subject: 'Relayed: Quick question', text: 'Delivery to these recipients or groups is complete:\nann@client.com' }),
        BOX,
      ).kind,
    ).toBe('IGNORE');
    // Words of success beside a permanent failure code are not a success.
    const mixed =
      'An error occurred while your message was delivered to the following address:\n\n  ann@client.com\n    550 5.1.1 User unknown\n';
    expect(classify(notice({ subject: 'Error report', text: mixed }), BOX)).toMatchObject({
      kind: 'BOUNCE',
      recipients: [{ recipient: 'ann@client.com', hard: true }],
    });
  });

  it('a person writing about a failed delivery is still a reply', () => {
    expect(classify(msg({ subject: 'Re: Undeliverable: Quick question', text: 'Your email bounced, try this address.' }), BOX).kind).toBe(
      'REPLY',
    );
  });

  it('a notice is known by what it is: the original this mailbox sent handed back, beside the words of a failure, from any sender', () => {
    const returned = { messageId: 'Sent@Sender.com', from: BOX, to: ['gone@client.com'] };
    const text =
      'An error occurred while delivering your message to the following address:\n\n  gone@client.com\n    550 5.1.1 <gone@client.com>... User unknown\n';
    // A list manager threading its report under the engine's email, from an address no list of daemons holds.
    const list = classify(
      msg({
        from: 'sales-admin@lists.client.com',
        subject: 'Re: Quick question',
        inReplyTo: ['sent@sender.com'],
        text,
        original: returned,
      }),
      BOX,
    );
    expect(list).toMatchObject({
      kind: 'BOUNCE',
      originalMessageId: 'sent@sender.com',
      recipients: [{ recipient: 'gone@client.com', reason: 'user-unknown', hard: true }],
    });
    // The same original with no failure in the words (a colleague forwarding the email as an attachment) is not a notice.
    expect(
      classify(msg({ from: 'carl@client.com', inReplyTo: ['sent@sender.com'], text: 'Ann, see the note below.', original: returned }), BOX)
        .kind,
    ).toBe('REPLY');
    // Nor is a person forwarding it back with numbers in their words: a reply code counts only where a server's answer starts.
    expect(
      classify(
        msg({
          from: 'carl@client.com',
          inReplyTo: ['sent@sender.com'],
          text: 'We have 450 employees and 500 more next year, see below.',
          original: returned,
        }),
        BOX,
      ).kind,
    ).toBe('REPLY');
    // A localized mail system's display name is enough.
    expect(classify(msg({ from: 'mail@gw.client.de', fromName: 'E-Mail-Zustellsystem', subject: 'Unzustellbar', text }), BOX).kind).toBe(
      'BOUNCE',
    );
  });

  it("SMTP codes in a person's own words never make a bounce, whatever they quote", () => {
    const text = 'Your email to Bob came back with "550 5.1.1 <bob@client.com>: User unknown". He left; I run the team now.';
    expect(classify(msg({ from: 'dana@client.com', inReplyTo: ['sent@sender.com'], text }), BOX).kind).toBe('REPLY');
    // An Outlook-style quote gives an original from the mailbox, but without its Message-ID: a person's client, not a mail system.
    expect(classify(msg({ from: 'dana@client.com', text, original: { from: BOX, to: ['dana@client.com'] } }), BOX).kind).toBe('REPLY');
  });

  it('an out-of-office with the null return path RFC 3834 asks for is an auto-reply, not a notice', () => {
    const text = 'I am out of the office until 12 March. For urgent matters please contact jane@client.com.';
    expect(classify(msg({ from: 'bob@client.com', headers: { 'return-path': '<>' }, inReplyTo: ['sent@sender.com'], text }), BOX)).toEqual({
      kind: 'AUTO_REPLY',
      threadIds: ['sent@sender.com'],
    });
    expect(
      classify(msg({ from: 'bob@client.com', inReplyTo: ['sent@sender.com'], text: 'out till Monday, yes send the deck' }), BOX).kind,
    ).toBe('REPLY');
  });

  it('a JMRP complaint names X-HmXmrOriginalRecipient of the attached original', () => {
    const c = classify(
      msg({
        from: 'staff@hotmail.com',
        original: { messageId: 'Sent@Sender.com', to: ['x@outlook.com'], headers: { 'x-hmxmroriginalrecipient': '<Junker@Outlook.com>' } },
      }),
      BOX,
    );
    expect(c).toEqual({ kind: 'COMPLAINT', recipients: ['junker@outlook.com'], originalMessageId: 'sent@sender.com' });
  });
});

describe('snippetOf', () => {
  it('keeps what the person wrote and drops the quoted original and the signature', () => {
    const text =
      'Thanks, not right now.\nMaybe next quarter.\n\n-- \nAnn\n\nOn Tue, 3 Mar 2026 at 09:00, Rita <rita@sender.com> wrote:\n> Hi Ann';
    expect(snippetOf(text)).toBe('Thanks, not right now. Maybe next quarter.');
    expect(snippetOf('Sure.\n\n-----Original Message-----\nFrom: Rita')).toBe('Sure.');
    expect(snippetOf('x'.repeat(500))).toHaveLength(200);
  });
});
