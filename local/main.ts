/**
 * `npm start`: the local gateway on DynamoDB Local, with the same handler code that runs in
 * Lambda. State under `$SIGNET_HOME` (default `.signet/`), served on 127.0.0.1:${PORT:-3000}.
 * Ctrl-C (SIGINT) or SIGTERM stops the gateway, DynamoDB Local and the Secrets Manager stand-in.
 * With `SIGNET_DYNAMODB_ENDPOINT` set, it uses that DynamoDB instead of starting one (and leaves it running).
 *
 * One line per request (`GET /api/echo 200 3ms`, with the refusal code when refused);
 * `npm start -- --verbose` also prints the handlers' JSON log lines (decisions, registry requests)
 * as CloudWatch would hold them. Warnings print on one line (./node-warnings.ts).
 */
import { checkPrerequisites, missingMessage } from '../scripts/prerequisites.cjs';
import { startLocalGateway } from './local-gateway';
import { printWarningsOnOneLine } from './node-warnings';
import { startOptions } from './start-options';
import { readyMessage } from './ready-message';
import { givenDynamoDb, localPort, signetHome } from './signet-home';

printWarningsOnOneLine('npm start');

async function main(): Promise<void> {
  const options = startOptions(process.argv.slice(2));
  if ('error' in options) {
    console.error(options.error);
    process.exit(2);
  }
  const dynamoDb = givenDynamoDb();
  // Java runs DynamoDB Local, and nothing else: a DynamoDB the user runs needs none here.
  const missing = checkPrerequisites('start', dynamoDb === undefined ? [] : ['java']).flatMap((p) => (p.problem === undefined ? [] : [missingMessage(p.id, p.problem)]));
  if (missing.length > 0) {
    for (const message of missing) console.error(message);
    if (dynamoDb === undefined && checkPrerequisites('start').some((p) => p.id === 'java' && p.problem !== undefined)) {
      console.error('  Or run a DynamoDB of your own and set SIGNET_DYNAMODB_ENDPOINT: npm start then needs no Java (docs/local-gateway.md).');
    }
    process.exit(1);
  }
  const home = signetHome();
  const port = localPort();
  console.log(`Starting Signet's local gateway (state in ${home}) ...`);
  const gateway = await startLocalGateway({ home, port, dynamoDb, log: (line) => console.log(line), verbose: options.verbose });

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    const services = dynamoDb === undefined ? 'the gateway, DynamoDB Local and the Secrets Manager stand-in' : `the gateway and the Secrets Manager stand-in (the DynamoDB on ${dynamoDb.endpoint} keeps running)`;
    console.log(`\n${signal}: stopping ${services} ...`);
    gateway.stop().then(
      () => {
        console.log('stopped.');
        process.exit(0);
      },
      (error: unknown) => {
        console.error(`could not stop cleanly: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  process.on('SIGHUP', stop);

  console.log(readyMessage(gateway));
  console.log(options.verbose ? "Each request below: its line, and the handlers' JSON log lines." : "Each request below on one line; `npm start -- --verbose` adds the handlers' JSON log lines.");
}

main().catch((error: unknown) => {
  console.error(`npm start failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
