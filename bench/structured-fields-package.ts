/**
 * Signet's hand-written RFC 8941/9651 parser (lambda/core/structured-fields.ts) against the
 * `structured-headers` package, on the field values that reach the full parser (the fast paths
 * take only canonical single-member text; see signature-params.ts). This is the measurement
 * behind BENCHMARKS.md's "Why the structured-field parser is hand-written": the parser would have
 * given way to the package if nothing measured stood against it.
 *
 * - Speed: CPU µs per parse of each input, Signet's parser and the package's bare parse (an
 *   adapter would add the conversion of ArrayBuffers, the error mapping and the checks below on
 *   top, so the package figure is its lower bound). Contenders take turns in rounds; median.
 * - Conformance: inputs where the two disagree, with what RFC 9651 requires.
 *
 * Run alone: `npx tsx bench/structured-fields-package.ts`. Nothing here is asserted; the suite
 * that checks Signet's parser is test/core/structured-fields.test.ts.
 */
import { randomBytes } from 'node:crypto';
import * as pkg from 'structured-headers';
import { median } from './percentiles';
import * as signet from '../lambda/core/structured-fields';

type Kind = 'item' | 'list' | 'dictionary';

function parseWith(parser: typeof signet | typeof pkg, kind: Kind, value: string): unknown {
  return kind === 'item' ? parser.parseItem(value) : kind === 'list' ? parser.parseList(value) : parser.parseDictionary(value);
}

const signature = () => randomBytes(256).toString('base64');
const created = 1_700_000_000;
const params = `;created=${created};keyid="c_BenchClientAAAAAAAAAAAA";alg="rsa-v1_5-sha256"`;

/** Field values the fast paths hand to the full parser, and the worst one a stranger can send. */
export const SPEED_INPUTS: readonly { readonly name: string; readonly value: string }[] = [
  { name: 'Signature-Input, two signatures', value: `old=("@method" "@target-uri" "date")${params}, sig=("@method" "@target-uri" "content-digest" "date")${params}` },
  { name: 'Signature-Input, OWS after ";" and between members', value: `sig=("@method" "@target-uri" "date");created=${created};  keyid="c_x";alg="rsa-v1_5-sha256"` },
  { name: 'Signature, two 2048-bit signatures', value: `old=:${signature()}:, sig=:${signature()}:` },
  { name: 'Content-Digest, sha-512 and sha-256', value: `sha-512=:${randomBytes(64).toString('base64')}:, sha-256=:${randomBytes(32).toString('base64')}:` },
  {
    name: 'Signature-Input, 250 "@query-param";name=... (6.8 KB, bench/hostile-input.ts)',
    value: `sig=("@method" "@target-uri" "date" ${Array.from({ length: 250 }, (_, i) => `"@query-param";name="p${i}"`).join(' ')})${params}`,
  },
];

/** Inputs on which the package and RFC 9651 (and Signet) disagree. */
export const CONFORMANCE_INPUTS: readonly { readonly kind: Kind; readonly value: string; readonly rfc: string }[] = [
  { kind: 'item', value: '1.0', rfc: 'a Decimal (§3.3.2), re-serialized as 1.0 (RFC 9421 §2.1.1 re-serializes ;sf fields)' },
  { kind: 'item', value: '@1659578233;a=1', rfc: 'a Date with a parameter (§4.2.9 reads the integer; parameters follow)' },
  { kind: 'list', value: '@1, @2', rfc: 'a list of two Dates' },
  { kind: 'list', value: '(@1 @2)', rfc: 'an inner list of two Dates' },
  { kind: 'item', value: '@1 ', rfc: 'a Date with trailing SP (§4.2 discards it)' },
  { kind: 'item', value: '%"\u0100"', rfc: 'a failure: a field value is ASCII (the package returns "\\u0000")' },
];

function describe(parser: typeof signet | typeof pkg, kind: Kind, value: string): string {
  try {
    // The first bare item: descend through lists, inner lists and items.
    let bare = parseWith(parser, kind, value);
    while (Array.isArray(bare)) bare = bare[0];
    const shown = bare instanceof signet.Decimal ? `Decimal ${bare.value}` : bare instanceof Date ? `Date ${bare.getTime() / 1000}` : JSON.stringify(String(bare));
    return `parses (${typeof bare === 'number' ? `number ${bare}` : shown})`;
  } catch (error) {
    return `fails (${(error as Error).message.slice(0, 70)})`;
  }
}

export interface ParserComparison {
  readonly speed: readonly { readonly name: string; readonly bytes: number; readonly signetUs: number; readonly packageUs: number }[];
  readonly conformance: readonly { readonly value: string; readonly rfc: string; readonly signet: string; readonly pkg: string }[];
}

/** Each round times both parsers on one input for about `roundMs` of CPU each; median of `rounds`. */
export function compareParsers(rounds = 9, roundMs = 100): ParserComparison {
  const speed = SPEED_INPUTS.map(({ name, value }) => {
    const us = { signet: [] as number[], pkg: [] as number[] };
    for (let round = 0; round < rounds; round++) {
      for (const [label, parser] of [['signet', signet], ['pkg', pkg]] as const) {
        const start = process.cpuUsage();
        let calls = 0;
        let usedUs = 0;
        while (usedUs < roundMs * 1000) {
          for (let i = 0; i < 20; i++) parseWith(parser, 'dictionary', value);
          calls += 20;
          const used = process.cpuUsage(start);
          usedUs = used.user + used.system;
        }
        us[label].push(usedUs / calls);
      }
    }
    return { name, bytes: value.length, signetUs: median(us.signet), packageUs: median(us.pkg) };
  });
  const conformance = CONFORMANCE_INPUTS.map(({ kind, value, rfc }) => ({ value, rfc, signet: describe(signet, kind, value), pkg: describe(pkg, kind, value) }));
  return { speed, conformance };
}

export function printParserComparison(r: ParserComparison): string[] {
  return [
    ...r.speed.map((s) => `${s.name} (${s.bytes} B): Signet ${s.signetUs.toFixed(2)} µs, structured-headers ${s.packageUs.toFixed(2)} µs CPU per parse (×${(s.packageUs / s.signetUs).toFixed(1)})`),
    ...r.conformance.map((c) => `${JSON.stringify(c.value)}: RFC 9651: ${c.rfc}. Signet ${c.signet}; structured-headers ${c.pkg}`),
  ];
}

if (require.main === module) {
  for (const line of printParserComparison(compareParsers())) console.log(line);
}
