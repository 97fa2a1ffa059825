import { describe, expect, it } from 'vitest';
import { parseDeliveryStatus, parseFeedbackReport, isPermanentFailure } from '@outbound/core/inbound/reports';
import { classify } from '@outbound/core/inbound/classify';
import * as fixtures from '../../../test/fixtures/inbound.ts';
import { parseInbound } from './inbound-parse.ts';

const BOX = 'rita@sender.com';
const SENT = '01jq8x2k3m4n5p6q7r8s9t0v1w@sender.com';
const at = Date.UTC(2026, 2, 3, 9);

describe('parseInbound: what the rules read, from messages as servers write them', () => {
  it('a Postfix bounce: the delivery-status part apart from the text, and the returned headers', async () => {
    const m = await parseInbound(
      7,
      at,
      fixtures.postfixBounce({
        mailbox: BOX,
        recipient: 'gone@client.com',
        originalMessageId: SENT,
        originalSubject: 'Quick question',
        status: '5.1.1',
        action: 'failed',
      }),
    );
    expect(m).toMatchObject({ uid: 7, receivedAt: at, from: `mailer-daemon@mail.sender.com`, to: [BOX] });
    expect(m.headers['auto-submitted']).toBe('auto-replied');
    expect(m.report?.type).toBe('delivery-status');
    expect(m.report?.original).toMatchObject({ messageId: SENT, to: ['gone@client.com'], subject: 'Quick question' });
    const recipients = parseDeliveryStatus(m.report!.fields);
    expect(recipients).toHaveLength(1);
    expect(recipients[0]).toMatchObject({ recipient: 'gone@client.com', action: 'failed', status: '5.1.1' });
    expect(recipients[0]!.diagnostic).toContain('User unknown in virtual mailbox table');
    expect(classify(m, BOX).kind).toBe('BOUNCE');
  });

  it('an Exchange non-delivery report, failed and delayed: nested human part, message/rfc822 original', async () => {
    const failed = await parseInbound(
      1,
      at,
      fixtures.exchangeBounce({
        mailbox: BOX,
        recipient: 'nobody@client.com',
        originalMessageId: SENT,
        originalSubject: 'Hi',
        status: '5.1.10',
        action: 'failed',
      }),
    );
    expect(failed.report?.type).toBe('delivery-status');
    expect(failed.report?.original?.messageId).toBe(SENT);
    expect(parseDeliveryStatus(failed.report!.fields).map(isPermanentFailure)).toEqual([true]);
    expect(failed.inReplyTo).toEqual([SENT]);
    const delayed = await parseInbound(
      2,
      at,
      fixtures.exchangeBounce({
        mailbox: BOX,
        recipient: 'slow@client.com',
        originalMessageId: SENT,
        originalSubject: 'Hi',
        status: '4.4.7',
        action: 'delayed',
      }),
    );
    expect(parseDeliveryStatus(delayed.report!.fields)).toMatchObject([
      { recipient: 'slow@client.com', action: 'delayed', status: '4.4.7' },
    ]);
    expect(classify(delayed, BOX).kind).toBe('IGNORE');
  });

  it('an ARF complaint: the feedback-report fields and the original', async () => {
    const m = await parseInbound(
      3,
      at,
      fixtures.arfComplaint({ mailbox: BOX, recipient: 'angry@client.com', originalMessageId: SENT, originalSubject: 'Hi' }),
    );
    expect(m.report?.type).toBe('feedback-report');
    expect(parseFeedbackReport(m.report!.fields)).toMatchObject({ feedbackType: 'abuse', originalRcptTo: ['angry@client.com'] });
    expect(m.report?.original?.messageId).toBe(SENT);
  });

  it.each(['exchange', 'gmail', 'x-autoreply', 'precedence', 'autorespond'] as const)(
    'an out-of-office answer (%s) keeps its markers and its thread',
    async (style) => {
      const m = await parseInbound(
        4,
        at,
        fixtures.outOfOffice({ mailbox: BOX, from: 'Bob@Client.com', inReplyTo: SENT, subject: 'Away', body: 'Back on 12 March.', style }),
      );
      expect(m.from).toBe('bob@client.com');
      expect(m.inReplyTo).toEqual([SENT]);
      expect(classify(m, BOX).kind).toBe('AUTO_REPLY');
    },
  );

  it('a reply: folded References with several ids, a display name, the text part', async () => {
    const m = await parseInbound(
      5,
      at,
      fixtures.reply({
        mailbox: BOX,
        from: 'ann@client.com',
        fromName: 'Ann Client',
        subject: 'Re: Hi',
        body: 'Yes, Tuesday works.',
        inReplyTo: SENT,
        references: ['first@sender.com', SENT],
      }),
    );
    expect(m).toMatchObject({
      from: 'ann@client.com',
      fromName: 'Ann Client',
      subject: 'Re: Hi',
      inReplyTo: [SENT],
      references: ['first@sender.com', SENT],
    });
    expect(m.text).toContain('Yes, Tuesday works.');
    expect(m.report).toBeUndefined();
  });

  it('HTML-only mail gives text, and garbage gives an empty message rather than an error', async () => {
    const m = await parseInbound(
      6,
      at,
      fixtures.unrelated({ mailbox: BOX, from: 'news@vendor.com', subject: 'News', body: 'Our <b>November</b> news.' }),
    );
    expect(m.text).toContain('November');
    expect(m.headers['list-id']).toContain('news.vendor.com');
    const junk = await parseInbound(8, at, Buffer.from([0, 159, 146, 150, 10, 13, 10]));
    expect(junk).toMatchObject({ uid: 8, receivedAt: at, inReplyTo: [], references: [] });
  });
});

