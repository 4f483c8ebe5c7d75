/** `signet sign`: prints the headers to send with a request, one `Name: value` per line. */
import { importPrivateKey } from '../../lambda/core/keys';
import { signRequest } from '../../lambda/core/sign';
import { displayName, optionalInt, parse, readBody, readText, required } from './args';

/** @public The command, called by bin/signet.ts through its module. */
export async function run(argv: string[]): Promise<number> {
  const { values } = parse(argv, {
    key: { type: 'string' },
    'client-id': { type: 'string' },
    method: { type: 'string' },
    url: { type: 'string' },
    data: { type: 'string' },
    'data-file': { type: 'string' },
    created: { type: 'string' },
    legacy: { type: 'boolean', default: false },
  });
  const privateKey = importPrivateKey(readText(required(values, 'key'))).key;
  const { headers } = signRequest({
    method: required(values, 'method'),
    url: required(values, 'url'),
    body: readBody(values),
    keyId: required(values, 'client-id'),
    privateKey,
    created: optionalInt(values, 'created') ?? Math.floor(Date.now() / 1000),
    legacy: values.legacy === true,
  });
  for (const [name, value] of Object.entries(headers)) console.log(`${displayName(name)}: ${value}`);
  return 0;
}
