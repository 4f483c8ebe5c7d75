/**
 * Rotating a client's signing key with the four-step Secrets Manager protocol. The logic lives
 * here once; the Lambda handler (lambda/handlers/rotation.ts), the stand-in's rotation hook and
 * `signet rotate` only call {@link KeyRotation.run}.
 *
 * Steps (each starts with the protocol checks of ./rotation-protocol.ts):
 * - createSecret: a new RSA key into a version labelled AWSPENDING, named by the token. Rerun:
 *   the version exists, nothing is written.
 * - setSecret: the pending public key joins the client's record WITH A NOT-AFTER of
 *   now + max(grace, MIN_PENDING_KEY_TTL_S). Both keys verify; a rotation that never finishes
 *   leaves no key active beyond that. Rerun: already there, nothing written (an expired one is renewed).
 * - testSecret: a probe signed with the pending key verifies against the record through the
 *   core verifier (./rotation-probe.ts).
 * - finishSecret, in this order, so that a failure anywhere leaves the current key working:
 *     1. wait until authorizers' cached records include the new key (`settleMs`);
 *     2. clear the new key's not-after (it becomes permanent);
 *     3. give the previous key (the one AWSCURRENT holds) a not-after of now + grace (never later
 *        than one it already has);
 *     4. move AWSCURRENT to the token's version: the commit point. If 2-3 fail, their changes are
 *        undone (best effort) and the error is rethrown. If the move fails, the secret is described
 *        again: when AWSCURRENT did move (a call whose answer was lost after the service applied
 *        it), the finish goes on; when it did not, the changes are undone: AWSCURRENT, the old key
 *        and the pending key's expiry are as before, and the service's next attempt repeats the
 *        step; when the secret cannot be described, only the previous key's end is put back, so
 *        both keys verify whichever is current (a later finish ends the one left over: AWSPREVIOUS's
 *        key without an end gets one, like the previous key). A finish that moved AWSCURRENT then
 *        brings the record to a finished one, read again (another invocation may have undone it);
 *     5. take AWSPENDING off (a failure is only logged: AWS documents AWSPENDING left on the
 *        AWSCURRENT version as a finished rotation);
 *     6. remove keys whose not-after has passed, never the new key nor the last one (failures
 *        logged; the next rotation, or the store's addKey, removes them).
 *   Rerun: the token is AWSCURRENT, so the protocol check returns; the record is then only
 *   brought to what a finish leaves (the new key without a not-after, the previous one ending by
 *   now + grace), which changes nothing after a finish that completed, and mends one another
 *   invocation's undo reached after AWSCURRENT had moved.
 *
 * A change someone else makes to the record wins over rotation's later writes: the not-afters of 2
 * and 3 are written on the record read again after the settle wait, and they, the undo of 4, the
 * removals of 6 and the mend of a rerun each expect the record's version as rotation last wrote or
 * read it. When the record changed since (an operator cut a key short, or gave an expired key a
 * new life), that write fails with `version_conflict` and is logged. The undo then reads the
 * record again and puts back only the not-afters that still hold what the finish gave them (a
 * rename does not stop it); the removals and the mend leave the record as it is.
 *
 * The first rotation of a RotatingSigningKey starts from `{ "clientId": … }` (no key): there is no
 * previous key to expire, and keys the client already had are left as they are.
 */
import { DEFAULT_RSA_BITS, DEFAULT_ROTATION_GRACE_S } from '../core/defaults';
import { SignetError, isSignetError } from '../core/errors';
import { generateKeyPair, type KeyTypeName, keyTypeNameOf, type PrivateKeyInfo, spkiPemOf } from '../core/keys';
import { ParsedSigningSecret, parseSigningSecret, serializeSigningSecret, signingSecretFor } from '../signer/signing-secret';
import { ClientRecord, StoredPublicKey, isKeyActive } from '../domain/client-record';
import { probePendingKey } from './rotation-probe';
import { checkRotationProtocol, versionWithStage } from './rotation-protocol';
import {
  AWSCURRENT,
  AWSPENDING,
  AWSPREVIOUS,
  ROTATION_ACTOR,
  RotationEvent,
  RotationKeyRegistry,
  RotationLogger,
  RotationSecretStore,
  SecretDescription,
  StepResult,
} from './rotation-types';
import { clientIdOfSecret, keyOfSecret } from './secret-contents';

