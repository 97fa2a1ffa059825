/**
 * The classifier measured on mail as the world sends it: 275 real notices
 * from Sisimai's set-of-emails (test/fixtures/bounces, its README gives the
 * licence and the category mapping), and our own complaints, automatic
 * answers and replies (test/fixtures/inbound.ts). Prints the accuracy per
 * family, for a held-back quarter of families and the rest, and the time the
 * whole corpus takes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { classify, type Classified } from '@outbound/core/inbound/classify';
import { parseInbound } from '@outbound/mail/inbound-parse';
import { inboundSamples, reply } from './fixtures/inbound.ts';

const DIR = join(import.meta.dirname, 'fixtures/bounces');

interface Recipient {
  address: string;
  reason: string;
  status: string;
  category: string;
}
interface Email {
  file: string;
  engine: string;
  category: 'hard' | 'soft' | 'complaint' | 'autoreply' | 'delivered' | 'human';
  recipients: Recipient[];
  originalMessageId: string | null;
  addresser: string | null;
}

const manifest = JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8')) as { emails: Email[] };
const sources = manifest.emails.map((e) => readFileSync(join(DIR, 'emails', e.file)));

/**
 * Where the engine reads a notice otherwise than Sisimai, on purpose. Each
 * entry was looked at; the test fails when one of them starts to agree (take
 * it off the list) and when any other email disagrees.
 */
const REVIEWED: Record<string, string> = {
  // docs/inbound.md's reason table: the sending host on a blocklist is a soft cause (the address is
  // fine); Sisimai calls these `blocked`, which the corpus maps to hard at 5.x.x.
  'lhost-amazonses-15.eml': 'sending host on a DNS blocklist ("Client host rejected: blocked using ..."): soft by our rule',
  'lhost-amazonses-16.eml': 'sending host on dnsbl.sorbs.net: soft by our rule',
  'lhost-exim-54.eml': '"part of their network is on our block list": the sender\'s network, soft by our rule',
  'lhost-sendmail-33.eml': '"IP address blacklisted by recipient": the sending IP, soft by our rule',
  'lhost-sendmail-36.eml': '"IP address blacklisted by recipient": the sending IP, soft by our rule',
  // Flagged in test/fixtures/bounces/README.md.
  'lhost-opensmtpd-12.eml': 'a delay notice ("Warning: ... will retry"), which the corpus calls hard; a delay fails no one',
  // A person forwarding a bounce to themself is not a mail system's notice; acting on forwarded text would let anyone forge one.
  'lhost-sendmail-14.eml': 'a bounce forwarded by the mailbox owner ("Fwd: Returned mail"), From the mailbox itself',
};

/**
 * Mail systems the rules were not tuned on: a quarter of the corpus set aside by family (the file name's
 * prefix, e.g. lhost-sendmail-*), so a rule that fits one family's wording and no other shows as a gap
 * between the two figures printed below. Chosen before the work on issue 31 changed any rule, by a rule that
 * looks at no reading: the families in the order of the SHA-256 of their names, each taken when it keeps the
 * total at or under 71 emails, until a quarter (69) is reached. 70 emails, 9 families.
 * Earlier work saw the whole corpus, so this is only a partial check (docs/inbound.md).
 */
const HELD_BACK = [
  'lhost-sendmail',
  'rhost-outlook',
  'lhost-zoho',
  'lhost-gmx',
  'rhost-franceptt',
  'lhost-yahoo',
  'lhost-v5sendmail',
  'lhost-exchange2003',
  'lhost-mailru',
];

/** The engine's answer, in the corpus's categories: a BOUNCE with any hard recipient is hard, with only soft ones (or IGNORE) soft. */
const categoryOf = (c: Classified) =>
  c.kind === 'BOUNCE'
    ? c.recipients.some((r) => r.hard)
      ? 'hard'
      : 'soft'
    : c.kind === 'COMPLAINT'
      ? 'complaint'
      : c.kind === 'AUTO_REPLY'
        ? 'autoreply'
        : c.kind === 'REPLY'
          ? 'human'
          : 'soft';

