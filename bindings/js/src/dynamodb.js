// `oncely/dynamodb`: the DynamoDB store (needs @aws-sdk/client-dynamodb 3.x).
export { DynamoDBStore } from './stores/dynamodb.js';