/** A key's not-after as it was before a finish changed it (for an undo). */
interface NotAfterChange {
  readonly fingerprint: string;
  /** The not-after it had, which an undo puts back. */
  readonly notAfter: string | undefined;
  /** The not-after rotation gave it. */
  readonly setTo: string | undefined;
}

/** The not-afters a finish (or a mend) changed, and the record's version after rotation's last write to it (or as read). */
interface NotAfterChanges {
  readonly changes: NotAfterChange[];
  version: number;
}

/** Reads of the client record a finish makes, at most, while someone else keeps changing it. */
const FINISH_READS = 3;

/**
 * Shortest validity of a key added by setSecret and not yet finished, in seconds: long enough
 * for testSecret and finishSecret (and the service's retries) even with a grace of 0. @default 900
 */
export const MIN_PENDING_KEY_TTL_S = 900;

export interface KeyRotationOptions {
  /** The secret (Secrets Manager, through `SecretsManagerSecretStore`). */
  readonly secrets: RotationSecretStore;
  /** The client registry (`DynamoClientStore`). */
  readonly registry: RotationKeyRegistry;
  /** RSA modulus of new keys, in bits. @default DEFAULT_RSA_BITS (2048) */
  readonly keyBits?: number;
  /** How long the previous key keeps verifying after finishSecret, in seconds. @default DEFAULT_ROTATION_GRACE_S (24 h) */
  readonly graceS?: number;
  /**
   * How long after setSecret added the new key finishSecret waits before making it AWSCURRENT,
   * in ms: the authorizer's client-cache TTL, so no authorizer still holds a record without the
   * new key when signers switch to it. Risk of 0: a signer that picks the new key up at once may
   * be refused by an authorizer with an older cached record until that cache entry expires.
   * @default 0
   */
  readonly settleMs?: number;
  /** The clock, ms since the epoch. @default Date.now */
  readonly nowMs?: () => number;
  /** Makes the new key: of the current key's type, RSA of `keyBits` bits. @default generateKeyPair (a fresh key) */
  readonly generateKey?: (type: KeyTypeName, rsaBits: number) => PrivateKeyInfo;
  /** How to wait `ms` (tests with a fake clock advance it instead). @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
  /** @default - no logging */
  readonly logger?: RotationLogger;
}

/** Per-invocation limits. */
export interface RunLimits {
  /** Longest settle wait this invocation can afford (the Lambda's remaining time, less a margin), in ms. @default - no limit */
  readonly maxSettleWaitMs?: number;
}

const SILENT: RotationLogger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * The rotation steps over a secret and the registry.
 *
 * @example
 * const rotation = new KeyRotation({ secrets: new SecretsManagerSecretStore(sm), registry: store, graceS: 86_400 });
 * export const handler = async (event: unknown) => { await rotation.run(parseRotationEvent(event)); };
 */
export class KeyRotation {
  private readonly secrets: RotationSecretStore;
  private readonly registry: RotationKeyRegistry;
  private readonly keyBits: number;
  private readonly graceS: number;
  private readonly settleMs: number;
  private readonly nowMs: () => number;
  private readonly generateKey: (type: KeyTypeName, rsaBits: number) => PrivateKeyInfo;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly log: RotationLogger;

  constructor(options: KeyRotationOptions) {
    this.secrets = options.secrets;
    this.registry = options.registry;
    this.keyBits = options.keyBits ?? DEFAULT_RSA_BITS;
    this.graceS = wholeNonNegative(options.graceS ?? DEFAULT_ROTATION_GRACE_S, 'graceS');
    this.settleMs = wholeNonNegative(options.settleMs ?? 0, 'settleMs');
    this.nowMs = options.nowMs ?? Date.now;
    this.generateKey = options.generateKey ?? generateKeyPair;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.log = options.logger ?? SILENT;
  }