describe('parseInbound: the report parts and the returned original in every form', () => {
  it('a multipart/report without report-type, and a report part inside multipart/mixed, are still reports', async () => {
    const bare = fixtures
      .postfixBounce({
        mailbox: BOX,
        recipient: 'gone@client.com',
        originalMessageId: SENT,
        originalSubject: 'Hi',
        status: '5.1.1',
        action: 'failed',
      })
      .replace('report-type=delivery-status;', '');
    expect((await parseInbound(1, at, bare)).report?.type).toBe('delivery-status');
    const mixed = bare.replace('multipart/report;', 'multipart/mixed;');
    const m = await parseInbound(1, at, mixed);
    expect(m.report?.type).toBe('delivery-status');
    expect(m.report?.original?.messageId).toBe(SENT);
    expect(classify(m, BOX)).toMatchObject({
      kind: 'BOUNCE',
      originalMessageId: SENT,
      recipients: [{ recipient: 'gone@client.com', reason: 'user-unknown', hard: true }],
    });
  });

  it('an original quoted in the text (qmail) is found, and the text before it is the notice', async () => {
    const m = await parseInbound(
      1,
      at,
      fixtures.qmailBounce({ mailbox: BOX, recipient: 'gone@client.com', originalMessageId: SENT, originalSubject: 'Hi', inReplyTo: true }),
    );
    expect(m.report).toBeUndefined();
    expect(m.original).toMatchObject({ messageId: SENT, to: ['gone@client.com'] });
    expect(m.bodyText).toContain('--- Below this line is a copy of the message.');
    // Verizon-style threading under the engine's own email does not make it a reply.
    expect(m.inReplyTo).toEqual([SENT]);
    expect(classify(m, BOX)).toMatchObject({
      kind: 'BOUNCE',
      originalMessageId: SENT,
      recipients: [{ recipient: 'gone@client.com', status: '5.1.1', action: 'failed', hard: true }],
    });
  });

  it('a JMRP complaint keeps the attached original and its X-HmXmrOriginalRecipient', async () => {
    const m = await parseInbound(
      1,
      at,
      fixtures.jmrpComplaint({ mailbox: BOX, recipient: 'Junker@Outlook.com', originalMessageId: SENT, originalSubject: 'Hi' }),
    );
    expect(m.report).toBeUndefined();
    expect(m.original?.headers?.['x-hmxmroriginalrecipient']).toBe('<Junker@Outlook.com>');
    expect(classify(m, BOX)).toEqual({ kind: 'COMPLAINT', recipients: ['junker@outlook.com'], originalMessageId: SENT });
  });

  it('a complainant header typed into the text is not a JMRP complaint: only an attached original counts', async () => {
    const raw = `From: mallory@evil.example\r\nTo: ${BOX}\r\nSubject: fyi\r\n\r\nSee below.\r\n\r\n-----Original Message-----\r\nX-HmXmrOriginalRecipient: <victim@client.com>\r\nFrom: ${BOX}\r\nTo: victim@client.com\r\nMessage-ID: <${SENT}>\r\n\r\nHi`;
    const m = await parseInbound(1, at, raw);
    expect(m.original?.messageId).toBe(SENT);
    expect(m.original?.headers).toEqual({});
    expect(classify(m, BOX).kind).toBe('REPLY');
  });

  it('HTML-only mail: line breaks kept, style and script left out, entities decoded', async () => {
    const raw =
      'From: a@client.com\r\nTo: rita@sender.com\r\nSubject: x\r\nContent-Type: text/html\r\n\r\n<html><head><style>p{color:red}</style></head><body><p>Tom &amp; Jerry</p><div>back on 12&nbsp;March</div><script>x()</script></body></html>';
    const m = await parseInbound(1, at, raw);
    expect(m.text).not.toContain('color');
    expect(m.text).not.toContain('x()');
    expect(m.text).toContain('Tom & Jerry');
    expect(m.text).toMatch(/Tom & Jerry\s*\n\s*back on 12 March/);
  });
});