/** What is wrong with the reading of one email, as the manifest says it; [] when nothing. */
function problemsOf(e: Email, c: Classified): string[] {
  const problems: string[] = [];
  const want = e.category === 'delivered' ? 'soft' : e.category;
  if (categoryOf(c) !== want) problems.push(`read as ${categoryOf(c)} (${c.kind}), the manifest says ${e.category}`);
  if (c.kind === 'BOUNCE') {
    const got = c.recipients.filter((r) => r.hard).map((r) => r.recipient);
    for (const r of e.recipients)
      if (r.category === 'hard' && !got.includes(r.address.toLowerCase())) problems.push(`hard recipient ${r.address} not found`);
    if (e.originalMessageId && c.originalMessageId !== e.originalMessageId.toLowerCase())
      problems.push(`original Message-ID ${c.originalMessageId} instead of ${e.originalMessageId}`);
  }
  return problems;
}

async function readAll(): Promise<Classified[]> {
  const out: Classified[] = [];
  for (let i = 0; i < sources.length; i++)
    out.push(classify(await parseInbound(i + 1, Date.UTC(2026, 2, 3), sources[i]!), manifest.emails[i]!.addresser ?? 'sender@example.com'));
  return out;
}

describe('bounce corpus (Sisimai set-of-emails, 275 real notices)', () => {
  let readings: Classified[];
  let bestMs = Infinity;

  beforeAll(async () => {
    // A warm-up, then the best of two timed runs: the figure is what reading costs, not what JIT warm-up or a busy neighbour costs.
    readings = await readAll();
    for (let run = 0; run < 2; run++) {
      const started = performance.now();
      await readAll();
      bestMs = Math.min(bestMs, performance.now() - started);
    }
  }, 60_000);

  it('reads at least 97% as the manifest says, and prints the accuracy per family and for the held-back quarter', () => {
    const families = new Map<string, { ok: number; all: number }>();
    let ok = 0;
    manifest.emails.forEach((e, i) => {
      const family = families.get(e.engine) ?? { ok: 0, all: 0 };
      family.all++;
      if (!problemsOf(e, readings[i]!).length) {
        family.ok++;
        ok++;
      }
      families.set(e.engine, family);
    });
    const held = { ok: 0, all: 0 };
    for (const [name, f] of families) {
      if (!HELD_BACK.includes(name)) continue;
      held.ok += f.ok;
      held.all += f.all;
    }
    const rest = { ok: ok - held.ok, all: manifest.emails.length - held.all };
    const pct = (f: { ok: number; all: number }) => `${f.ok}/${f.all} (${((100 * f.ok) / f.all).toFixed(1)}%)`;
    console.log(`bounce corpus: held-back quarter (${HELD_BACK.join(', ')}): ${pct(held)}; the other three quarters: ${pct(rest)}`);
    const lines = [...families]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(
        ([name, f]) => `  ${name.padEnd(28)} ${String(f.ok).padStart(3)}/${String(f.all).padEnd(3)} ${((100 * f.ok) / f.all).toFixed(0)}%`,
      );
    console.log(
      `bounce corpus: ${ok}/${manifest.emails.length} read as the manifest says (${((100 * ok) / manifest.emails.length).toFixed(1)}%)\n${lines.join('\n')}`,
    );
    expect(ok / manifest.emails.length).toBeGreaterThanOrEqual(0.97);
  });

  it('suppresses no address the manifest calls a soft failure, but for a reviewed disagreement', () => {
    // A soft recipient read as hard would be BOUNCED and suppressed for good: the costliest misreading of a notice.
    const suppressed = manifest.emails.flatMap((e, i) => {
      const c = readings[i]!;
      if (c.kind !== 'BOUNCE') return [];
      return e.recipients
        .filter((r) => r.category === 'soft' && c.recipients.some((got) => got.recipient === r.address.toLowerCase() && got.hard))
        .map((r) => ({ file: e.file, line: `${e.file}: ${r.address} (${r.reason})` }));
    });
    console.log(`bounce corpus: soft failures read as hard: ${suppressed.length ? suppressed.map((s) => s.line).join('; ') : 'none'}`);
    expect(suppressed.filter((s) => !(s.file in REVIEWED)).map((s) => s.line)).toEqual([]);
  });

  it('reads none of the notices as a reply or an auto-reply', () => {
    const misread = manifest.emails
      .filter((_, i) => readings[i]!.kind === 'REPLY' || readings[i]!.kind === 'AUTO_REPLY')
      .map((e) => e.file);
    expect(misread).toEqual([]);
  });

  it('disagrees with the manifest only where a reviewed reason says why', () => {
    const disagreements = Object.fromEntries(
      manifest.emails.flatMap((e, i) => (problemsOf(e, readings[i]!).length ? [[e.file, problemsOf(e, readings[i]!).join('; ')]] : [])),
    );
    expect(
      Object.keys(disagreements)
        .filter((file) => !(file in REVIEWED))
        .map((file) => `${file}: ${disagreements[file]}`),
    ).toEqual([]);
    // A reviewed entry that now agrees is stale: take it off the list.
    expect(Object.keys(REVIEWED).filter((file) => !(file in disagreements))).toEqual([]);
  });

  it('every bounce gives each failed recipient a reason, a bare status and a short diagnostic', () => {
    for (const c of readings) {
      if (c.kind !== 'BOUNCE') continue;
      expect(c.recipients.length).toBeGreaterThan(0);
      for (const r of c.recipients) {
        expect(r.recipient).toMatch(/^[^\sA-Z@]+@[^\sA-Z@]+$/);
        expect(r.recipient.length).toBeLessThanOrEqual(320);
        expect(r.status).toMatch(/^[245]\.\d{1,3}\.\d{1,3}$/);
        expect(r.action).toBe(r.action.toLowerCase());
        expect((r.diagnostic ?? '').length).toBeLessThanOrEqual(300);
      }
      if (c.originalMessageId) expect(c.originalMessageId).toBe(c.originalMessageId.toLowerCase());
    }
  });

  it('classifies the whole corpus (parse and classify) in well under a second', () => {
    console.log(
      `bounce corpus: ${manifest.emails.length} messages parsed and classified in ${bestMs.toFixed(0)} ms (best of 2 after a warm-up; ${(bestMs / manifest.emails.length).toFixed(2)} ms each)`,
    );
    // The target is under 1 s on this machine; the bound here is loose so a busy machine never fails it.
    expect(bestMs).toBeLessThan(5000);
  });
});

