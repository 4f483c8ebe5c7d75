/** SIGNET_PROFILE: the deployment's coverage profile (signet or rfc9421), read once by lambda/config.ts. */
import { loadConfig } from '../../lambda/config';
import { ENV } from '../../lambda/config-env';

const base = { [ENV.tableName]: 'signet-test' };

test('defaults to signet; takes rfc9421; refuses anything else, naming the choices', () => {
  expect(loadConfig(base).profile).toBe('signet');
  expect(loadConfig({ ...base, [ENV.profile]: ' rfc9421 ' }).profile).toBe('rfc9421');
  expect(() => loadConfig({ ...base, [ENV.profile]: 'RFC9421' })).toThrow('SIGNET_PROFILE must be one of signet, rfc9421; got "RFC9421".');
});
