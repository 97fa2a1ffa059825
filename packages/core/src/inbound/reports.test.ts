import { describe, expect, it } from 'vitest';
import { addressOf, deliveryStatusBlocks, isPermanentFailure, parseDeliveryStatus, parseFeedbackReport } from './reports.ts';

const POSTFIX = [
  'Reporting-MTA: dns; mail.sender.com',
  'X-Postfix-Queue-ID: 4ZkQ1T2vXHz9sPm',
  'X-Postfix-Sender: rfc822; rep@sender.com',
  'Arrival-Date: Tue,  3 Mar 2026 09:00:01 +0000 (UTC)',
  '',
  'Final-Recipient: rfc822; gone@client.com',
  'Original-Recipient: rfc822;gone@client.com',
  'Action: failed',
  'Status: 5.1.1',
  'Remote-MTA: dns; mx.client.com',
  'Diagnostic-Code: smtp; 550 5.1.1 <gone@client.com>: Recipient address',
  '    rejected: User unknown in virtual mailbox table',
  '',
  'Final-Recipient: rfc822; slow@client.com',
  'Action: delayed',
  'Status: 4.4.1 (connection timed out)',
  '',
].join('\r\n');

describe('parseDeliveryStatus (RFC 3464)', () => {
  it('reads every recipient block, unfolding continued lines and dropping status comments', () => {
    const r = parseDeliveryStatus(POSTFIX);
    expect(r).toEqual([
      {
        recipient: 'gone@client.com',
        action: 'failed',
        status: '5.1.1',
        diagnostic: 'smtp; 550 5.1.1 <gone@client.com>: Recipient address rejected: User unknown in virtual mailbox table',
      },
      { recipient: 'slow@client.com', action: 'delayed', status: '4.4.1' },
    ]);
    expect(r.map(isPermanentFailure)).toEqual([true, false]);
  });

  it('falls back to Original-Recipient, accepts odd spacing, case and angle brackets', () => {
    expect(parseDeliveryStatus('original-recipient:RFC822;<Ann@Client.COM>\nACTION:  Failed\nstatus:5.2.2 (mailbox full)\n')).toEqual([
      { recipient: 'ann@client.com', action: 'failed', status: '5.2.2' },
    ]);
  });

  it('skips blocks without a usable recipient, action or status, and gives nothing for garbage', () => {
    expect(parseDeliveryStatus('Final-Recipient: x400; /C=US/\nAction: failed\nStatus: 5.0.0\n')).toEqual([]);
    expect(parseDeliveryStatus('Final-Recipient: rfc822; a@b.com\nAction: failed\n')).toEqual([]);
    expect(parseDeliveryStatus('hello there\nthis is not a report')).toEqual([]);
    expect(parseDeliveryStatus('')).toEqual([]);
  });

  it('two recipients in one block with no blank line between them (AOL) are two recipients', () => {
    const aol =
      'Original-Recipient: rfc822;a@client.com\nFinal-Recipient: rfc822;a@client.com\nAction: failed\nStatus: 5.1.1\nOriginal-Recipient: rfc822;b@client.com\nFinal-Recipient: rfc822;b@client.com\nAction: failed\nStatus: 5.2.2\n';
    expect(parseDeliveryStatus(aol)).toEqual([
      { recipient: 'a@client.com', action: 'failed', status: '5.1.1' },
      { recipient: 'b@client.com', action: 'failed', status: '5.2.2' },
    ]);
    expect(deliveryStatusBlocks('Final-Recipient: rfc822; c@client.com\nAction: failed\n').map((b) => b.recipient)).toEqual([
      'c@client.com',
    ]);
  });

  it('a failure with a 4.x.x status, or a delivery with 2.0.0, is not permanent', () => {
    expect(isPermanentFailure({ recipient: 'a@b.com', action: 'failed', status: '4.4.7' })).toBe(false);
    expect(isPermanentFailure({ recipient: 'a@b.com', action: 'delivered', status: '2.0.0' })).toBe(false);
  });
});

describe('parseFeedbackReport (RFC 5965)', () => {
  it('reads the feedback type and every Original-Rcpt-To', () => {
    const report = parseFeedbackReport(
      'Feedback-Type: abuse\r\nUser-Agent: SomeGenerator/1.0\r\nVersion: 1\r\nOriginal-Mail-From: <rep@sender.com>\r\nOriginal-Rcpt-To: <Angry@Client.com>\r\nOriginal-Rcpt-To: other@client.com\r\nSource-IP: 192.0.2.1\r\n',
    );
    expect(report).toEqual({
      feedbackType: 'abuse',
      originalRcptTo: ['angry@client.com', 'other@client.com'],
      originalMailFrom: 'rep@sender.com',
      userAgent: 'SomeGenerator/1.0',
      sourceIp: '192.0.2.1',
    });
  });

  it('gives no recipients when the report names none', () => {
    expect(parseFeedbackReport('Feedback-Type: abuse\n').originalRcptTo).toEqual([]);
  });
});

describe('addressOf', () => {
  it('takes rfc822 and utf-8 typed addresses only', () => {
    expect(addressOf('rfc822; a@b.com')).toBe('a@b.com');
    expect(addressOf('utf-8; a@b.com')).toBe('a@b.com');
    expect(addressOf('x400; something')).toBeUndefined();
    expect(addressOf('rfc822; not an address')).toBeUndefined();
  });
});
