// DynamoDB for tests: a fresh table per test on the DynamoDB-compatible server at
// ONCELY_TEST_DYNAMODB_URL (scripts/with-dynamodb starts a throwaway one: moto's server mode).
// Without a server: a failure when ONCELY_REQUIRE_DYNAMODB=1 or CI is set, else a loud skip with
// the reason. Test credentials and a region are set when none are (the server accepts any).
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';

export const DYNAMODB_URL = process.env.ONCELY_TEST_DYNAMODB_URL;
const required = process.env.ONCELY_REQUIRE_DYNAMODB === '1' || !!process.env.CI;
for (const [k, v] of [['AWS_ACCESS_KEY_ID', 'testing'], ['AWS_SECRET_ACCESS_KEY', 'testing'], ['AWS_REGION', 'us-east-1'], ['AWS_DEFAULT_REGION', 'us-east-1']]) {
  process.env[k] ??= v;
}

/** Whether DynamoDB tests can run: a skip reason, or null. Throws when DynamoDB is required and unavailable. */
export async function dynamodbUnavailable() {
  let reason = null;
  if (!DYNAMODB_URL) reason = 'ONCELY_TEST_DYNAMODB_URL is not set (run under scripts/with-dynamodb)';
  else {
    try {
      await fetch(DYNAMODB_URL, { signal: AbortSignal.timeout(10_000) });
    } catch (e) {
      reason = `cannot reach DynamoDB at ${DYNAMODB_URL}: ${e.message}`;
    }
  }
  if (reason && required) throw new Error(`DynamoDB is required (ONCELY_REQUIRE_DYNAMODB=1 or CI) but ${reason}`);
  if (reason) console.warn(`\n*** SKIPPING DynamoDB tests: ${reason} ***\n`);
  return reason;
}

const made = [];

/** A ledger location on a table of its own (deleted by `dropTables`). */
export function freshTable(tag) {
  const table = `oncely_js_${tag}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  made.push(table);
  return `dynamodb://${table}?endpoint=${encodeURIComponent(DYNAMODB_URL)}`;
}

/** A raw client on the test server. */
export function rawClient() {
  return new DynamoDBClient({ endpoint: DYNAMODB_URL });
}

/** Delete every table `freshTable` named. */
export async function dropTables() {
  const c = rawClient();
  for (const TableName of made.splice(0)) {
    await c.send(new DeleteTableCommand({ TableName })).catch((e) => {
      if (e?.name !== 'ResourceNotFoundException') throw e;
    });
  }
  c.destroy();
}