  /**
   * Runs one step: the protocol checks, then the step.
   * @throws SignetError from the checks (`invalid_request`), the registry or the secret; the step's changes are then undone or harmless
   */
  async run(event: RotationEvent, limits: RunLimits = {}): Promise<StepResult> {
    const { Step: step, SecretId: secretId, ClientRequestToken: token } = event;
    const description = await this.secrets.describe(secretId);
    if (checkRotationProtocol(description, token, secretId) === 'current') {
      this.log.info('The version is already AWSCURRENT: that rotation has finished, nothing to do.', { step, secretId, versionId: token });
      if (step === 'finishSecret') await this.mendFinishedRecord(secretId, token, description);
      return { step, outcome: 'already_current' };
    }
    switch (step) {
      case 'createSecret':
        return this.createPendingVersion(secretId, token);
      case 'setSecret':
        return this.setSecret(secretId, token);
      case 'testSecret':
        return this.testSecret(secretId, token);
      case 'finishSecret':
        return this.finishSecret(secretId, token, description, limits);
    }
  }

  /**
   * createSecret's work without the protocol checks: a new key into version `token` with
   * AWSPENDING, unless that version already holds one. For a caller that plays the service's
   * part (`rotateNow`, which must create the pending version before the steps can run).
   */
  async createPendingVersion(secretId: string, token: string): Promise<StepResult> {
    const existing = await this.secrets.getVersion(secretId, { versionId: token, stage: AWSPENDING });
    if (existing !== undefined) {
      const parsed = parseSigningSecret(existing.secretString);
      this.log.info('createSecret: the pending version already holds a key.', { secretId, versionId: token, clientId: parsed.secret.clientId, fingerprint: parsed.key.fingerprint });
      return { step: 'createSecret', outcome: 'unchanged', clientId: parsed.secret.clientId, fingerprint: parsed.key.fingerprint };
    }
    const current = await this.currentValue(secretId);
    const clientId = clientIdOfSecret(current, secretId);
    // The new key is of the current key's type (an Ed25519 client stays Ed25519); RSA at keyBits.
    const key = this.generateKey(keyTypeNameOf(keyOfSecret(current)?.key.key ?? null), this.keyBits);
    const value = serializeSigningSecret(signingSecretFor(clientId, key, new Date(this.nowMs())));
    try {
      await this.secrets.putPendingVersion(secretId, token, value);
    } catch (error) {
      // Another invocation for the same token stored its key first: that key is the pending one.
      if (!(isSignetError(error) && error.code === 'version_conflict')) throw error;
      const winner = await this.pendingKey(secretId, token);
      return { step: 'createSecret', outcome: 'unchanged', clientId: winner.secret.clientId, fingerprint: winner.key.fingerprint };
    }
    this.log.info('createSecret: new key stored as AWSPENDING.', { secretId, versionId: token, clientId, fingerprint: key.fingerprint, bits: key.bits });
    return { step: 'createSecret', outcome: 'done', clientId, fingerprint: key.fingerprint };
  }

  private async setSecret(secretId: string, token: string): Promise<StepResult> {
    const pending = await this.pendingKey(secretId, token);
    const clientId = pending.secret.clientId;
    const owner = clientIdOfSecret(await this.currentValue(secretId), secretId);
    if (owner !== clientId) {
      throw new SignetError(
        'invalid_request',
        `The pending version of secret ${secretId} names client ${clientId}, but AWSCURRENT names ${owner}: a secret rotates one client's key. Start a new rotation.`,
      );
    }
    const fingerprint = pending.key.fingerprint;
    const record = await this.client(clientId);
    const now = this.nowMs();
    const pendingNotAfter = new Date(now + this.pendingValidityS() * 1000).toISOString();
    const present = record.keys.find((k) => k.fingerprint === fingerprint);
    if (present !== undefined) {
      if (isKeyActive(present, now)) {
        this.log.info('setSecret: the pending key is already on the client.', { clientId, fingerprint, notAfter: present.notAfter });
        return { step: 'setSecret', outcome: 'unchanged', clientId, fingerprint };
      }
      // A retry after the pending key's validity ran out: give it the pending validity again.
      await this.registry.setKeyNotAfter(clientId, fingerprint, pendingNotAfter, ROTATION_ACTOR);
      this.log.info('setSecret: the pending key had expired; renewed its pending validity.', { clientId, fingerprint, notAfter: pendingNotAfter });
      return { step: 'setSecret', outcome: 'done', clientId, fingerprint };
    }
    try {
      await this.registry.addKey(clientId, { fingerprint, spkiPem: spkiPemOf(pending.key.publicKey), algorithm: pending.key.algorithm, notAfter: pendingNotAfter }, ROTATION_ACTOR);
    } catch (error) {
      // Added meanwhile by a concurrent invocation for this client: the same result.
      if (!(isSignetError(error) && error.code === 'key_already_registered')) throw error;
      const again = await this.client(clientId);
      if (!again.keys.some((k) => k.fingerprint === fingerprint)) throw error;
      return { step: 'setSecret', outcome: 'unchanged', clientId, fingerprint };
    }
    this.log.info('setSecret: pending key added to the client (both keys verify).', { clientId, fingerprint, notAfter: pendingNotAfter });
    return { step: 'setSecret', outcome: 'done', clientId, fingerprint };
  }

