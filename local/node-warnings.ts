/**
 * Node's process warnings for Signet's commands (`npm start`, `signet`): one line each, and
 * none for the AWS SDK's `NodeVersionSupportWarning` on Node 20.
 *
 * Why that one is silenced: it says that SDK releases published after the first week of January
 * 2027 will require Node 22. Signet pins its SDK version (package.json), and the pinned release
 * runs on Node 20.19 and newer (`engines`); a later SDK comes only with a change of that pin,
 * which will raise `engines` to Node 22 in the same change. Until then the warning asks nothing of
 * a user of this repository, and printed on every start (eight lines) it hides the lines that
 * matter. Every other warning is still printed, on one line.
 */

/** True for the AWS SDK's notice about the Node versions its future releases will require, on Node 20. */
export function isPinnedSdkNodeNotice(warning: Error, nodeVersion: string = process.versions.node): boolean {
  return nodeVersion.split('.')[0] === '20' && `${warning.name} ${warning.message}`.includes('NodeVersionSupportWarning');
}

/** Replaces Node's warning printer: `<prefix>: <name>: <first line>` for each warning but the pinned SDK's notice. */
export function printWarningsOnOneLine(prefix: string, write: (line: string) => void = (line) => process.stderr.write(line)): void {
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    if (!isPinnedSdkNodeNotice(warning)) write(`${prefix}: ${warning.name}: ${warning.message.split('\n')[0]}\n`);
  });
}
