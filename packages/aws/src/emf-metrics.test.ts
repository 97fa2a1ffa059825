import { describe, expect, it } from 'vitest';
import { emfMetrics } from './emf-metrics.ts';

describe('metrics on AWS (CloudWatch embedded metric format)', () => {
  it('writes one line per count that CloudWatch reads as a metric of the installation', () => {
    const lines: string[] = [];
    const metrics = emfMetrics({ installation: 'outbound-production-Table', write: (l) => lines.push(l), now: () => 1_764_000_000_000 });
    metrics.count('EmailsSent');
    metrics.count('LeadsImported', 250);
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      {
        _aws: {
          Timestamp: 1_764_000_000_000,
          CloudWatchMetrics: [{ Namespace: 'Outbound', Dimensions: [['Installation']], Metrics: [{ Name: 'EmailsSent', Unit: 'Count' }] }],
        },
        Installation: 'outbound-production-Table',
        EmailsSent: 1,
      },
      {
        _aws: {
          Timestamp: 1_764_000_000_000,
          CloudWatchMetrics: [
            { Namespace: 'Outbound', Dimensions: [['Installation']], Metrics: [{ Name: 'LeadsImported', Unit: 'Count' }] },
          ],
        },
        Installation: 'outbound-production-Table',
        LeadsImported: 250,
      },
    ]);
  });
});