/** A 3 kB In-Reply-To of bare words: once, its SENTMSG# key outgrew DynamoDB's 2,048 bytes and stopped a mailbox's reading for good. */
const bareWords = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ');

/** 256 KB built to hurt: regex bait (long runs without an @, a tag that never closes), a huge header, a bare-word In-Reply-To, multiparts nested hundreds deep. */
function hostileMessage(): string {
  const K = 256 * 1024;
  const head = [
    'From: MAILER-DAEMON@mx.example.com',
    `To: ${BOX}`,
    'Subject: Undelivered Mail Returned to Sender',
    `In-Reply-To: ${bareWords}`,
    `References: ${bareWords} <${'r'.repeat(300)}@x.com>`,
    `X-Bait: ${'a'.repeat(40_000)}`,
    ...Array.from({ length: 150 }, (_, i) => `X-H${i}: ${'b'.repeat(20)}`),
    `X-Folded: ${'i\r\n '.repeat(20_000)}`,
    'Content-Type: multipart/report; report-type=delivery-status; boundary="b0"',
    '',
  ].join('\r\n');
  let body = '';
  for (let i = 0; i < 400; i++) body += `--b${i}\r\nContent-Type: multipart/mixed; boundary="b${i + 1}"\r\n\r\n`;
  body += `--b400\r\nContent-Type: text/html\r\n\r\n${'<'.repeat(20_000)}<a href="${'d'.repeat(30_000)}\r\n`;
  body += `${'e'.repeat(40_000)} ${'f@'.repeat(10_000)}\r\nFinal-Recipient: rfc822; ${'g'.repeat(5000)}@x.com\r\n`;
  const raw = `${head}\r\n${body}`;
  return (raw + ' h'.repeat(Math.max(0, K - raw.length))).slice(0, K);
}

