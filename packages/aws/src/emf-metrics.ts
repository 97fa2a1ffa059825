/**
 * The Metrics port on AWS: CloudWatch embedded metric format. Each count is
 * one JSON log line that CloudWatch Logs turns into a metric in the
 * `Outbound` namespace, with the installation (its table's name, unique per
 * stage) as the dimension: no API call, no permission beyond writing logs.
 */
import type { MetricName, Metrics } from '@outbound/core/ports/metrics';

export const NAMESPACE = 'Outbound';

export function emfMetrics(opts: { installation: string; write?: (line: string) => void; now?: () => number }): Metrics {
  const write = opts.write ?? ((line: string) => process.stdout.write(line + '\n'));
  const now = opts.now ?? Date.now;
  return {
    count(name: MetricName, value = 1) {
      write(
        JSON.stringify({
          _aws: {
            Timestamp: now(),
            CloudWatchMetrics: [{ Namespace: NAMESPACE, Dimensions: [['Installation']], Metrics: [{ Name: name, Unit: 'Count' }] }],
          },
          Installation: opts.installation,
          [name]: value,
        }),
      );
    },
  };
}
