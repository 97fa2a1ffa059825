/**
 * A second engine in a process of its own, for tests that need two
 * instances sharing one table. Options arrive as JSON in argv[2]; the URL is
 * printed as `listening <url>`; SIGTERM stops it.
 */
import { ManualClock } from '@outbound/core/ports/clock';
import { startEngine } from '@outbound/local/engine';

const { wallTime, ...opts } = JSON.parse(process.argv[2] ?? '{}');
const engine = await startEngine({ port: 0, sink: () => {}, ...opts, ...(wallTime ? { wallClock: new ManualClock(wallTime) } : {}) });
process.stdout.write(`listening ${engine.url}\n`);
process.on('SIGTERM', () => void engine.stop().then(() => process.exit(0)));
