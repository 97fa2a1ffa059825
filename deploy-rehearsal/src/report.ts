/**
 * What one rehearsed stage hands the checks: every resource Pulumi was asked
 * to create, with its inputs as SST resolved them, and every failure the run
 * raised. Plain data, so the checks (checks.ts) run without Pulumi.
 */
export interface Recorded {
  /** Pulumi type token, e.g. `aws:lambda/function:Function`. */
  type: string;
  /** Logical name (the component's name plus SST's suffix). */
  name: string;
  inputs: Record<string, any>;
  /** The outputs the mocks answered with (arn, name, url...). */
  outputs: Record<string, any>;
  /** Pulumi's resource options as SST left them: kept (not deleted) on `sst remove`. */
  retainOnDelete?: boolean;
  protect?: boolean;
  /** The resource's URN, and the URNs of the resources it depends on as Pulumi sends them to its engine, which creates those first and deletes them after. */
  urn?: string;
  dependencies?: string[];
}

export interface StageReport {
  stage: string;
  resources: Recorded[];
  /** Errors thrown by SST's own checks or inside its outputs, as their messages. */
  errors: string[];
}
