/**
 * What `npm start` prints once it serves: the services, the two clients, that loopback key
 * sources are accepted and how often they are refreshed, a line containing
 * `ready: <url>`, commands to copy and paste, and the client portal's URL with how to sign in.
 */
import { join } from 'node:path';
import type { LocalGateway } from './local-gateway';
import { portalUrl } from './portal-assets';
import { LOCAL_ENV, displayPath } from './signet-home';

/** The text printed when the gateway is ready. */
export function readyMessage(gateway: LocalGateway, cwd: string = process.cwd()): string {
  const { services, url } = gateway;
  const demoDir = shellWord(displayPath(services.demo.dir, cwd));
  const adminDir = shellWord(displayPath(services.admin.dir, cwd));
  const homeEnv = displayPath(services.paths.home, cwd) === '.signet' ? '' : `SIGNET_HOME=${shellWord(services.paths.home)} `;
  const portEnv = url.endsWith(':3000') ? '' : `PORT=${gateway.port} `;
  const env = `${homeEnv}${portEnv}`;
  const adminFile = (name: string): string => shellWord(displayPath(join(services.admin.dir, name), cwd));
  return [
    '',
    dynamoDbLine(services),
    `  Secrets Manager stand-in on ${services.secretsManager.endpoint} (demo key: secret ${services.state.demoSecretId})`,
    `  admin client ${services.admin.clientId} (registry:admin, ${services.admin.registration}) in ${adminDir}`,
    `  demo client  ${services.demo.clientId} (demo, ${services.demo.registration}) in ${demoDir}`,
    keySourcesLine(gateway.keySources.refreshMinutes),
    '',
    `ready: ${url}  (Ctrl-C to stop)`,
    '',
    'Try, from another terminal:',
    `  npm run -s signet -- request --client ${demoDir} '${url}/api/echo?x=1'`,
    `  npm run -s signet -- request --client ${demoDir} -X POST -H 'Content-Type: application/json' -d '{"hello":"world"}' '${url}/api/echo'`,
    `  ${env}npm run -s signet -- clients list`,
    '',
    `Client portal: ${portalUrl(url)}`,
    `  sign in with the admin key: choose ${adminFile('private.pkcs8.b64')} and ${adminFile('client-id')}, then "Use this key"`,
    '',
  ].join('\n');
}

/** Where the table is: DynamoDB Local this gateway runs (its pid), or the DynamoDB the user gave it. */
function dynamoDbLine({ dynamoDb, state }: LocalGateway['services']): string {
  return dynamoDb.origin === 'started'
    ? `  DynamoDB Local pid ${dynamoDb.pid ?? '?'} on ${dynamoDb.endpoint} (table ${state.tableName})`
    : `  DynamoDB on ${dynamoDb.endpoint} (${LOCAL_ENV.dynamoDbEndpoint}; table ${state.tableName}; not started nor stopped by this gateway)`;
}

/** The one line saying that this gateway, unlike a deployment, fetches key sources on this machine. */
export function keySourcesLine(refreshMinutes: number): string {
  return `  key sources: http://127.0.0.1 and http://localhost accepted besides https (local gateway only); refreshed every ${refreshMinutes} min`;
}

/** Quotes a path for a POSIX shell when it needs it. */
function shellWord(text: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