  /** How long a pending key verifies from when setSecret adds or renews it: the grace, at least MIN_PENDING_KEY_TTL_S. */
  private pendingValidityS(): number {
    return Math.max(this.graceS, MIN_PENDING_KEY_TTL_S);
  }

  private async testSecret(secretId: string, token: string): Promise<StepResult> {
    const pending = await this.pendingKey(secretId, token);
    const clientId = pending.secret.clientId;
    const record = await this.client(clientId);
    probePendingKey({
      clientId,
      privateKey: pending.key.key,
      fingerprint: pending.key.fingerprint,
      record,
      nowS: Math.floor(this.nowMs() / 1000),
    });
    this.log.info('testSecret: a request signed with the pending key verifies against the registry.', { clientId, fingerprint: pending.key.fingerprint });
    return { step: 'testSecret', outcome: 'done', clientId, fingerprint: pending.key.fingerprint };
  }

  private async finishSecret(secretId: string, token: string, description: SecretDescription, limits: RunLimits): Promise<StepResult> {
    const pending = await this.pendingKey(secretId, token);
    const clientId = pending.secret.clientId;
    const fingerprint = pending.key.fingerprint;
    const record = await this.client(clientId);
    const newKey = record.keys.find((k) => k.fingerprint === fingerprint);
    if (newKey === undefined) {
      throw new SignetError(
        'not_found',
        `The pending key ${fingerprint} is not on client ${clientId}'s record, so it cannot become AWSCURRENT. Run setSecret and testSecret again (the service's next attempt does).`,
      );
    }
    const currentVersionId = versionWithStage(description, AWSCURRENT);
    const previous = await this.previousKey(secretId, currentVersionId, record, fingerprint);
    await this.settle(newKey, limits);

    const graceEnd = new Date(this.nowMs() + this.graceS * 1000).toISOString();
    const done: NotAfterChanges = { changes: [], version: record.version };
    // The previous key as the record holds it after the wait (cut short or removed meanwhile, say), for the log.
    let previousNow = previous;
    // A key of an older rotation that still has no end (an earlier finish whose outcome could not
    // be told left it so): AWSPREVIOUS's, which no signer reads any more once this finish moves.
    const stale = await this.keyWithoutEnd(secretId, versionWithStage(description, AWSPREVIOUS), record, [fingerprint, previous?.fingerprint]);
    let moveTried = false;
    try {
      previousNow = await this.finishNotAfters(clientId, fingerprint, previous?.fingerprint, graceEnd, done, stale);
      moveTried = true;
      await this.secrets.moveStage(secretId, AWSCURRENT, { toVersionId: token, fromVersionId: currentVersionId });
    } catch (error) {
      // Undoing after a move that did commit would leave the new AWSCURRENT key to expire and the
      // previous key without an end: only a move known not to have happened is undone.
      const moved = moveTried ? await this.moveOutcome(secretId, token) : 'not_moved';
      if (moved === 'not_moved') {
        await this.undo(clientId, done);
        throw error;
      }
      if (moved === 'unknown') {
        // Neither undone nor finished: the new key keeps no end and the previous key gets its own
        // back, so whichever version is AWSCURRENT, its key verifies. A rerun of finishSecret, or the
        // next rotation's finish (AWSPREVIOUS's key above), ends the one left over.
        await this.undo(clientId, { ...done, changes: done.changes.filter((change) => change.fingerprint !== fingerprint) });
        throw error;
      }
      this.log.warn('finishSecret: moving AWSCURRENT failed, but it did move (the answer was lost); finishing.', { secretId, versionId: token, reason: reasonOf(error) });
    }
    // Another invocation of this finish may have undone its not-afters before this one moved
    // AWSCURRENT: the record is brought to a finished one, read again. AWSCURRENT has moved
    // whatever this finds: a failure here is logged, and the service's rerun mends it.
    try {
      await this.mendFinishedRecord(secretId, token, await this.secrets.describe(secretId));
    } catch (error) {
      this.log.warn('finishSecret: AWSCURRENT moved; the record could not be read again to check it is a finished one (a rerun of finishSecret does).', { secretId, versionId: token, reason: reasonOf(error) });
    }

    try {
      await this.secrets.moveStage(secretId, AWSPENDING, { fromVersionId: token });
    } catch (error) {
      this.log.warn('finishSecret: AWSCURRENT moved, but AWSPENDING could not be removed (harmless: it sits on the current version).', { secretId, versionId: token, reason: reasonOf(error) });
    }
    const removed = await this.removeExpiredKeys(clientId, fingerprint);
    this.log.info('finishSecret: the new key is AWSCURRENT.', {
      secretId,
      versionId: token,
      clientId,
      fingerprint,
      previousFingerprint: previous?.fingerprint,
      previousNotAfter: previousNow === undefined ? undefined : minInstant(previousNow.notAfter, graceEnd),
      ...(stale !== undefined ? { leftoverKeyEnded: stale } : {}),
      expiredKeysRemoved: removed,
    });
    return { step: 'finishSecret', outcome: 'done', clientId, fingerprint };
  }

