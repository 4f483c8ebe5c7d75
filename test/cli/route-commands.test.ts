/** Registry messages that name an HTTP route also name the CLI command that calls it. */
import { cliCommandFor, withCliCommands } from '../../bin/commands/route-commands';
import { COMMANDS } from '../../bin/cli';
import { isGroup } from '../../bin/commands/help';

test.each([
  ['find it with GET /registry/clients?fingerprint=<key fingerprint>.', 'find it with GET /registry/clients?fingerprint=<key fingerprint> (`signet clients find --fingerprint FP`).'],
  ['Add the new key first (POST /registry/clients/{clientId}/keys), then remove this one.', 'Add the new key first (POST /registry/clients/{clientId}/keys (`signet keys add CLIENT_ID --public-key FILE`)), then remove this one.'],
  ['list clients with GET /registry/clients.', 'list clients with GET /registry/clients (`signet clients list`).'],
  ['List its keys with GET /registry/clients/c_abc.', 'List its keys with GET /registry/clients/c_abc (`signet clients get c_abc`).'],
  ['read GET /registry/clients/{clientId}/auth-failures for the reason', 'read GET /registry/clients/{clientId}/auth-failures (`signet clients failures CLIENT_ID`) for the reason'],
  ['list accounts with GET /registry/accounts.', 'list accounts with GET /registry/accounts (`signet accounts list`).'],
  ['no route here', 'no route here'],
])('%s', (message, expected) => {
  expect(withCliCommands(message)).toBe(expected);
});

test('every command named for a route exists', () => {
  const routes = ['GET /registry/clients', 'POST /registry/clients', 'GET /registry/clients/{clientId}', 'PATCH /registry/clients/{clientId}', 'POST /registry/clients/{clientId}/disable',
    'GET /registry/clients/{clientId}/auth-failures', 'POST /registry/clients/{clientId}/keys', 'DELETE /registry/clients/{clientId}/keys/{fingerprint}', 'GET /registry/keys/expiring',
    'GET /registry/accounts', 'POST /registry/accounts', 'GET /registry/accounts/{accountId}', 'PATCH /registry/accounts/{accountId}', 'GET /registry/accounts/{accountId}/audit'];
  for (const route of routes) {
    const command = cliCommandFor(route);
    expect({ route, command: command !== undefined }).toEqual({ route, command: true });
    const [, name, sub] = command!.split(' ');
    const help = COMMANDS[name].HELP;
    expect(isGroup(help) && sub.split('|').every((s) => s in help.subcommands)).toBe(true);
  }
});
