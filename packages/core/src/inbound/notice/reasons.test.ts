import { describe, expect, it } from 'vitest';
import { isHard, reasonOf } from './reasons.ts';

describe('reasonOf and isHard: the reason decides as well as the status class', () => {
  it.each([
    // The address is dead: hard whatever the class.
    ['550 5.1.1 <a@b.com>... User unknown', '5.1.1', 'user-unknown', true],
    ['450 4.1.1 <a@b.com>: Recipient address rejected: User unknown in local recipient table', '4.1.1', 'user-unknown', true],
    ["550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup", '5.1.10', 'user-unknown', true],
    ['550 5.2.1 The email account that you tried to reach is disabled', '5.2.1', 'mailbox-disabled', true],
    ['551 5.1.6 Recipient has moved', '5.1.6', 'has-moved', true],
    ['Host or domain name not found. Name service error for name=nxdomain.example type=A: Host not found', '5.1.2', 'host-unknown', true],
    // A domain that did not resolve with a 4.x.x may resolve tomorrow.
    ["DNS Error: DNS type 'mx' lookup of example.jpn responded with code NXDOMAIN", '4.0.0', 'host-unknown', false],
    // Temporary or sender-side causes: soft even with 5.x.x.
    ['552 5.2.2 Mailbox full', '5.2.2', 'mailbox-full', false],
    ['550 5.2.2 The email account that you tried to reach is over quota', '5.2.2', 'mailbox-full', false],
    ['550 5.7.1 Sender has sent to too many recipients this hour', '5.7.1', 'rate-limited', false],
    ['550 Ip frequency limited', '5.0.0', 'rate-limited', false],
    ['550 5.4.316 Message expired, connection refused', '5.4.316', 'expired', false],
    ['451 4.7.1 Greylisted, please try again later', '4.7.1', 'rate-limited', false],
    ['554 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org', '5.7.1', 'reputation', false],
    // A low reputation score is the receiving side's spam policy, not a blocklist: hard at 5.x.x, soft at 4.x.x.
    ['550 5.7.1 Our system has detected that this message is likely suspicious due to the very low reputation of the sending domain', '5.7.1', 'blocked', true],
    ['421 4.7.0 Our system has detected an unusual rate of mail and the low reputation of the sending IP address', '4.7.0', 'rate-limited', false],
    // An address on a blocklist is a policy refusal of that address; only the sending host's listing is soft.
    ['550 Sorry, you are sending to/from an address that has been blacklisted', '5.0.0', 'blocked', true],
    ['550 5.7.1 Your email address has been blacklisted', '5.7.1', 'blocked', true],
    ['553 IP address 192.0.2.1 blacklisted by recipient', '5.0.0', 'reputation', false],
    // Network and system causes are soft at 5.x.x, ahead of the refusal words beside them.
    ['554 5.4.0 connect to mx.client.com[192.0.2.5]:25: Connection refused', '5.4.0', 'network-error', false],
    ['554 5.4.6 Too many hops 26 (25 max): mail loop', '5.4.6', 'network-error', false],
    ['550 5.3.0 Local configuration error, rejected', '5.3.0', 'system-error', false],
    ['550 5.0.0 mail system full', '5.0.0', 'system-error', false],
    // The message's time ran out (soft); an account that expired is a dead address (hard).
    ['550 5.0.0 Message expired after sitting in queue for 5 days', '5.0.0', 'expired', false],
    ['550 5.2.1 This account has expired', '5.2.1', 'mailbox-disabled', true],
    // Japanese carriers' wording.
    ['550 宛先のアドレスは存在しません', '5.0.0', 'user-unknown', true],
    ['552 メールボックスの容量がいっぱいです', '5.0.0', 'mailbox-full', false],
    ['421 4.4.2 Connection timed out', '4.4.2', 'network-error', false],
    ['Name service error for domain example.com: Host not found, try again', '5.0.0', 'network-error', false],
    // Refused by policy: hard at 5.x.x, soft at 4.x.x.
    ['550 5.7.1 Message rejected as spam by Content Filtering', '5.7.1', 'spam-detected', true],
    ['450 4.7.1 Message rejected: spam content detected', '4.7.1', 'spam-detected', false],
    ['550 5.7.26 Unauthenticated email from example.com is not accepted due to domain\'s DMARC policy', '5.7.26', 'auth-failure', true],
    ['554 5.7.1 <a@b.com>: Relay access denied', '5.7.1', 'relaying-denied', true],
    ['552 5.3.4 Message size exceeds fixed maximum message size', '5.3.4', 'message-too-big', true],
    ['554 5.6.0 Message contains a virus', '5.6.0', 'virus-detected', true],
    ['550 5.7.1 Client host rejected: cannot find your reverse hostname', '5.7.1', 'blocked', true],
  ] as const)('%s (%s) → %s, hard %s', (diagnostic, status, reason, hard) => {
    const got = reasonOf(diagnostic, status);
    expect(got).toBe(reason);
    expect(isHard(got, status, 'failed')).toBe(hard);
  });

  it('falls back to the status code when the words say nothing, and a delay is never hard', () => {
    expect(reasonOf('', '5.1.1')).toBe('user-unknown');
    expect(reasonOf('', '5.2.2')).toBe('mailbox-full');
    expect(reasonOf('something odd happened', '5.0.0')).toBe('unknown');
    expect(isHard('unknown', '5.0.0', 'failed')).toBe(true);
    expect(isHard('user-unknown', '5.1.1', 'delayed')).toBe(false);
  });

  it('stays fast on a long diagnostic (each phrase has bounded gaps)', () => {
    const started = performance.now();
    for (let i = 0; i < 50; i++) reasonOf(`${'account '.repeat(5000)}`, '5.0.0');
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
