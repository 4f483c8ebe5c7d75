/**
 * The registry's messages name HTTP routes (`POST /registry/clients/{clientId}/keys`); a CLI user
 * needs the command that calls it. {@link withCliCommands} adds the command beside each route.
 */

/** Route pattern (method, path regex over the text after the method) → the command, `$1` the path's id. */
const ROUTES: ReadonlyArray<readonly [RegExp, (id: string) => string]> = [
  [/^GET \/registry\/clients\?fingerprint=\S*/, () => 'signet clients find --fingerprint FP'],
  [/^GET \/registry\/clients\/([^/\s.,)]+)\/auth-failures/, (id) => `signet clients failures ${id}`],
  [/^GET \/registry\/clients\/([^/\s.,)]+)\/audit/, (id) => `signet clients audit ${id}`],
  [/^POST \/registry\/clients\/([^/\s.,)]+)\/keys/, (id) => `signet keys add ${id} --public-key FILE`],
  [/^DELETE \/registry\/clients\/([^/\s.,)]+)\/keys\/[^/\s.,)]+/, (id) => `signet keys remove ${id} FINGERPRINT`],
  [/^POST \/registry\/clients\/([^/\s.,)]+)\/(disable|enable)/, (id) => `signet clients disable|enable ${id}`],
  [/^PATCH \/registry\/clients\/([^/\s.,)]+)/, (id) => `signet clients update ${id} ...`],
  [/^GET \/registry\/clients\/([^/\s.,)]+)/, (id) => `signet clients get ${id}`],
  [/^POST \/registry\/clients(?![/\w])/, () => 'signet clients create ...'],
  [/^GET \/registry\/clients(?![/\w])/, () => 'signet clients list'],
  [/^GET \/registry\/keys\/expiring/, () => 'signet keys expiring'],
  [/^GET \/registry\/accounts\/([^/\s.,)]+)\/audit/, (id) => `signet accounts audit ${id}`],
  [/^PATCH \/registry\/accounts\/([^/\s.,)]+)/, (id) => `signet accounts update ${id} ...`],
  [/^GET \/registry\/accounts\/([^/\s.,)]+)/, (id) => `signet accounts get ${id}`],
  [/^POST \/registry\/accounts(?![/\w])/, () => 'signet accounts create ...'],
  [/^GET \/registry\/accounts(?![/\w])/, () => 'signet accounts list'],
];

/** The CLI command for a route such as `GET /registry/clients/{clientId}`, or undefined. */
export function cliCommandFor(route: string): string | undefined {
  for (const [pattern, command] of ROUTES) {
    const match = pattern.exec(route);
    if (match !== null) return command(cliId(match[1]));
  }
  return undefined;
}

/** `message` with `` (`signet …`) `` after each registry route it names that has a command. */
export function withCliCommands(message: string): string {
  return message.replace(/\b(GET|POST|PATCH|DELETE) \/registry\/(?:<[^>]*>|[^\s,)<])*/g, (found) => {
    const dot = found.endsWith('.') ? '.' : '';
    const route = found.slice(0, found.length - dot.length);
    const command = cliCommandFor(route);
    return command === undefined || message.includes(command) ? found : `${route} (\`${command}\`)${dot}`;
  });
}

/** `{clientId}` → `CLIENT_ID`; a real id is kept. */
function cliId(id: string | undefined): string {
  if (id === undefined) return '';
  return /^\{(\w+)\}$/.test(id) ? id.slice(1, -1).replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase() : id;
}
