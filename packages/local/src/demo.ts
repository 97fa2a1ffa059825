/**
 * `npm run demo`: the engine doing its job in about a minute.
 *
 * Starts a local SMTP server that plays the mail provider (it keeps every
 * message and shows it), then, over HTTP like any client, creates a sending
 * domain with a postal address, a mailbox on that SMTP server, four leads and
 * a campaign with one follow-up, launches it and watches the eight emails
 * arrive. It uses an engine already running on PORT (or DEMO_URL) when there
 * is one, and otherwise starts its own in this process, in memory, with
 * TIME_SCALE=20000 so that a day of engine time passes in about 4 seconds.
 *
 *   npm run demo              run, summarize, stop
 *   npm run demo -- --keep    leave the engine running afterwards (to open the unsubscribe link)
 */
import { DemoError, say } from './demo/output.ts';
import { keepRunning, reportDone, reportMissing } from './demo/report.ts';
import { DemoRun } from './demo/run.ts';
import { EXPECTED } from './demo/scenario.ts';
import { checkLaunch, describeSink, findOrStartEngine, introduce, launch, newSender, setUp, signIn, startSink } from './demo/steps.ts';
import { watch } from './demo/watch.ts';

// The SDK's notice about its future Node 22 requirement is for the README, not for a demo.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const INTERRUPTED = 130;

async function main(keep: boolean): Promise<number> {
  const run = new DemoRun();
  try {
    introduce();
    const sender = newSender();
    const sinkReady = startSink(sender, run); // made ready while the engine starts
    const engine = await findOrStartEngine(run);
    if (run.interrupted) return INTERRUPTED;
    const smtp = await sinkReady;
    if (run.interrupted) return INTERRUPTED;
    describeSink(smtp);

    const api = await signIn(engine);
    const campaignId = await setUp(api, engine, sender, smtp, run);
    await checkLaunch(api, campaignId);
    const launchedAt = await launch(api, campaignId, engine);

    const arrived = await watch(api, smtp, campaignId, launchedAt, engine, run);
    if (run.interrupted) return INTERRUPTED;
    if (arrived.length < EXPECTED) {
      reportMissing(arrived, engine);
      return 1;
    }
    await reportDone(api, campaignId, arrived, launchedAt, engine, keep);
    if (engine.own && keep) await keepRunning(engine, run);
    return 0;
  } finally {
    await run.stop();
  }
}

main(process.argv.includes('--keep'))
  .then((code) => {
    say('Stopped everything the demo started.');
    process.exit(code);
  })
  .catch((err) => {
    console.error(err instanceof DemoError ? err.message : `The demo failed: ${err instanceof Error ? err.stack : String(err)}`);
    process.exit(1);
  });