  /** Whether version `token` holds AWSCURRENT now: `unknown` when the secret cannot be described. */
  private async moveOutcome(secretId: string, token: string): Promise<'moved' | 'not_moved' | 'unknown'> {
    try {
      return versionWithStage(await this.secrets.describe(secretId), AWSCURRENT) === token ? 'moved' : 'not_moved';
    } catch (error) {
      this.log.error('finishSecret: after a failed move of AWSCURRENT the secret could not be described; the new key keeps no end and the previous key gets its own back, so both verify (a rerun of finishSecret, or the next rotation, ends the one left over).', {
        secretId,
        versionId: token,
        reason: reasonOf(error),
      });
      return 'unknown';
    }
  }

  /**
   * The record as a finish leaves it, once version `token` is AWSCURRENT: its key without a
   * not-after, and the key of AWSPREVIOUS with one no later than now + grace. A finish that
   * completed left it so already, and nothing is written. The writes expect the version read: a
   * record changed since is left as it is.
   */
  private async mendFinishedRecord(secretId: string, token: string, description: SecretDescription): Promise<void> {
    const version = await this.secrets.getVersion(secretId, { versionId: token });
    if (version === undefined) return;
    const held = keyOfSecret(version.secretString);
    if (held === undefined) return;
    const record = await this.client(clientIdOfSecret(version.secretString, secretId));
    const current = record.keys.find((k) => k.fingerprint === held.key.fingerprint);
    const previous = await this.previousKey(secretId, versionWithStage(description, AWSPREVIOUS), record, held.key.fingerprint);
    const mended: NotAfterChanges = { changes: [], version: record.version };
    try {
      await this.setFinishedNotAfters(record.clientId, current, previous, new Date(this.nowMs() + this.graceS * 1000).toISOString(), mended);
    } catch (error) {
      if (!isVersionConflict(error)) throw error;
      this.log.warn('finishSecret: the client changed after its record was read; its not-afters are left as they are (the later change stands).', {
        clientId: record.clientId,
        mended: mended.changes.map((c) => c.fingerprint),
        reason: reasonOf(error),
      });
      return;
    }
    if (mended.changes.length > 0) {
      this.log.warn('finishSecret: an undone finish had left not-afters as before the rotation; set them as a finish does.', {
        clientId: record.clientId,
        fingerprints: mended.changes.map((c) => c.fingerprint),
      });
    }
  }

