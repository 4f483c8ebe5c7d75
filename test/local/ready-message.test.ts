/** `npm start`'s ready message: the URL, commands to paste, and where the portal is and how to sign in. */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LocalGateway } from '../../local/local-gateway';
import { readyMessage } from '../../local/ready-message';
import { localPaths } from '../../local/signet-home';

function gateway(home: string, port: number, dynamoDb: 'started' | 'given' = 'started'): LocalGateway {
  const paths = localPaths(home);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    stop: async () => undefined,
    keySources: { allowLocalHttp: true, refreshMinutes: 15 },
    services: {
      paths,
      dynamoDb: dynamoDb === 'started' ? { pid: 4242, endpoint: 'http://127.0.0.1:40000', origin: 'started' } : { pid: undefined, endpoint: 'http://127.0.0.1:8000', origin: 'given' },
      secretsManager: { endpoint: 'http://127.0.0.1:40001' },
      state: { tableName: 'signet-local-clients', demoSecretId: 'signet/local/demo' },
      admin: { dir: paths.adminDir, clientId: 'c_Admin0000000000000000', registration: 'created' },
      demo: { dir: paths.demoDir, clientId: 'c_Demo00000000000000000', registration: 'created' },
    },
  } as unknown as LocalGateway;
}

/** Made-up folders: the gateway's working directory, and a home elsewhere with a space in its name. */
const CWD = join(tmpdir(), 'project');
const OTHER_HOME = join(tmpdir(), 'other home');

test('the default home and port: ready line, commands, and the portal with how to sign in', () => {
  const cwd = CWD;
  const text = readyMessage(gateway(join(cwd, '.signet'), 3000), cwd);
  expect(text).toContain('ready: http://127.0.0.1:3000  (Ctrl-C to stop)');
  expect(text).toContain('\n  key sources: http://127.0.0.1 and http://localhost accepted besides https (local gateway only); refreshed every 15 min\n');
  expect(text).toContain("npm run -s signet -- request --client .signet/demo 'http://127.0.0.1:3000/api/echo?x=1'");
  expect(text).toContain('Client portal: http://127.0.0.1:3000/portal/');
  expect(text).toContain('sign in with the admin key: choose .signet/admin/private.pkcs8.b64 and .signet/admin/client-id, then "Use this key"');
});

test('another home and port are carried into the commands and the portal URL', () => {
  const text = readyMessage(gateway(OTHER_HOME, 3111), CWD);
  expect(text).toContain(`SIGNET_HOME='${OTHER_HOME}' PORT=3111 npm run -s signet -- clients list`);
  expect(text).toContain('Client portal: http://127.0.0.1:3111/portal/');
  expect(text).toContain(`choose '${join(OTHER_HOME, 'admin', 'private.pkcs8.b64')}' and '${join(OTHER_HOME, 'admin', 'client-id')}'`);
});

test('DynamoDB Local started by the gateway is shown with its pid; a DynamoDB the user gave, as not the gateway\'s to start or stop', () => {
  expect(readyMessage(gateway(join(CWD, '.signet'), 3000), CWD)).toContain('\n  DynamoDB Local pid 4242 on http://127.0.0.1:40000 (table signet-local-clients)\n');
  const given = readyMessage(gateway(join(CWD, '.signet'), 3000, 'given'), CWD);
  expect(given).toContain('\n  DynamoDB on http://127.0.0.1:8000 (SIGNET_DYNAMODB_ENDPOINT; table signet-local-clients; not started nor stopped by this gateway)\n');
  expect(given).not.toContain('DynamoDB Local pid');
});
