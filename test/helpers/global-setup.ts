import type { TestProject } from 'vitest/node';
import { startDynamoLocal, type LocalCredentials } from '@outbound/local/dynamo-local';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
    /** Its database is reached only with these (made at its start). */
    dynamoCredentials: LocalCredentials;
  }
}

/** Starts one in-memory DynamoDB Local for every test file (about 3 s), and stops it at the end. */
export default async function setup(project: TestProject) {
  const dynamo = await startDynamoLocal('memory');
  project.provide('dynamoEndpoint', dynamo.endpoint);
  project.provide('dynamoCredentials', dynamo.credentials);
  return () => dynamo.stop();
}