  /**
   * Steps 2 and 3 of a finish on the record as it is after the settle wait: read again, and written
   * from the version read, so a change someone made meanwhile (a leaked old key cut short, a key
   * removed) is seen and kept; a change that lands between the read and a write is read in turn
   * (at most {@link FINISH_READS} reads).
   * @returns the previous key as the record read last holds it (undefined when it has left the record)
   * @throws SignetError `not_found` when the new key has left the record, `version_conflict` when it kept changing
   */
  private async finishNotAfters(
    clientId: string,
    newFingerprint: string,
    previousFingerprint: string | undefined,
    graceEnd: string,
    done: NotAfterChanges,
    staleFingerprint?: string,
  ): Promise<StoredPublicKey | undefined> {
    for (let read = 1; ; read++) {
      const record = await this.client(clientId);
      done.version = record.version;
      const newKey = record.keys.find((k) => k.fingerprint === newFingerprint);
      if (newKey === undefined) {
        throw new SignetError('not_found', `The pending key ${newFingerprint} left client ${clientId}'s record while the rotation waited, so it cannot become AWSCURRENT. Rotate again to make a new one.`);
      }
      const previous = previousFingerprint === undefined ? undefined : record.keys.find((k) => k.fingerprint === previousFingerprint);
      const stale = staleFingerprint === undefined ? undefined : record.keys.find((k) => k.fingerprint === staleFingerprint);
      try {
        await this.setFinishedNotAfters(clientId, newKey, previous, graceEnd, done);
        if (stale !== undefined && stale.notAfter === undefined) await this.setFinishedNotAfters(clientId, undefined, stale, graceEnd, done);
        return previous;
      } catch (error) {
        if (!isVersionConflict(error) || read === FINISH_READS) throw error;
      }
    }
  }

  /**
   * Steps 2 and 3 of a finish: the new key's not-after cleared, the previous key's set to
   * `graceEnd` (never later than one it has). Each change made is pushed to `done` with the value
   * it replaced, and `done.version` set to the version it wrote, as it is made, so a failure
   * part-way leaves `done` saying what to undo and from which version. Each write expects
   * `done.version` (`version_conflict` when the record changed since).
   */
  private async setFinishedNotAfters(
    clientId: string,
    newKey: StoredPublicKey | undefined,
    previous: StoredPublicKey | undefined,
    graceEnd: string,
    done: NotAfterChanges,
  ): Promise<void> {
    const set = async (key: StoredPublicKey, notAfter: string | undefined): Promise<void> => {
      const written = await this.registry.setKeyNotAfter(clientId, key.fingerprint, notAfter, ROTATION_ACTOR, done.version);
      done.version = written.version;
      done.changes.push({ fingerprint: key.fingerprint, notAfter: key.notAfter, setTo: notAfter });
    };
    if (newKey?.notAfter !== undefined) await set(newKey, undefined);
    if (previous !== undefined && (previous.notAfter === undefined || Date.parse(previous.notAfter) > Date.parse(graceEnd))) await set(previous, graceEnd);
  }

  /**
   * The fingerprint of the key version `versionId` holds, when the client holds it without a
   * not-after and it is none of `others`; undefined otherwise (quietly: an older version's key is
   * usually gone from the record).
   */
  private async keyWithoutEnd(secretId: string, versionId: string | undefined, record: ClientRecord, others: readonly (string | undefined)[]): Promise<string | undefined> {
    const held = await this.keyOfVersion(secretId, versionId, record);
    if (held === undefined || others.includes(held.fingerprint)) return undefined;
    return held.registered?.notAfter === undefined ? held.registered?.fingerprint : undefined;
  }

  /**
   * The fingerprint of the key version `versionId` holds, and that key as the client holds it
   * (undefined when not registered); undefined for no version or no readable key.
   */
  private async keyOfVersion(
    secretId: string,
    versionId: string | undefined,
    record: ClientRecord,
    onUnreadable?: (reason: string) => void,
  ): Promise<{ fingerprint: string; registered: StoredPublicKey | undefined } | undefined> {
    if (versionId === undefined) return undefined;
    const version = await this.secrets.getVersion(secretId, { versionId });
    const held = version === undefined ? undefined : keyOfSecret(version.secretString, onUnreadable);
    if (held === undefined) return undefined;
    return { fingerprint: held.key.fingerprint, registered: record.keys.find((k) => k.fingerprint === held.key.fingerprint) };
  }

