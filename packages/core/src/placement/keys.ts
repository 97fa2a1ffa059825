import type { IndexQuery, Key } from '../ports/store.ts';

/**
 * A placement run: one sample email to each seed inbox, then a read of each.
 * Its probes are send jobs (sending/keys.ts) of kind `probe`, listed on gsi2
 * under the run.
 */
export const runKey = (id: string): Key => ({ pk: `PLACEMENT#${id}`, sk: 'RUN' });
/** gsi2: the runs of one domain, by id (ULIDs sort by start; read newest first). */
export const domainRuns = (domainId: string) => `DOMAIN#${domainId}#PLACEMENT`;
/** gsi3: runs not finished yet, which the placement tick moves on. */
export const OPEN_RUNS = 'PLACEMENT#OPEN';
/** An open run's row: listed under its domain (gsi2) and among the open runs the placement tick moves on (gsi3). */
export const runIndexes = (run: { id: string; domainId: string }) => ({
  gsi2pk: domainRuns(run.domainId),
  gsi2sk: run.id,
  gsi3pk: OPEN_RUNS,
  gsi3sk: run.id,
});
/** A finished run leaves the open runs; it stays listed under its domain. */
export const withoutOpenRunIndex = () => ['gsi3pk', 'gsi3sk'];
/** gsi2: the probes (send jobs) of one run. */
export const runProbes = (runId: string) => `PLACEMENT#${runId}#PROBES`;
/** A probe's job id: the run and the seed it samples. */
export const probeJobId = (runId: string, seedId: string) => `probe-${runId}-${seedId}`;

/** Access patterns: a domain's runs (newest first with `reverse`), a run's probes, the runs still open. */
export const runsOfDomain = (domainId: string): IndexQuery => ({ index: 'gsi2', pk: domainRuns(domainId) });
export const probesOfRun = (runId: string): IndexQuery => ({ index: 'gsi2', pk: runProbes(runId) });
export const openRuns = (): IndexQuery => ({ index: 'gsi3', pk: OPEN_RUNS });