describe('parseInbound: hostile messages', () => {
  it('ids: bare words give none, an id over 255 characters or without an @ is dropped, In-Reply-To keeps 2 and References its last 5', async () => {
    const refs = Array.from({ length: 30 }, (_, i) => `<r${i}@sender.com>`).join('\r\n ');
    const raw = `From: ann@client.com\r\nTo: ${BOX}\r\nSubject: Re: Hi\r\nMessage-ID: <${'m'.repeat(300)}@client.com>\r\nIn-Reply-To: ${bareWords}\r\nReferences: ${refs}\r\n\r\nHi`;
    const m = await parseInbound(1, at, raw);
    expect(m.inReplyTo).toEqual([]);
    expect(m.messageId).toBeUndefined();
    expect(m.references).toEqual(['r25@sender.com', 'r26@sender.com', 'r27@sender.com', 'r28@sender.com', 'r29@sender.com']);
    const many = await parseInbound(
      1,
      at,
      `From: ann@client.com\r\nIn-Reply-To: <a@x.com> <b@x.com> <c@x.com> not-an-id <${'z'.repeat(256)}@x.com>\r\n\r\nHi`,
    );
    expect(many.inReplyTo).toEqual(['a@x.com', 'b@x.com']);
  });

  it('References longer than the header cut still gives its newest ids', async () => {
    const refs = Array.from({ length: 200 }, (_, i) => `<reference-number-${i}@sender.example.com>`).join('\r\n ');
    const m = await parseInbound(1, at, `From: ann@client.com\r\nReferences: ${refs}\r\n\r\nHi`);
    expect(m.references).toEqual([195, 196, 197, 198, 199].map((i) => `reference-number-${i}@sender.example.com`));
  });

  it('addresses longer than 320 characters are dropped', async () => {
    const long = `${'x'.repeat(330)}@client.com`;
    const m = await parseInbound(1, at, `From: ${long}\r\nTo: ${long}, ok@client.com\r\n\r\nHi`);
    expect(m.from).toBeUndefined();
    expect(m.to).toEqual(['ok@client.com']);
  });

  it('a 256 KB hostile message is parsed and classified in under 100 ms, and gives no oversized id', async () => {
    const raw = hostileMessage();
    expect(raw.length).toBe(256 * 1024);
    const once = async () => {
      const started = performance.now();
      const m = await parseInbound(1, at, raw);
      const c = classify(m, BOX);
      return { ms: performance.now() - started, m, c };
    };
    await once(); // warm-up: the first run pays for JIT compilation and loading
    const runs = [await once(), await once(), await once()];
    const best = Math.min(...runs.map((r) => r.ms));
    console.log(`hostile 256 KB message: parsed and classified in ${best.toFixed(1)} ms (best of 3 after a warm-up)`);
    expect(best).toBeLessThan(100);
    const { m, c } = runs[0]!;
    expect(m.inReplyTo).toEqual([]);
    expect(m.references).toEqual([]);
    expect(Object.values(m.headers).every((v) => v.length <= 2048)).toBe(true);
    expect(m.report?.type).toBe('delivery-status');
    expect(c.kind === 'REPLY' || c.kind === 'AUTO_REPLY').toBe(false);
  });

  it('a person-shaped message that drives the words-only rules (a null return path, a returned original, out-of-office and failure words) stays under 100 ms', async () => {
    // Not from a daemon, so the failure words, the quoted original and the out-of-office clauses are all read.
    const body = [
      `I am out of the office until ${'Monday '.repeat(8000)}`,
      `${'5.5.5.'.repeat(6000)} ${'550'.repeat(8000)} ${'could not be '.repeat(3000)}`,
      `${'out until, '.repeat(5000)}`,
      '------ 元のメッセージ ------',
      `From: ${BOX}`,
      `Message-ID: <${'m'.repeat(200)}@sender.com>`,
      `Subject: ${'x'.repeat(30000)}`,
    ].join('\r\n');
    const raw =
      `Return-Path: <>\r\nFrom: someone@client.com\r\nTo: ${BOX}\r\nSubject: Re: hi\r\nIn-Reply-To: <${'m'.repeat(200)}@sender.com>\r\n\r\n${body}`.slice(
        0,
        256 * 1024,
      );
    const once = async () => {
      const started = performance.now();
      classify(await parseInbound(1, at, raw), BOX);
      return performance.now() - started;
    };
    await once();
    expect(Math.min(await once(), await once(), await once())).toBeLessThan(100);
  });

  it('the address pattern is linear: 200,000 characters without an @ take milliseconds, not minutes', async () => {
    const started = performance.now();
    await parseInbound(1, at, `From: ${'a'.repeat(200_000)}\r\nTo: ${'b'.repeat(200_000)}\r\n\r\n${'c'.repeat(200_000)}`);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it.each([
    ['nothing', ''],
    ['a header without a body', 'From: a@b.com'],
    ['a multipart without a boundary', 'Content-Type: multipart/mixed\r\n\r\n--x\r\n\r\nhi'],
    [
      'a boundary never closed',
      'Content-Type: multipart/report; boundary=z\r\n\r\n--z\r\nContent-Type: message/delivery-status\r\n\r\nFinal-Recipient: rfc822; a@b.com',
    ],
    ['broken base64 and charset', 'Content-Type: text/plain; charset=x-nonsense\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!***'],
    [
      'a report part of JSON noise',
      'Content-Type: multipart/report; boundary=z\r\n\r\n--z\r\nContent-Type: message/feedback-report\r\n\r\n{{{{\r\n--z--',
    ],
    ['an SNS body that is not JSON', 'Subject: AWS Notification Message\r\nx-amz-sns-message-id: 1\r\n\r\n{"notificationType": '],
    ['binary', Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 37) % 256))],
  ] as const)('never throws: %s', async (_, raw) => {
    const m = await parseInbound(9, at, raw);
    expect(m).toMatchObject({ uid: 9, receivedAt: at });
    expect(() => classify(m, BOX)).not.toThrow();
  });
});