  /** The key AWSCURRENT holds, as registered on the client (undefined: bootstrap value, or not registered). */
  private async previousKey(secretId: string, versionId: string | undefined, record: ClientRecord, newFingerprint: string): Promise<StoredPublicKey | undefined> {
    const held = await this.keyOfVersion(secretId, versionId, record, (reason) => {
      this.log.warn('finishSecret: the AWSCURRENT value holds no readable key; no previous key gets a not-after.', { secretId, versionId, reason });
    });
    if (held === undefined || held.fingerprint === newFingerprint) return undefined;
    if (held.registered === undefined) {
      this.log.warn('finishSecret: the previous key is not on the client any more.', { clientId: record.clientId, fingerprint: held.fingerprint });
    }
    return held.registered;
  }

  /**
   * Waits until `settleMs` after the new key last became valid, within this invocation's limit:
   * when it was added, when setSecret renewed its lapsed pending validity (its not-after less
   * that validity), or now for a key that has lapsed: an authorizer may have cached the record
   * while the key had lapsed.
   */
  private async settle(newKey: StoredPublicKey, limits: RunLimits): Promise<void> {
    if (this.settleMs === 0) return;
    const now = this.nowMs();
    const addedMs = Date.parse(newKey.addedAt);
    const notAfterMs = newKey.notAfter === undefined ? undefined : Date.parse(newKey.notAfter);
    // A lapsed key becomes valid again only now; a renewed one when its validity was given, as far
    // as this run can tell (a run with another grace gave it: an instant outside [added, now] is
    // not one, and the addition counts).
    const givenMs = notAfterMs === undefined ? undefined : notAfterMs - this.pendingValidityS() * 1000;
    const validSinceMs = notAfterMs !== undefined && notAfterMs <= now ? now : givenMs !== undefined && givenMs >= addedMs && givenMs <= now ? givenMs : addedMs;
    const needMs = validSinceMs + this.settleMs - now;
    if (!(needMs > 0)) return;
    const waitMs = Math.min(needMs, Math.max(0, limits.maxSettleWaitMs ?? needMs));
    if (waitMs < needMs) {
      this.log.warn('finishSecret: cannot wait until every authorizer cache holds the new key (raise the function timeout).', { needMs, waitMs });
    }
    if (waitMs > 0) {
      this.log.info('finishSecret: waiting for authorizer caches to pick up the new key.', { waitMs });
      await this.sleep(waitMs);
    }
  }

  /**
   * Puts not-afters back after a failed finish, last change first, each write expecting the
   * version the finish's last write left. When the record changed since then, it is read again and
   * only the not-afters that still hold what the finish gave them are put back (once more, from the
   * version read): one someone else changed stands. Each failure is logged, none hides the original error.
   */
  private async undo(clientId: string, done: NotAfterChanges): Promise<void> {
    let left = await this.putBack(clientId, [...done.changes].reverse(), done.version);
    if (left === undefined) return;
    let record: ClientRecord;
    try {
      record = await this.client(clientId);
    } catch (error) {
      this.log.error('finishSecret failed, the client changed after the finish set its not-afters, and it could not be read again: they are left as they are (the next attempt of this rotation completes it).', {
        clientId,
        notPutBack: left.map((c) => c.fingerprint),
        reason: reasonOf(error),
      });
      return;
    }
    const changedSince = left.filter((c) => record.keys.find((k) => k.fingerprint === c.fingerprint)?.notAfter !== c.setTo);
    if (changedSince.length > 0) {
      this.log.warn('finishSecret failed; not-afters someone changed after the finish set them are left as they are now (the later change stands).', {
        clientId,
        fingerprints: changedSince.map((c) => c.fingerprint),
      });
    }
    left = await this.putBack(clientId, left.filter((c) => !changedSince.includes(c)), record.version);
    if (left !== undefined) {
      this.log.error('finishSecret failed, and the client kept changing while its not-afters were put back: the rest are left as they are (the next attempt of this rotation completes it).', {
        clientId,
        notPutBack: left.map((c) => c.fingerprint),
      });
    }
  }

