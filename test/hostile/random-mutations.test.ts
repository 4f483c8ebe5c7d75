/**
 * Property (fast-check): a random mutation of a valid signed request never gets through the
 * authorizer handler and the echo backend behind it, never crashes the handler, and is refused
 * with a code from ERROR_CODES.
 *
 * A mutation replaces, inserts or deletes characters in one place the signature protects: the
 * Signature-Input or Signature field, a covered header (Date, Content-Digest, Host), the method,
 * the path or the query. Some edits do not change the request the signature speaks about, and
 * those are skipped (`fc.pre`), because accepting them is correct:
 *   - SP/HTAB around a field value (not part of the value, RFC 9110 §5.5);
 *   - a Signature-Input whose `sig` member parses to the same components and parameters (RFC 8941
 *     allows optional spaces, and other members are ignored);
 *   - a Signature whose `sig` bytes decode the same (non-zero base64 pad bits are tolerated);
 *   - an event whose rebuilt URL candidates still include the signed URL (a Host in another
 *     letter case, for instance).
 * The check uses the same adapter and parsers as the handler, so "equivalent" means equivalent
 * for the verifier, not by guess.
 */
import fc from 'fast-check';
import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { adaptHttpApiEvent } from '../../lambda/adapters/http-api-event';
import { readSignatureInput, readSignatureValue } from '../../lambda/core/signature-params';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { startTestDynamoDb, type TestDynamoDb } from '../support/dynamodb';
import { AuthorizerModule, HTTP_API_HOST, Signer, authorizerEnv, httpApiAuthorizerEvent, loadAuthorizer, registerClient, sign } from '../authorizer/support';
import { ReasonTally, isKnownCode, verdictOf } from './hostile-support';
import { report } from '../support/report';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../../lambda/core/defaults';

let ddb: TestDynamoDb;
let authorizer: AuthorizerModule;
let partner: Signer;

beforeAll(async () => {
  ddb = await startTestDynamoDb();
  const tableName = await ddb.createTable();
  const store = new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  partner = await registerClient(store, { name: 'Mutation target', roles: ['partner'] });
  authorizer = loadAuthorizer(authorizerEnv(tableName, ddb.endpoint));
});

afterAll(async () => {
  await ddb?.stop();
});

const BODY = '{"amount":10,"currency":"EUR","note":"café"}';

interface Original {
  readonly event: APIGatewayRequestAuthorizerEventV2;
  readonly body?: string;
}

/** Valid signed requests, fresh for each property run (created = now). */
function originals(): Original[] {
  const get = { method: 'GET', url: `https://${HTTP_API_HOST}/api/echo?tag=a%20b&tag=c&q=%E2%9C%93` };
  const post = { method: 'POST', url: `https://${HTTP_API_HOST}/api/orders?id=42&dry-run=1`, body: BODY };
  return [
    { event: httpApiAuthorizerEvent(get, { headers: sign(get, partner).headers }) },
    { event: httpApiAuthorizerEvent(post, { headers: sign(post, partner).headers }), body: BODY },
  ];
}

type Target = 'signature-input' | 'signature' | 'date' | 'content-digest' | 'host' | 'method' | 'rawPath' | 'rawQueryString';
const TARGETS: readonly Target[] = ['signature-input', 'signature', 'date', 'content-digest', 'host', 'method', 'rawPath', 'rawQueryString'];

interface Edit {
  readonly kind: 'replace' | 'insert' | 'delete';
  /** Position as a fraction of the length (so it fits any value). */
  readonly at: number;
  readonly text: string;
}

const CHARS = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) },
  { weight: 1, arbitrary: fc.constantFrom('\t', '\u0000', '\r\n', 'é', '\u00a0', '🔑', '=', ':', ';', ',', '"', '\\', '(', ')', ' ') },
);

const EDIT: fc.Arbitrary<Edit> = fc.record({
  kind: fc.constantFrom('replace', 'insert', 'delete'),
  at: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
  text: fc.array(CHARS, { minLength: 1, maxLength: 3 }).map((a) => a.join('')),
});

function applyEdit(value: string, edit: Edit): string {
  const i = Math.min(value.length, Math.floor(edit.at * (value.length + (edit.kind === 'insert' ? 1 : 0))));
  switch (edit.kind) {
    case 'replace':
      return value.slice(0, i) + edit.text + value.slice(i + edit.text.length);
    case 'insert':
      return value.slice(0, i) + edit.text + value.slice(i);
    case 'delete':
      return value.slice(0, i) + value.slice(i + Math.max(1, edit.text.length));
  }
}

