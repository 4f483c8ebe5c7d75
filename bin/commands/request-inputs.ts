/** The inputs `signet verify` and `signet explain` share: a received request and a public key file. */
import { SignedRequest } from '../../lambda/core/types';
import { defaultVerifyPolicy, VerifyPolicy } from '../../lambda/core/verify';
import { headerLines, optionalInt, parse, readBody, readText, required } from './args';

export const RECEIVED_REQUEST_OPTIONS = {
  'public-key': { type: 'string' },
  method: { type: 'string' },
  url: { type: 'string' },
  H: { type: 'string', short: 'H', multiple: true },
  header: { type: 'string', multiple: true },
  data: { type: 'string' },
  'data-file': { type: 'string' },
  now: { type: 'string' },
  'allow-legacy': { type: 'boolean', default: false },
  'client-id': { type: 'string' },
} as const;

export interface ReceivedRequest {
  readonly request: SignedRequest;
  readonly body?: Buffer;
  readonly publicKeyText: string;
  readonly policy: VerifyPolicy;
  readonly clientId?: string;
}

/** Reads the request as the verifier received it (the method is NOT upper-cased here). */
export function readReceivedRequest(argv: string[], onBase?: (base: string) => void): ReceivedRequest {
  const { values } = parse(argv, { ...RECEIVED_REQUEST_OPTIONS });
  const headers = headerLines([...((values.H as string[]) ?? []), ...((values.header as string[]) ?? [])]);
  const body = readBody(values);
  const now = optionalInt(values, 'now');
  return {
    request: {
      method: required(values, 'method'),
      targetUri: required(values, 'url'),
      headers,
      hasBody: body !== undefined ? body.length > 0 : undefined,
    },
    body,
    publicKeyText: readText(required(values, 'public-key')),
    policy: defaultVerifyPolicy({
      allowLegacy: values['allow-legacy'] === true,
      ...(now !== undefined ? { nowS: () => now } : {}),
      ...(onBase ? { onBase } : {}),
    }),
    clientId: typeof values['client-id'] === 'string' ? values['client-id'] : undefined,
  };
}
