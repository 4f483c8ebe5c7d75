/**
 * What `cdk synth` says after a successful synth of the Signet app (bin/app.ts prints it on
 * stderr, beside the CDK's own lines): a warning when no admin key was given (the stack would
 * have no registry admin: nobody could call the registry API), then the next steps: bootstrap,
 * deploy, and registering the first partner.
 */
import { dirname } from 'node:path';
import { CONTEXT_KEYS } from '../lib/app-context';

export interface SynthFacts {
  readonly stackName: string;
  /** True when `adminPublicKey` or `adminPublicKeyFile` was given. */
  readonly hasAdmin: boolean;
  /** Every context value given, from which the deploy line repeats the stack's own keys. */
  readonly context: Readonly<Record<string, unknown>>;
  /** Where the assembly was written (CDK_OUTDIR). @default 'cdk.out' */
  readonly outdir?: string;
}

/** The deploy line the admin example uses when none was given (docs/deploy.md). */
const ADMIN_DIR = 'prod-admin';

/** The lines to print, in order. */
export function synthNotes(facts: SynthFacts): string[] {
  const keys = new Set<string>(CONTEXT_KEYS);
  const given = Object.entries(facts.context)
    .filter(([key, value]) => keys.has(key) && value !== undefined && value !== null && value !== '')
    .map(([key, value]) => `-c ${key}=${shellWord(typeof value === 'string' ? value : JSON.stringify(value))}`);
  const deploy = facts.hasAdmin
    ? ['npx cdk deploy', ...given].join(' ')
    : ['npx cdk deploy', ...given, `-c adminPublicKeyFile=${ADMIN_DIR}/public.pem`].join(' ');
  // The admin's client directory: beside the public key given, else the one docs/deploy.md uses.
  const keyFile = facts.context.adminPublicKeyFile;
  const adminDir = typeof keyFile === 'string' && keyFile !== '' ? dirname(keyFile) : ADMIN_DIR;
  const lines: string[] = [];
  if (!facts.hasAdmin) {
    lines.push(
      `warning: no admin key given (adminPublicKey or adminPublicKeyFile): the stack "${facts.stackName}" will have no registry admin, so nobody can call its registry API to register a partner.`,
      `  Make a key pair and deploy with its public half: npm run -s signet -- keygen --out ${ADMIN_DIR} && ${deploy}`,
      '',
    );
  }
  lines.push(
    `Synthesized the stack "${facts.stackName}" into ${facts.outdir ?? 'cdk.out'}/. Next steps (docs/deploy.md):`,
    '  1. npx cdk bootstrap        # once per AWS account and region',
    `  2. ${deploy}`,
    `  3. write the AdminClientId output into ${adminDir}/client-id, then register the first partner (docs/partners.md):`,
    `     npm run -s signet -- clients create --endpoint <ApiUrl> --admin ${adminDir} --name 'Acme' --role demo --network 203.0.113.0/24 --public-key acme/public.pem`,
  );
  return lines;
}

/** Quotes a value for a POSIX shell when it needs it. */
function shellWord(text: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
