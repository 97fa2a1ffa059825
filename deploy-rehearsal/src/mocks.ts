/**
 * Pulumi mocks that stand in for AWS: every resource is "created" with the
 * outputs the components read back (ARNs, names, URLs), in the shapes AWS
 * gives them, and every data source SST calls answers as AWS would for one
 * account in one region. Each resource is recorded for the checks.
 */
import type { Recorded } from './report.ts';

export const ACCOUNT = '123456789012';
export const REGION = 'us-east-1';

interface MockResourceArgs {
  type: string;
  name: string;
  inputs: Record<string, any>;
}

/** The physical name AWS would use: SST passes one for most resources; otherwise Pulumi adds a random suffix to the logical name. */
const physical = (a: MockResourceArgs) => String(a.inputs.name ?? a.inputs.bucket ?? `${a.name}-a1b2c3d`);

function outputsOf(a: MockResourceArgs): Record<string, any> {
  const name = physical(a);
  const arn = (service: string, resource: string) => `arn:aws:${service}:${REGION}:${ACCOUNT}:${resource}`;
  switch (a.type) {
    case 'aws:lambda/function:Function':
      return {
        name,
        arn: arn('lambda', `function:${name}`),
        invokeArn: `arn:aws:apigateway:${REGION}:lambda:path/2015-03-31/functions/${arn('lambda', `function:${name}`)}/invocations`,
        qualifiedArn: arn('lambda', `function:${name}:$LATEST`),
      };
    case 'aws:iam/role:Role':
      return { name, arn: `arn:aws:iam::${ACCOUNT}:role/${name}` };
    case 'aws:sqs/queue:Queue':
      return { name, arn: arn('sqs', name), url: `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${name}` };
    case 'aws:dynamodb/table:Table':
      return { name, arn: arn('dynamodb', `table/${name}`), streamArn: arn('dynamodb', `table/${name}/stream/2026-01-01T00:00:00.000`) };
    case 'aws:s3/bucketV2:BucketV2':
    case 'aws:s3/bucket:Bucket':
      return {
        bucket: name,
        arn: `arn:aws:s3:::${name}`,
        bucketDomainName: `${name}.s3.amazonaws.com`,
        bucketRegionalDomainName: `${name}.s3.${REGION}.amazonaws.com`,
      };
    case 'aws:apigatewayv2/api:Api':
      return {
        apiEndpoint: `https://a1b2c3d4e5.execute-api.${REGION}.amazonaws.com`,
        executionArn: `arn:aws:execute-api:${REGION}:${ACCOUNT}:a1b2c3d4e5`,
        arn: `arn:aws:apigateway:${REGION}::/apis/a1b2c3d4e5`,
      };
    case 'aws:kms/key:Key':
      return { arn: arn('kms', 'key/1234abcd-12ab-34cd-56ef-1234567890ab'), keyId: '1234abcd-12ab-34cd-56ef-1234567890ab' };
    case 'aws:sns/topic:Topic':
      return { name, arn: arn('sns', name) };
    case 'aws:cloudwatch/logGroup:LogGroup':
      return { arn: arn('logs', `log-group:${name}`) };
    case 'aws:cloudwatch/eventRule:EventRule':
      return { name, arn: arn('events', `rule/${name}`) };
    case 'random:index/randomBytes:RandomBytes':
      return {
        base64: Buffer.alloc(a.inputs.length ?? 32, 7).toString('base64'),
        hex: Buffer.alloc(a.inputs.length ?? 32, 7).toString('hex'),
      };
    default:
      return a.inputs.name ? { name } : {};
  }
}

/** An IAM policy document as `aws.iam.getPolicyDocument` writes it (the parts SST uses). */
function policyJson(args: { statements?: any[] }): string {
  const statements = (args.statements ?? []).map((s) => {
    const st: Record<string, unknown> = { Effect: s.effect ?? 'Allow', Action: s.actions, Resource: s.resources };
    if (s.principals) st.Principal = Object.fromEntries(s.principals.map((p: any) => [p.type, p.identifiers]));
    if (s.conditions?.length) {
      const cond: Record<string, Record<string, string[]>> = {};
      for (const c of s.conditions) (cond[c.test] ??= {})[c.variable] = c.values;
      st.Condition = cond;
    }
    return st;
  });
  return JSON.stringify({ Version: '2012-10-17', Statement: statements });
}

/**
 * Pulumi hands a mock the inputs that derive from a secret (an sst.Secret linked to a function: its environment, and
 * then its name and ARN) wrapped in its secret marker. AWS gets the plain value; the checks read it as AWS would.
 */
const SECRET_SIG = '4dabf18193072939515e22adb298388d';
function revealed(value: any): any {
  if (Array.isArray(value)) return value.map(revealed);
  if (value && typeof value === 'object') {
    if (SECRET_SIG in value) return revealed(value.value);
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, revealed(v)]));
  }
  return value;
}

export function createMocks(recorded: Recorded[]) {
  return {
    newResource(raw: MockResourceArgs) {
      const a = { ...raw, inputs: revealed(raw.inputs) };
      const outputs = outputsOf(a);
      recorded.push({ type: a.type, name: a.name, inputs: a.inputs, outputs });
      return { id: String(outputs.name ?? outputs.bucket ?? `${a.name}-id`), state: { ...a.inputs, ...outputs } };
    },
    call(a: { token: string; inputs: Record<string, any> }) {
      switch (a.token) {
        case 'aws:index/getPartition:getPartition':
          return { partition: 'aws', dnsSuffix: 'amazonaws.com' };
        case 'aws:index/getRegion:getRegion':
          // @pulumi/aws 7 (SST 4) names the field `region`; 6 (SST 3) `name`.
          return { region: REGION, name: REGION, id: REGION };
        case 'aws:index/getCallerIdentity:getCallerIdentity':
          return { accountId: ACCOUNT, arn: `arn:aws:iam::${ACCOUNT}:user/rehearsal`, userId: 'AIDREHEARSAL' };
        case 'aws:iam/getPolicyDocument:getPolicyDocument':
          // SST reads `statements` back to decide whether a role gets an inline policy at all.
          return { ...a.inputs, json: policyJson(a.inputs), id: 'policy' };
        case 'aws:route53/getZone:getZone':
          return { zoneId: 'Z0REHEARSAL', name: a.inputs.name };
        default:
          throw new Error(`The rehearsal has no stand-in for the data source ${a.token}: add one to deploy-rehearsal/src/mocks.ts.`);
      }
    },
  };
}
