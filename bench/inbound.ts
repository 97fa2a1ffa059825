/**
 * Reading inbound mail: every message of the bounce corpus (test/fixtures/bounces),
 * parsed and classified as the poller does (parseInbound, then classify), next
 * to the raw limit of the same work: mailparser's simpleParser alone on the same
 * bytes, the MIME decoding no reading can skip. Then the hostile messages the
 * tests use (256 KB of regex bait, a 3 kB bare-word In-Reply-To), one at a time.
 * Last, the reply rules (readReply) over the labelled dev replies
 * (test/fixtures/replies), in microseconds per reply, next to the least any
 * reading of the same texts does: lower-casing them and splitting them into lines.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { parseInbound } from '@outbound/mail/inbound-parse';
import { classify } from '@outbound/core/inbound/classify';
import { readReply } from '@outbound/core/inbound/reading/index';
import { bareWordInReplyTo, regexBait } from '../test/fixtures/hostile.ts';

const DIR = join(import.meta.dirname, '../test/fixtures/bounces');
const REPLIES = join(import.meta.dirname, '../test/fixtures/replies/dev.jsonl');

/** The best of `runs` timings of `work` (ms), after one warm-up: a busy machine's noise only ever adds. */
async function best(runs: number, work: () => Promise<void>): Promise<number> {
  await work();
  let min = Infinity;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await work();
    min = Math.min(min, performance.now() - t);
  }
  return min;
}

export async function inboundFigures(): Promise<void> {
  const manifest = JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8')) as { emails: { file: string; addresser?: string }[] };
  const emails = manifest.emails.map((e) => ({
    raw: readFileSync(join(DIR, 'emails', e.file)),
    mailbox: e.addresser ?? 'sender@example.com',
  }));
  const bytes = emails.reduce((n, e) => n + e.raw.length, 0);
  const raw = await best(3, async () => {
    for (const e of emails)
      await simpleParser(e.raw, { skipHtmlToText: false, skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true });
  });
  const ours = await best(3, async () => {
    for (const e of emails) classify(await parseInbound(1, Date.now(), e.raw), e.mailbox);
  });
  console.log(
    `inbound: ${emails.length} corpus messages (${(bytes / 1024).toFixed(0)} KB) parsed and classified in ${ours.toFixed(0)} ms ` +
      `(${(ours / emails.length).toFixed(2)} ms each); mailparser alone ${raw.toFixed(0)} ms: ${(ours / raw).toFixed(2)}x the raw parse`,
  );
  for (const [name, message] of [
    ['regex bait (256 KB)', regexBait({ mailbox: 'rep@sender.example' })],
    ['bare-word In-Reply-To (3 kB)', bareWordInReplyTo({ mailbox: 'rep@sender.example', from: 'x@elsewhere.example' })],
  ] as const) {
    const alone = await best(3, async () => void (await simpleParser(message)));
    const read = await best(3, async () => void classify(await parseInbound(1, Date.now(), message), 'rep@sender.example'));
    console.log(
      `inbound: ${name}: ${read.toFixed(1)} ms to parse and classify; mailparser alone ${alone.toFixed(1)} ms: ${(read / alone).toFixed(2)}x`,
    );
  }
  await replyReadingFigure();
}

/** readReply over the dev replies, as the poller calls it, against lower-casing and splitting the same texts. */
async function replyReadingFigure(): Promise<void> {
  const replies = readFileSync(REPLIES, 'utf8')
    .trim()
    .split('\n')
    .map(
      (line) =>
        JSON.parse(line) as { sentAt: string; sent: { fromEmail: string }; reply: { text: string; fromEmail: string; fromName: string } },
    );
  const inputs = replies.map((r) => ({
    text: r.reply.text,
    fromEmail: r.reply.fromEmail,
    fromName: r.reply.fromName,
    writtenAt: Date.parse(r.sentAt),
    ownAddresses: [r.sent.fromEmail],
  }));
  const rounds = 20;
  let sink = 0;
  const raw = await best(5, async () => {
    for (let i = 0; i < rounds; i++) for (const input of inputs) sink += input.text.toLowerCase().split('\n').length;
  });
  const ours = await best(5, async () => {
    for (let i = 0; i < rounds; i++) for (const input of inputs) sink += readReply(input).ownWords.length;
  });
  const each = (ms: number) => (ms * 1000) / (rounds * inputs.length);
  console.log(
    `replies: ${inputs.length} dev replies read by the rules in ${each(ours).toFixed(0)} µs each; ` +
      `lower-casing and splitting them into lines alone ${each(raw).toFixed(1)} µs: ${(ours / raw).toFixed(0)}x the raw pass` +
      (sink < 0 ? '' : ''),
  );
  // Hostile own words: 64 KB that stop at no quote, signature or sentence.
  for (const [name, text] of [
    ['64 KB of header labels', 'From: x\n'.repeat(8000)],
    ['64 KB of negations and removal verbs', 'not no never remove me from '.repeat(2400)],
  ] as const) {
    const alone = await best(3, async () => void (sink += text.toLowerCase().split('\n').length));
    const read = await best(3, async () => void (sink += readReply({ text, writtenAt: Date.now() }).ownWords.length));
    console.log(`replies: ${name}: ${read.toFixed(1)} ms to read; lower-case and split alone ${alone.toFixed(2)} ms`);
  }
}
