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
    const m = await parseInbound(7, at, fixtures.postfixBounce({ mailbox: BOX, recipient: 'gone@client.com', originalMessageId: SENT, originalSubject: 'Quick question', status: '5.1.1', action: 'failed' }));
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
    const failed = await parseInbound(1, at, fixtures.exchangeBounce({ mailbox: BOX, recipient: 'nobody@client.com', originalMessageId: SENT, originalSubject: 'Hi', status: '5.1.10', action: 'failed' }));
    expect(failed.report?.type).toBe('delivery-status');
    expect(failed.report?.original?.messageId).toBe(SENT);
    expect(parseDeliveryStatus(failed.report!.fields).map(isPermanentFailure)).toEqual([true]);
    expect(failed.inReplyTo).toEqual([SENT]);
    const delayed = await parseInbound(2, at, fixtures.exchangeBounce({ mailbox: BOX, recipient: 'slow@client.com', originalMessageId: SENT, originalSubject: 'Hi', status: '4.4.7', action: 'delayed' }));
    expect(parseDeliveryStatus(delayed.report!.fields)).toMatchObject([{ recipient: 'slow@client.com', action: 'delayed', status: '4.4.7' }]);
    expect(classify(delayed, BOX).kind).toBe('IGNORE');
  });

  it('an ARF complaint: the feedback-report fields and the original', async () => {
    const m = await parseInbound(3, at, fixtures.arfComplaint({ mailbox: BOX, recipient: 'angry@client.com', originalMessageId: SENT, originalSubject: 'Hi' }));
    expect(m.report?.type).toBe('feedback-report');
    expect(parseFeedbackReport(m.report!.fields)).toMatchObject({ feedbackType: 'abuse', originalRcptTo: ['angry@client.com'] });
    expect(m.report?.original?.messageId).toBe(SENT);
  });

  it.each(['exchange', 'gmail', 'x-autoreply', 'precedence', 'autorespond'] as const)('an out-of-office answer (%s) keeps its markers and its thread', async (style) => {
    const m = await parseInbound(4, at, fixtures.outOfOffice({ mailbox: BOX, from: 'Bob@Client.com', inReplyTo: SENT, subject: 'Away', body: 'Back on 12 March.', style }));
    expect(m.from).toBe('bob@client.com');
    expect(m.inReplyTo).toEqual([SENT]);
    expect(classify(m, BOX).kind).toBe('AUTO_REPLY');
  });

  it('a reply: folded References with several ids, a display name, the text part', async () => {
    const m = await parseInbound(5, at, fixtures.reply({ mailbox: BOX, from: 'ann@client.com', fromName: 'Ann Client', subject: 'Re: Hi', body: 'Yes, Tuesday works.', inReplyTo: SENT, references: ['first@sender.com', SENT] }));
    expect(m).toMatchObject({ from: 'ann@client.com', fromName: 'Ann Client', subject: 'Re: Hi', inReplyTo: [SENT], references: ['first@sender.com', SENT] });
    expect(m.text).toContain('Yes, Tuesday works.');
    expect(m.report).toBeUndefined();
  });

  it('HTML-only mail gives text, and garbage gives an empty message rather than an error', async () => {
    const m = await parseInbound(6, at, fixtures.unrelated({ mailbox: BOX, from: 'news@vendor.com', subject: 'News', body: 'Our <b>November</b> news.' }));
    expect(m.text).toContain('November');
    expect(m.headers['list-id']).toContain('news.vendor.com');
    const junk = await parseInbound(8, at, Buffer.from([0, 159, 146, 150, 10, 13, 10]));
    expect(junk).toMatchObject({ uid: 8, receivedAt: at, inReplyTo: [], references: [] });
  });
});
