/**
 * Watching the campaign go out. Each email is shown as it reaches the
 * sink (the first of each kind in full: headers, body, footer), and the
 * engine's queue counts are printed whenever they change.
 */
import type { Client } from './client.ts';
import { clock, indent, say } from './output.ts';
import type { DemoRun } from './run.ts';
import { DAY_MS, DEADLINE_MS, EXPECTED, TIME_SCALE } from './scenario.ts';
import { header, splitFooter, type Arrival, type SmtpSink } from './smtp-sink.ts';
import type { DemoEngine } from './steps.ts';

const SHOWN_HEADERS = ['From', 'To', 'Subject', 'Message-ID', 'In-Reply-To', 'References', 'List-Unsubscribe', 'List-Unsubscribe-Post'];

/**
 * Until every email arrived, the deadline passed or Ctrl-C. Returns the
 * arrivals as they stood then, so the report counts exactly what was shown.
 */
export async function watch(
  api: Client,
  smtp: SmtpSink,
  campaignId: string,
  launchedAt: number,
  engine: DemoEngine,
  run: DemoRun,
): Promise<Arrival[]> {
  const show = arrivalPrinter(smtp.arrivals, engine);
  for (const m of smtp.arrivals) show(m); // none yet, unless the engine was very quick
  smtp.listen(show);
  const pollQueue = queuePrinter(api, campaignId);

  const deadline = launchedAt + DEADLINE_MS;
  while (smtp.arrivals.length < EXPECTED && Date.now() < deadline && !run.interrupted) {
    await pollQueue();
    await run.pause(1_000);
  }
  smtp.listen(undefined);
  const arrived = smtp.arrivals.slice();
  // The last counts, all completed, close the picture.
  if (!run.interrupted && arrived.length >= EXPECTED) await pollQueue();
  return arrived;
}

/** One line per email; the first email and the first follow-up also in full. */
function arrivalPrinter(arrivals: Arrival[], engine: DemoEngine): (m: Arrival) => void {
  const seenKinds = new Set<'first' | 'follow-up'>();
  const byLead = new Map<string, Arrival[]>();
  return (m) => {
    const n = arrivals.indexOf(m) + 1;
    const earlier = byLead.get(m.to) ?? [];
    byLead.set(m.to, [...earlier, m]);
    const kind = m.inReplyTo.length || earlier.length ? 'follow-up' : 'first';
    let what = '(first email)';
    if (kind === 'follow-up') {
      const prev = earlier[earlier.length - 1];
      const re = m.subject.startsWith('Re: ');
      const threaded =
        Boolean(prev?.messageId) &&
        m.inReplyTo.length === 1 &&
        m.inReplyTo[0] === prev!.messageId &&
        m.references.includes(prev!.messageId!);
      const days =
        engine.own && prev ? `; ${(((m.receivedAt - prev.receivedAt) * TIME_SCALE) / DAY_MS).toFixed(1)} engine days after the first` : '';
      what = `(follow-up, ${re ? 'Re:' : 'no Re:'}, ${threaded ? 'threaded' : 'NOT threaded'}${days})`;
    }
    say(`[${n}/${EXPECTED}] ${clock(m.receivedAt)}  to ${m.to.padEnd(22)} "${m.subject}"  ${what}`);
    if (seenKinds.has(kind)) return;
    seenKinds.add(kind);
    say(kind === 'first' ? '    The first email as the provider received it:' : '    The first follow-up as the provider received it:');
    for (const name of SHOWN_HEADERS) {
      const value = header(m, name) ?? (kind === 'first' && name === 'In-Reply-To' ? '(none: this email starts the thread)' : '(none)');
      say(`      ${(name + ':').padEnd(23)}${value}`);
    }
    const { body, footer } = splitFooter(m.text);
    say('    Body:');
    say(indent(body, '      | '));
    say("    Footer (added by the engine: the domain's postal address, then the unsubscribe link):");
    say(footer ? indent(footer, '      | ') : '      (no footer found)');
  };
}

/** Prints the queue's counts when they change, and each engine note on one of this campaign's jobs once. */
function queuePrinter(api: Client, campaignId: string): () => Promise<void> {
  let lastCounts = '';
  const notes = new Set<string>();
  let pausedNoted = false;
  return async () => {
    const res = await api.request('GET', '/v1/queue/status').catch(() => undefined);
    if (!res || res.status !== 200) return;
    const c = res.body.counts as Record<string, number>;
    const line = `waiting ${c.waiting}, active ${c.active}, delayed ${c.delayed}, completed ${c.completed}, failed ${c.failed}`;
    if (line !== lastCounts) {
      lastCounts = line;
      say(`        ${clock()}  queue: ${line}`);
    }
    if (res.body.isPaused && !pausedNoted) {
      pausedNoted = true;
      say('        The engine\'s queue is paused, so nothing is sent: POST /v1/queue/pause {"paused":false} resumes it.');
    }
    for (const job of res.body.jobs as { campaignId: string; lastError: string | null }[]) {
      if (job.campaignId !== campaignId || !job.lastError || notes.has(job.lastError)) continue;
      notes.add(job.lastError);
      say(`        The engine notes on a job: ${job.lastError}`);
    }
  };
}
