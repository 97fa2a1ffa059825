/**
 * SST entry point: thin. Everything it deploys comes from the manifest
 * (functions/src/manifest.ts) through stacks/index.ts; docs/deploy.md is the
 * operator's guide. `$config`, `$app`, `sst` and `aws` are the globals SST
 * provides when it runs this file; stacks/sst-globals.d.ts types the part we
 * use (stacks/platform.ts says why not SST's own).
 */
export default $config({
  app(input) {
    return {
      name: 'outbound',
      home: 'aws',
      // Lead data is never lost to a teardown of a production stage.
      removal: input?.stage === 'production' ? 'retain' : 'remove',
      protect: input?.stage === 'production',
    };
  },
  async run() {
    const { deploy } = await import('./stacks/index.ts');
    return deploy(
      {
        stage: $app.stage,
        Function: sst.aws.Function,
        Dynamo: sst.aws.Dynamo,
        Queue: sst.aws.Queue,
        ApiGatewayV2: sst.aws.ApiGatewayV2,
        Cron: sst.aws.Cron,
        Secret: sst.Secret,
        Bucket: sst.aws.Bucket,
        KmsKey: aws.kms.Key,
        Topic: aws.sns.Topic,
        TopicSubscription: aws.sns.TopicSubscription,
        MetricAlarm: aws.cloudwatch.MetricAlarm,
      },
      {
        // Chosen by the operator at deploy time (docs/deploy.md).
        domain: process.env.OUTBOUND_DOMAIN || undefined,
        domainCertArn: process.env.OUTBOUND_DOMAIN_CERT_ARN || undefined,
        alarmEmail: process.env.OUTBOUND_ALARM_EMAIL || undefined,
        dnsServers: process.env.OUTBOUND_DNS_SERVERS || undefined,
        logLevel: process.env.OUTBOUND_LOG_LEVEL || undefined,
      },
    );
  },
});
