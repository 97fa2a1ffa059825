import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { unitDeps } from '@outbound/core/testing/unit-deps';
import { handler as fallback } from '../http/fallback.ts';
import { fromLambdaEnvironment, inInvocation, withDeps } from './deps.ts';

const event = (routeKey: string, path: string): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: '',
    headers: {},
    requestContext: { requestId: 'apigw-req-1', http: { method: routeKey.split(' ')[0] ?? 'GET', path, sourceIp: '203.0.113.9' } },
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2;

const context = { awsRequestId: 'lambda-req-1', functionName: 'fallback', getRemainingTimeInMillis: () => 29_000 } as unknown as Context;

const lambdaEnv = {
  TABLE_NAME: 't',
  KMS_KEY_ID: 'k',
  QUEUE_URL_SEND: 'https://sqs.example/q',
  UPLOADS_BUCKET: 'b',
  AWS_REGION: 'eu-west-1',
};

afterEach(() => vi.restoreAllMocks());

describe('operating the engine on AWS', () => {
  it('answers every request, an error too, with API Gateway’s request id in x-request-id', async () => {
    const deps = unitDeps({ config: { publicBaseUrl: 'https://api.example.com', rateLimits: false, timeScale: 1 } });
    const missing = await withDeps(deps, () => fallback(event('$default', '/v1/nothing'), context));
    expect(missing.statusCode).toBe(404);
    expect(missing.headers).toMatchObject({ 'x-request-id': 'apigw-req-1' });
    const doc = await withDeps(deps, () => fallback(event('GET /v1/openapi.json', '/v1/openapi.json'), context));
    expect(doc.statusCode).toBe(200);
    expect(doc.headers).toMatchObject({ 'x-request-id': 'apigw-req-1' });
  });

  it('writes each log line with the Lambda request id, the function and whether the invocation was a cold start', () => {
    const lines: Record<string, unknown>[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (lines.push(JSON.parse(String(chunk))), true));
    const deps = fromLambdaEnvironment(lambdaEnv);
    inInvocation({ awsRequestId: 'a-1', functionName: 'sender' }, () => deps.log.info('first'));
    inInvocation({ awsRequestId: 'a-2', functionName: 'sender' }, () => deps.log.info('second'));
    deps.log.info('outside');
    expect(lines.map((l) => [l.msg, l.awsRequestId, l.functionName])).toEqual([
      ['first', 'a-1', 'sender'],
      ['second', 'a-2', 'sender'],
      ['outside', undefined, undefined],
    ]);
    expect(lines[1]!.coldStart).toBe(false);
    expect(typeof lines[0]!.coldStart).toBe('boolean');
  });

  it('takes its log level from LOG_LEVEL, and refuses a level it does not know', () => {
    const lines: Record<string, unknown>[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (lines.push(JSON.parse(String(chunk))), true));
    const deps = fromLambdaEnvironment({ ...lambdaEnv, LOG_LEVEL: 'warn' });
    deps.log.info('quiet');
    deps.log.warn('heard');
    expect(lines.map((l) => l.msg)).toEqual(['heard']);
    expect(() => fromLambdaEnvironment({ ...lambdaEnv, LOG_LEVEL: 'loud' })).toThrow('LOG_LEVEL: must be debug, info, warn or error');
  });
});
