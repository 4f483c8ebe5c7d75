/**
 * `signet clients` notes every client it shows whose network whitelist lets every address in
 * (`0.0.0.0`, any `/0`) or every IPv4 address (`::ffff:0:0/96`, IPv4 halves together), by the
 * core's one test (`listReach`), and says which.
 */
import { openToEveryoneNotes } from '../../bin/commands/clients';

const record = (clientId: string, networkWhitelist: string[]) => ({ clientId, name: 'x', networkWhitelist, roles: ['demo'] });

test.each([['0.0.0.0'], ['0.0.0.0/0'], ['::/0']])('a client open through %s gets a note naming it', (entry) => {
  const notes = openToEveryoneNotes({ status: 200, body: record('c_OpenOpenOpenOpenOpen0A', ['203.0.113.7', entry]) });
  expect(notes).toHaveLength(1);
  expect(notes[0]).toMatch(/c_OpenOpenOpenOpenOpen0A accepts signed requests from every address/);
  expect(notes[0]).toContain('signet clients update c_OpenOpenOpenOpenOpen0A --network');
});

test.each([[['::ffff:0:0/96']], [['::/80']], [['0.0.0.0/1', '128.0.0.0/1']], [['::ffff:0:0/96', '2001:db8:1::/48']]])(
  'a client open to every IPv4 address through %j gets a note saying every IPv4 address, not every address',
  (entries) => {
    const notes = openToEveryoneNotes({ status: 200, body: record('c_OpenOpenOpenOpenOpen0A', entries) });
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/c_OpenOpenOpenOpenOpen0A accepts signed requests from every IPv4 address/);
    expect(notes[0]).toContain('IPv6 callers only from its IPv6 entries');
    expect(notes[0]).toContain('signet clients update c_OpenOpenOpenOpenOpen0A --network');
  },
);

test('a list notes only the open clients; narrow lists and refusals get none', () => {
  const list = { status: 200, body: { clients: [record('c_A', ['::ffff:0:0/96']), record('c_B', ['203.0.113.0/24', '2001:db8::/32']), record('c_C', ['::ffff:0:0/97'])] } };
  expect(openToEveryoneNotes(list).map((n) => n.split(' ')[2])).toEqual(['c_A']);
  expect(openToEveryoneNotes({ status: 409, body: { error: 'version_conflict', message: 'x' } })).toEqual([]);
  expect(openToEveryoneNotes({ status: 200, body: { clientId: 'c_D', failures: [] } })).toEqual([]);
});
