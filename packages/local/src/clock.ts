import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { scaledClock, type Clock } from '@outbound/core/ports/clock';

interface Segment {
  wallStart: number;
  engineStart: number;
  scale: number;
}

/**
 * The engine clock of a local run. At TIME_SCALE 1, or in memory, it is the
 * scaled wall clock of this process. Faster and on disk, it runs from a
 * starting point kept in DATA_DIR, so a restart continues the engine's time
 * (the downtime included, scaled) instead of going back to the wall time:
 * the jobs and mailbox slots the last run booked ahead come due when they
 * should, not after the new process has caught up with hours of engine time.
 * Engine time never goes back, whatever TIME_SCALE the next run uses.
 */
export async function engineClock(dataDir: string, scale: number, wall: Clock): Promise<Clock> {
  if (scale === 1 || dataDir === 'memory') return scaledClock(scale, wall);
  const file = join(dataDir, 'clock.json');
  const saved = await readFile(file, 'utf8').then(
    (t) => JSON.parse(t) as Segment,
    () => undefined,
  );
  let segment = saved;
  if (!segment || segment.scale !== scale || !(segment.engineStart > 0)) {
    const now = wall.now();
    const reached = segment ? segment.engineStart + Math.floor((now - segment.wallStart) * segment.scale) : now;
    segment = { wallStart: now, engineStart: Math.max(reached, now), scale };
    await writeFile(file, JSON.stringify(segment), { mode: 0o600 });
  }
  const { wallStart, engineStart } = segment;
  return { now: () => engineStart + Math.floor((wall.now() - wallStart) * scale) };
}