describe('our own samples: complaints, automatic answers, replies, notices that look like replies', () => {
  const BOX = 'rita@sender.com';
  it('every one of the 120 labelled replies in six languages (test/fixtures/replies) is read as a reply', async () => {
    const rows = readFileSync(join(import.meta.dirname, 'fixtures/replies/dev.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; reply: { fromEmail: string; subject: string; text: string } });
    const kinds = await Promise.all(
      rows.map(
        async (r) =>
          [
            r.id,
            classify(
              await parseInbound(
                1,
                Date.UTC(2026, 2, 3),
                reply({
                  mailbox: BOX,
                  from: r.reply.fromEmail,
                  subject: r.reply.subject,
                  body: r.reply.text.replace(/\r?\n/g, '\r\n'),
                  inReplyTo: 'sent@sender.com',
                }),
              ),
              BOX,
            ).kind,
          ] as const,
      ),
    );
    expect(kinds.filter(([, kind]) => kind !== 'REPLY')).toEqual([]);
  });

  it.each(inboundSamples(BOX).map((s) => [s.name, s] as const))('%s', async (_, sample) => {
    const c = classify(await parseInbound(1, Date.UTC(2026, 2, 3), sample.raw), BOX);
    expect(categoryOf(c)).toBe(sample.category);
    if (sample.recipients) {
      const named = c.kind === 'COMPLAINT' ? c.recipients : c.kind === 'BOUNCE' ? c.recipients.map((r) => r.recipient) : [];
      expect(named).toEqual(sample.recipients);
    }
    if (sample.originalMessageId && (c.kind === 'COMPLAINT' || c.kind === 'BOUNCE'))
      expect(c.originalMessageId).toBe(sample.originalMessageId);
  });
});
