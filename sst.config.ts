/**
 * SST entry point: thin. Everything it deploys comes from the manifest
 * (functions/src/manifest.ts) through stacks/index.ts; see docs/deploy.md.
 * `$config`, `sst` and `aws` are the globals SST provides when it runs this
 * file; stacks/sst-globals.d.ts types the part we use.
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
    return deploy({
      stage: $app.stage,
      Dynamo: sst.aws.Dynamo,
      Queue: sst.aws.Queue,
      ApiGatewayV2: sst.aws.ApiGatewayV2,
      Cron: sst.aws.Cron,
      KmsKey: aws.kms.Key,
      Bucket: sst.aws.Bucket,
    });
  },
});