  /**
   * Writes each change's earlier not-after, in order, each expecting the version the previous
   * write left (`expected` for the first). Returns the changes not yet written when one met
   * `version_conflict`, else undefined; any other failure is logged and the next change is tried.
   */
  private async putBack(clientId: string, changes: readonly NotAfterChange[], expected: number): Promise<NotAfterChange[] | undefined> {
    let version = expected;
    for (const [i, change] of changes.entries()) {
      try {
        version = (await this.registry.setKeyNotAfter(clientId, change.fingerprint, change.notAfter, ROTATION_ACTOR, version)).version;
      } catch (error) {
        if (isVersionConflict(error)) return changes.slice(i);
        this.log.error('finishSecret failed and a not-after could not be put back; the next attempt of this rotation completes it.', {
          clientId,
          fingerprint: change.fingerprint,
          notAfter: change.notAfter,
          reason: reasonOf(error),
        });
      }
    }
  }

  /**
   * Removes the client's keys past their not-after, except `keep` and the last key, each removal
   * expecting the version read (then the one the last removal wrote): when the record changed
   * since (a key given a new life), the rest are left. Never throws.
   */
  private async removeExpiredKeys(clientId: string, keep: string): Promise<string[]> {
    const removed: string[] = [];
    try {
      const record = await this.client(clientId);
      const now = this.nowMs();
      let remaining = record.keys.length;
      let version = record.version;
      for (const key of record.keys) {
        if (key.fingerprint === keep || isKeyActive(key, now) || remaining <= 1) continue;
        version = (await this.registry.removeKey(clientId, key.fingerprint, ROTATION_ACTOR, version)).version;
        removed.push(key.fingerprint);
        remaining -= 1;
      }
    } catch (error) {
      if (isVersionConflict(error)) {
        this.log.warn('finishSecret: the client changed after its record was read; its expired keys are left as they are (the later change stands; a later rotation removes those still expired).', {
          clientId,
          removed,
          reason: reasonOf(error),
        });
        return removed;
      }
      this.log.warn('finishSecret: expired keys could not all be removed (they verify nothing; a later rotation removes them).', { clientId, reason: reasonOf(error) });
    }
    return removed;
  }

  private async pendingKey(secretId: string, token: string): Promise<ParsedSigningSecret> {
    const version = await this.secrets.getVersion(secretId, { versionId: token, stage: AWSPENDING });
    if (version === undefined) {
      throw new SignetError('not_found', `Secret ${secretId} has no value in version ${token} (${AWSPENDING}): createSecret has not run for this rotation.`);
    }
    return parseSigningSecret(version.secretString);
  }

  private async currentValue(secretId: string): Promise<string> {
    const version = await this.secrets.getVersion(secretId, { stage: AWSCURRENT });
    if (version === undefined) {
      throw new SignetError('not_found', `Secret ${secretId} has no ${AWSCURRENT} value. Store {"clientId": "<the registry's clientId>"} in it first.`);
    }
    return version.secretString;
  }

  private async client(clientId: string): Promise<ClientRecord> {
    const record = await this.registry.getClient(clientId, { consistentRead: true });
    if (record === undefined) {
      throw new SignetError('not_found', `No client ${clientId} in the registry, so its key cannot rotate. Register the client first, then rotate.`);
    }
    return record;
  }
}

function wholeNonNegative(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new SignetError('invalid_request', `${name} must be a whole number >= 0; got ${String(value)}.`);
  return value;
}

function isVersionConflict(error: unknown): boolean {
  return isSignetError(error) && error.code === 'version_conflict';
}

function minInstant(a: string | undefined, b: string): string {
  return a !== undefined && Date.parse(a) < Date.parse(b) ? a : b;
}

/** A failure's code or name, for a log line (messages of foreign errors may quote inputs). */
export function reasonOf(error: unknown): string {
  if (isSignetError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.name : 'unknown error';
}
