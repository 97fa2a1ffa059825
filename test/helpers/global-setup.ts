import type { TestProject } from 'vitest/node';
import { startDynamoLocal } from '@outbound/local/dynamo-local';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

/** Starts one in-memory DynamoDB Local for every test file (about 3 s), and stops it at the end. */
export default async function setup(project: TestProject) {
  const dynamo = await startDynamoLocal('memory');
  project.provide('dynamoEndpoint', dynamo.endpoint);
  return () => dynamo.stop();
}
