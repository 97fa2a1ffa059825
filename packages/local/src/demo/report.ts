/** The demo's last word: what went missing, or the summary of a complete run. */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from './client.ts';
import { say } from './output.ts';
import type { DemoRun } from './run.ts';
import { DEADLINE_MS, EXPECTED, LEADS } from './scenario.ts';
import { header, type Arrival } from './smtp-sink.ts';
import type { DemoEngine } from './steps.ts';

const sentTo = (arrivals: Arrival[], email: string) => arrivals.filter((m) => m.to === email);

/** Which emails did not arrive, and where to look. */
export function reportMissing(arrivals: Arrival[], engine: DemoEngine): void {
  say();
  say(`Only ${arrivals.length} of ${EXPECTED} emails arrived within ${DEADLINE_MS / 1000} seconds. Missing:`);
  for (const lead of LEADS) {
    const got = sentTo(arrivals, lead.email).length;
    if (got === 0) say(`  - the first email and the follow-up to ${lead.email}`);
    else if (got === 1) say(`  - the follow-up to ${lead.email}`);
  }
  if (!engine.own)
    say("The engine runs at its own TIME_SCALE: start it with TIME_SCALE=20000 to see the whole sequence in the demo's time.");
  else say('The queue counts and any engine notes above say where the rest is.');
}

/** How long the sequence took, the leads' statuses and the unsubscribe link to try. */
export async function reportDone(
  api: Client,
  campaignId: string,
  arrivals: Arrival[],
  launchedAt: number,
  engine: DemoEngine,
  keep: boolean,
): Promise<void> {
  const lastAt = Math.max(...arrivals.map((m) => m.receivedAt));
  // A lead's status moves once the engine records its last send: give it a moment.
  let leads: { email: string; status: string }[] = [];
  for (let i = 0; i < 50; i++) {
    leads = (await api.expect('Listing the leads', 200, 'GET', `/v1/leads?campaignId=${campaignId}`)).leads;
    if (leads.every((l) => l.status === 'COMPLETED')) break;
    await sleep(200);
  }
  const row = await api.expect('Reading the campaign', 200, 'GET', `/v1/campaigns/${campaignId}`);
  const ada = sentTo(arrivals, LEADS[0]!.email)[0] ?? arrivals[0]!;
  const unsubscribe = (header(ada, 'List-Unsubscribe') ?? '').replace(/^<|>$/g, '');

  say();
  say(
    `Done: all ${EXPECTED} emails arrived, ${((lastAt - launchedAt) / 1000).toFixed(1)} seconds after the launch. The engine counts ${row.sentCount ?? '?'} sent for this campaign.`,
  );
  say('Lead statuses (GET /v1/leads):');
  for (const l of leads) say(`  ${l.email.padEnd(24)}${l.status}`);
  say('COMPLETED: the lead got the whole sequence. A reply, a bounce or an unsubscribe would have stopped it early.');
  say();
  say(`Unsubscribe link of the email to ${ada.to}:`);
  say(`  ${unsubscribe}`);
  say('Open it in a browser: the page changes nothing until you press the button (mail scanners follow links).');
  if (engine.own && !keep) {
    say('This engine stops with the demo, so the link works only while it runs: `npm run demo -- --keep` leaves it running.');
  }
}

/** `--keep`: the demo's own engine serves the unsubscribe link until Ctrl-C. */
export async function keepRunning(engine: DemoEngine, run: DemoRun): Promise<void> {
  say();
  say(`The engine keeps running on ${engine.url} for that link. Ctrl-C stops it.`);
  await run.untilInterrupted();
}
