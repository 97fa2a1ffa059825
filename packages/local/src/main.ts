/**
 * `npm start`: the whole engine on this machine, on the same handlers Lambda runs.
 */
import { engineOptionsFromEnv } from './config.ts';
import { startEngine } from './engine.ts';
import { terminalSink } from './pretty-log.ts';

// The SDK's notice about its future Node 22 requirement is for the README, not every start.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

async function main() {
  const options = engineOptionsFromEnv(process.env);
  console.log(`Starting Outbound (data in ${options.dataDir === 'memory' ? 'memory' : options.dataDir})…`);
  const engine = await startEngine({ ...options, sink: terminalSink() });
  const login = options.admin?.email ?? 'you@example.com';
  console.log(`
Outbound is listening on ${engine.url}
  Console:  ${engine.url}/  (open it in a browser and sign in)
  Sign in:  curl -s ${engine.url}/v1/auth/login -H 'content-type: application/json' \\
              -d '{"email":"${login}","password":"…"}'
${options.admin ? '' : '  No engine user was set: start with ADMIN_EMAIL and ADMIN_PASSWORD, or run `npm run user -- add EMAIL`.\n'}  Stop with Ctrl-C.
`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: finishing requests in flight, then stopping…`);
    await engine.stop();
    console.log('Stopped.');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err) => {
  console.error(`Outbound could not start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
