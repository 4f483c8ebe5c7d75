/** SIGNET_HOME and PORT, the only variables the local tools read. */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { displayPath, localEndpoint, localPaths, localPort, signetHome } from '../../local/signet-home';

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
