/**
 * `npm start` and `signet` print Node's warnings on one line each, and not the AWS SDK's notice
 * that its future releases will need Node 22 while they run on Node 20 with the pinned SDK;
 * `npm start -- --verbose` is the only flag `npm start` takes.
 */
import { isPinnedSdkNodeNotice, printWarningsOnOneLine } from '../../local/node-warnings';
import { startOptions } from '../../local/start-options';

/** The notice as @aws-sdk/core emits it (process.emitWarning with the name in the message). */
const SDK_NOTICE = `NodeVersionSupportWarning: The AWS SDK for JavaScript (v3)
versions published after the first week of January 2027
will require node >=22. You are running node v20.20.2.

To continue receiving updates to AWS services, bug fixes,
and security updates please upgrade to node >=22.

More information can be found at: https://a.co/c895JFp`;

test('the SDK notice is silent on Node 20; any other warning prints on one line; on Node 18 the notice would print', () => {
  const saved = process.listeners('warning');
  const lines: string[] = [];
  try {
    printWarningsOnOneLine('npm start', (line) => lines.push(line));
    // The one listener left is ours; Node calls it with each warning as below.
    const [listener] = process.listeners('warning');
    expect(process.listeners('warning')).toHaveLength(1);
    listener(Object.assign(new Error(SDK_NOTICE), { name: 'Warning' }));
    listener(Object.assign(new Error('something else\nwith a second line'), { name: 'DeprecationWarning' }));
  } finally {
    process.removeAllListeners('warning');
    for (const listener of saved) process.on('warning', listener);
  }
  expect(process.versions.node.split('.')[0] === '20' ? lines : lines.slice(-1)).toEqual(['npm start: DeprecationWarning: something else\n']);
  const notice = Object.assign(new Error(SDK_NOTICE), { name: 'Warning' });
  expect(isPinnedSdkNodeNotice(notice, '20.19.0')).toBe(true);
  expect(isPinnedSdkNodeNotice(notice, '18.20.0')).toBe(false);
  expect(isPinnedSdkNodeNotice(Object.assign(new Error('x'), { name: 'ExperimentalWarning' }), '20.19.0')).toBe(false);
});

test('npm start -- --verbose (or -v) asks for the JSON log lines; nothing else is taken', () => {
  expect(startOptions([])).toEqual({ verbose: false });
  expect(startOptions(['--verbose'])).toEqual({ verbose: true });
  expect(startOptions(['-v'])).toEqual({ verbose: true });
  expect(startOptions(['--verbos'])).toEqual({ error: expect.stringMatching(/^npm start takes only --verbose .*; got "--verbos"\.$/) });
});