function mutate(original: Original, target: Target, edits: readonly Edit[]): APIGatewayRequestAuthorizerEventV2 | undefined {
  const event = structuredClone(original.event);
  const headers = (event.headers ??= {});
  const apply = (value: string) => edits.reduce(applyEdit, value);
  switch (target) {
    case 'method':
      event.requestContext.http.method = apply(event.requestContext.http.method);
      break;
    case 'rawPath':
      event.rawPath = apply(event.rawPath);
      event.requestContext.http.path = event.rawPath;
      break;
    case 'rawQueryString':
      event.rawQueryString = apply(event.rawQueryString);
      break;
    case 'host': {
      const host = apply(headers.host as string);
      headers.host = host;
      event.requestContext.domainName = host;
      break;
    }
    default: {
      const value = headers[target];
      if (value === undefined) return undefined; // e.g. content-digest on the GET
      headers[target] = apply(value);
    }
  }
  return event;
}

const OWS = /^[ \t]+|[ \t]+$/g;

/** What the verifier sees of a request, or undefined when the event cannot even be adapted. */
function meaning(event: APIGatewayRequestAuthorizerEventV2) {
  let adapted: ReturnType<typeof adaptHttpApiEvent>;
  try {
    adapted = adaptHttpApiEvent(event);
  } catch {
    return undefined;
  }
  const h = adapted.request.headers;
  const input = attempt(() => readSignatureInput(h['signature-input'] ?? '', 'sig'));
  const signature = attempt(() => readSignatureValue(h.signature ?? '', 'sig').toString('base64'));
  return {
    method: adapted.request.method,
    uris: adapted.targetUriCandidates,
    date: h.date?.replace(OWS, ''),
    digest: h['content-digest']?.replace(OWS, ''),
    input: input === undefined ? undefined : `${input.covered.map((c) => c.serialized).join(' ')}|${input.signatureParams}`,
    signature,
  };
}

function attempt<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch {
    return undefined;
  }
}

/** True when the mutated event means the same signed request as the original, for the verifier. */
function equivalent(original: APIGatewayRequestAuthorizerEventV2, mutated: APIGatewayRequestAuthorizerEventV2): boolean {
  const a = meaning(original);
  const b = meaning(mutated);
  if (a === undefined || b === undefined) return false;
  return (
    a.method === b.method &&
    b.uris.includes(a.uris[0]) &&
    a.date === b.date &&
    a.digest === b.digest &&
    b.input !== undefined &&
    a.input === b.input &&
    b.signature !== undefined &&
    a.signature === b.signature
  );
}

describe('random mutations of a valid signed request', () => {
  const tally = new ReasonTally();
  let skipped = 0;

  afterAll(() => {
    report(`random mutations tried: ${tally.total} (skipped as equivalent: ${skipped})\nper reason code:\n${tally.lines().join('\n')}`);
  });

  test('the unmutated requests are accepted (control)', async () => {
    for (const o of originals()) expect(await verdictOf(authorizer, o.event, o.body)).toEqual({ kind: 'accepted', stage: 'backend' });
  });

  test('never verify: refused with a stable code, never a crash, never let through', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(1), fc.constantFrom(...TARGETS), fc.array(EDIT, { minLength: 1, maxLength: 3 }), async (which, target, edits) => {
        const original = originals()[which];
        const mutated = mutate(original, target, edits);
        fc.pre(mutated !== undefined);
        if (equivalent(original.event, mutated!)) {
          skipped += 1;
          fc.pre(false);
        }
        const verdict = await verdictOf(authorizer, mutated!, original.body);
        switch (verdict.kind) {
          case 'accepted':
            tally.add('ACCEPTED');
            throw new Error(`a mutation of ${target} was accepted: ${JSON.stringify(edits)}`);
          case 'crash':
            tally.add('CRASH');
            throw verdict.error;
          case 'fail-closed':
            tally.add(`${verdict.code} (fail closed)`);
            throw new Error(`fail-closed ${verdict.code} with DynamoDB up, for a mutation of ${target}`);
          case 'refused':
            tally.add(verdict.stage === 'backend' ? `${verdict.code} (backend body check)` : verdict.code);
            expect(isKnownCode(verdict.code)).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
  });
});
