import type { ShippedStore } from './index.js';

/**
 * The DynamoDB store (@aws-sdk/client-dynamodb 3.x): one table, an item per entry (partition key
 * the scope, sort key the key), the same items as the Python store's (docs/operations.md).
 */
export interface DynamoDBStore extends ShippedStore {}
export class DynamoDBStore {
  /**
   * Open the ledger at `dynamodb://TABLE?region=…&endpoint=…` (region and endpoint optional:
   * the SDK's defaults apply; credentials come from the SDK's chain), creating the table
   * (on-demand billing) when it does not exist and checking its keys and indexes when it does.
   * `clientOptions` go to `DynamoDBClient`.
   */
  static open(location: string, clientOptions?: Record<string, unknown>): Promise<DynamoDBStore>;
  /** A store over a `DynamoDBClient` and a table that is a ledger's. */
  constructor(client: unknown, table: string);
  readonly client: any;
  readonly table: string;
}
