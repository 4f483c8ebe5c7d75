/**
 * `npm start`: the local gateway on DynamoDB Local, with the same handler code that runs in
 * Lambda. State under `$SIGNET_HOME` (default `.signet/`), served on 127.0.0.1:${PORT:-3000}.
 * Ctrl-C (SIGINT) or SIGTERM stops the gateway, DynamoDB Local and the Secrets Manager stand-in.
 */
import { checkPrerequisites, missingMessage } from '../scripts/prerequisites.cjs';
import { startLocalGateway } from './local-gateway';
import { readyMessage } from './ready-message';
import { localPort, signetHome } from './signet-home';

async function main(): Promise<void> {
  const missing = checkPrerequisites('start').flatMap((p) => (p.problem === undefined ? [] : [missingMessage(p.id, p.problem)]));
  if (missing.length > 0) {
    for (const message of missing) console.error(message);
    process.exit(1);
  }
  const home = signetHome();
  const port = localPort();
  console.log(`Starting Signet's local gateway (state in ${home}) ...`);
  const gateway = await startLocalGateway({ home, port, log: (line) => console.log(line) });

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the gateway, DynamoDB Local and the Secrets Manager stand-in ...`);
    gateway.stop().then(
      () => process.exit(0),
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
}

main().catch((error: unknown) => {
  console.error(`npm start failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
