/**
 * Runs the `signet` command line in the test's own process: bin/cli.ts's `main(argv)` with the
 * given environment, its console and stdout/stderr writes captured, and a thrown error ended the
 * way bin/signet.ts ends it ("signet: <message>", exit 1). The answer has the shape of a child
 * process's, so a test reads it the same way.
 *
 * A child process costs half a second to a second (Node, tsx, the command's imports) on a busy
 * 2-core machine; this costs milliseconds. Tests that are about the process itself (the bin's
 * EPIPE handling, what a user's shell sees) still spawn it: test/local/gateway-process.ts's
 * `runSignet`.
 */
import { format } from 'node:util';
import { main } from '../../bin/cli';

export interface SignetRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function chunkText(chunk: unknown): string {
  return typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
}

export async function runSignetInProcess(args: readonly string[], env: NodeJS.ProcessEnv): Promise<SignetRun> {
  let stdout = '';
  let stderr = '';
  const toStdout = (...parts: unknown[]): void => void (stdout += `${format(...parts)}\n`);
  const toStderr = (...parts: unknown[]): void => void (stderr += `${format(...parts)}\n`);
  const spies = [
    jest.spyOn(console, 'log').mockImplementation(toStdout),
    jest.spyOn(console, 'info').mockImplementation(toStdout),
    jest.spyOn(console, 'error').mockImplementation(toStderr),
    jest.spyOn(console, 'warn').mockImplementation(toStderr),
    jest.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => ((stdout += chunkText(chunk)), true)),
    jest.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => ((stderr += chunkText(chunk)), true)),
  ];
  const savedEnv = process.env;
  process.env = { ...env };
  try {
    const code = await main([...args]);
    return { code, stdout, stderr };
  } catch (error: unknown) {
    stderr += `signet: ${error instanceof Error ? error.message : String(error)}\n`;
    return { code: 1, stdout, stderr };
  } finally {
    process.env = savedEnv;
    for (const spy of spies) spy.mockRestore();
  }
}
