/**
 * Creating the client table outside CloudFormation: `npm start` (DynamoDB Local, persisted) and
 * the tests. In AWS the CDK `ClientRegistry` construct creates it from the same schema.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { errorName } from './store-errors';
import { TTL_ATTRIBUTE, createTableInput } from './table-schema';

/**
 * Creates the client table (with TTL on {@link TTL_ATTRIBUTE}) unless it exists, and waits until
 * it is active.
 * @returns whether the table was created now or already existed
 */
export async function ensureClientTable(client: DynamoDBClient, tableName: string): Promise<'created' | 'exists'> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return 'exists';
  } catch (error) {
    if (errorName(error) !== 'ResourceNotFoundException') throw error;
  }
  try {
    await client.send(new CreateTableCommand(createTableInput(tableName)));
  } catch (error) {
    // Someone else created it between the two calls.
    if (errorName(error) !== 'ResourceInUseException') throw error;
  }
  await waitUntilTableExists({ client, maxWaitTime: 60, minDelay: 1, maxDelay: 2 }, { TableName: tableName });
  await client.send(
    new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true } }),
  );
  return 'created';
}
