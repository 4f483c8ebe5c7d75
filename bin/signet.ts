/**
 * The `signet` command line. Each command lives in bin/commands/<name>.ts and exports
 * `run(argv): Promise<number>` (the exit code). Run it as `npx signet ...` or
 * `npm run -s signet -- ...` from the repo root, with no build step.
 */
import { SignetError } from '../lambda/core/errors';
import { UsageError } from './commands/args';
import * as accounts from './commands/accounts';
import * as clients from './commands/clients';
import * as explain from './commands/explain';
import * as keygen from './commands/keygen';
import * as keys from './commands/keys';
import * as request from './commands/request';
import * as rotate from './commands/rotate';
import * as sign from './commands/sign';
import * as verify from './commands/verify';

type Command = { summary: string; module: { run(argv: string[]): Promise<number> } };

const COMMANDS: Record<string, Command> = {
  keygen: { summary: 'keygen --out DIR [--bits 2048|3072|4096]', module: keygen },
  sign: { summary: 'sign --key FILE --client-id ID --method M --url URL [--data STR | --data-file FILE] [--created UNIX] [--legacy]', module: sign },
  verify: { summary: "verify --public-key FILE --method M --url URL -H 'Name: value' ... [--data STR | --data-file FILE] [--now UNIX] [--allow-legacy]", module: verify },
  explain: { summary: 'explain (same inputs as verify) [--client-id ID]: walks the troubleshooting checklist', module: explain },
  request: { summary: "request [--client DIR | --key FILE --client-id ID] [-X METHOD] URL [-d DATA | -d @FILE] [-H 'Name: value'] [-i]", module: request },
  clients: { summary: 'clients create|list|get|update|disable|enable|find|failures ... [--account ACCOUNT_ID] [--endpoint URL] [--admin DIR]', module: clients },
  accounts: { summary: 'accounts create|list|get|update|audit ... [--endpoint URL] [--admin DIR]', module: accounts },
  keys: { summary: 'keys add|remove|expiring ... [--endpoint URL] [--admin DIR]', module: keys },
  rotate: { summary: 'rotate [--secret-id ID] [--endpoint-dynamodb URL --endpoint-secrets URL --table NAME] [--region R] [--grace-seconds N] [--bits N] [--settle-seconds N]', module: rotate },
};

function usage(): string {
  return ['Usage: signet <command> [options]', '', ...Object.values(COMMANDS).map((c) => `  signet ${c.summary}`)].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(usage());
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (command === undefined) {
    console.error(`signet: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  try {
    return await command.module.run(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`signet ${name}: ${error.message}\nUsage: signet ${command.summary}`);
      return 2;
    }
    if (error instanceof SignetError) {
      console.error(`signet ${name}: ${error.code}: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`signet: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
