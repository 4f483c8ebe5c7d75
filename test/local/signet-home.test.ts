/** SIGNET_HOME, PORT and (the gateway) SIGNET_DYNAMODB_ENDPOINT with SIGNET_TABLE_NAME: the only variables the local tools read. */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { displayPath, givenDynamoDb, localEndpoint, localPaths, localPort, signetHome } from '../../local/signet-home';

/** Made-up folders for the pure path functions (nothing is created there). */
const REPO = join(tmpdir(), 'repo');
const ELSEWHERE = join(tmpdir(), 'signet-state');

test('SIGNET_HOME defaults to .signet under the current directory; a relative value is resolved', () => {
  expect(signetHome({}, REPO)).toBe(join(REPO, '.signet'));
  expect(signetHome({ SIGNET_HOME: ' state ' }, REPO)).toBe(join(REPO, 'state'));
  expect(signetHome({ SIGNET_HOME: ELSEWHERE }, REPO)).toBe(ELSEWHERE);
});

test('PORT defaults to 3000, 0 is allowed, junk is refused naming the variable', () => {
  expect(localPort({})).toBe(3000);
  expect(localPort({ PORT: '0' })).toBe(0);
  expect(localPort({ PORT: '3001' })).toBe(3001);
  expect(localEndpoint({ PORT: '3001' })).toBe('http://127.0.0.1:3001');
  for (const bad of ['abc', '70000', '-1', '3.5']) expect(() => localPort({ PORT: bad })).toThrow(/^PORT must be a port number/);
});

test('the layout under SIGNET_HOME', () => {
  expect(localPaths('/h')).toEqual({
    home: '/h',
    adminDir: join('/h', 'admin'),
    demoDir: join('/h', 'demo'),
    dynamoDbDir: join('/h', 'dynamodb'),
    secretsManagerState: join('/h', 'secrets-manager.json'),
    secretsManagerCredentials: join('/h', 'secrets-manager-credentials.json'),
    localState: join('/h', 'local.json'),
    pidFile: join('/h', 'gateway.pid'),
  });
  expect(displayPath(join(REPO, '.signet', 'demo'), REPO)).toBe(join('.signet', 'demo'));
  expect(displayPath(ELSEWHERE, REPO)).toBe(ELSEWHERE);
});

test('SIGNET_DYNAMODB_ENDPOINT unset: the gateway runs DynamoDB Local itself (SIGNET_TABLE_NAME alone changes nothing); set: that DynamoDB, table signet-local-clients unless SIGNET_TABLE_NAME names another', () => {
  expect(givenDynamoDb({})).toBeUndefined();
  expect(givenDynamoDb({ SIGNET_DYNAMODB_ENDPOINT: ' ', SIGNET_TABLE_NAME: 'mine' })).toBeUndefined();
  expect(givenDynamoDb({ SIGNET_DYNAMODB_ENDPOINT: ' http://127.0.0.1:8000 ' })).toEqual({ endpoint: 'http://127.0.0.1:8000', tableName: 'signet-local-clients' });
  expect(givenDynamoDb({ SIGNET_DYNAMODB_ENDPOINT: 'http://dynamodb-local:8000/', SIGNET_TABLE_NAME: 'team.signet-2' })).toEqual({ endpoint: 'http://dynamodb-local:8000', tableName: 'team.signet-2' });
  expect(givenDynamoDb({ SIGNET_DYNAMODB_ENDPOINT: 'https://ddb.example.test' })).toEqual({ endpoint: 'https://ddb.example.test', tableName: 'signet-local-clients' });
});

test('a SIGNET_DYNAMODB_ENDPOINT with a user name or password is refused without echoing it', () => {
  for (const withUser of ['http://admin:s3cret-pass@127.0.0.1:8000', 'http://s3cret-token@127.0.0.1:8000']) {
    let message = '';
    try {
      givenDynamoDb({ SIGNET_DYNAMODB_ENDPOINT: withUser });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^SIGNET_DYNAMODB_ENDPOINT must be the http:\/\/ or https:\/\/ URL of a DynamoDB you run, host and port only .*; got a URL with a user name or password\./);
    expect(message).not.toContain('s3cret');
  }
});

test('a SIGNET_DYNAMODB_ENDPOINT that is not an http(s) host and port, or a table name DynamoDB refuses, is named with what to do', () => {
  for (const bad of ['127.0.0.1:8000', 'ftp://127.0.0.1:8000', 'http://127.0.0.1:8000/tables', 'http://127.0.0.1:8000?x=1', 'not a url']) {
    expect(() => givenDynamoDb({ SIGNET_DYNAMODB_ENDPOINT: bad })).toThrow(
      `SIGNET_DYNAMODB_ENDPOINT must be the http:// or https:// URL of a DynamoDB you run, host and port only (e.g. http://127.0.0.1:8000); got ${JSON.stringify(bad)}. Unset it to have npm start run DynamoDB Local itself.`,
    );
  }
  for (const bad of ['ab', 'has space', 'ünï', 'x'.repeat(256)]) {
    expect(() => givenDynamoDb({ SIGNET_DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000', SIGNET_TABLE_NAME: bad })).toThrow(/^SIGNET_TABLE_NAME must be a DynamoDB table name \(3 to 255 letters, digits, '_', '-' or '\.'\); got "/);
  }
});
