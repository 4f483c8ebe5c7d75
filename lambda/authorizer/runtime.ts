/**
 * The authorizer's long-lived parts, built once per cold start from the configuration: the
 * store, the cached client directory, the verification policy, the role catalogue, the replay
 * guard. `decide()` runs one decision and does the bookkeeping every door needs: the log line
 * (clientId, reason, latency; never a signature, base or key), the metrics, and the per-client
 * failure record.
 *
 * Every refusal is logged, with its reason, status and sentence. An allowed request is logged
 * only when it falls in the sample (SIGNET_ALLOWED_LOG_SAMPLE, by default one in a hundred,
 * evenly spaced): at thousands of requests a second a line per allowed request would cost about
 * as much in log ingestion as the function itself. Every decision is counted in the `Allowed` /
 * `Denied` metrics, added up in memory and handed to the metrics at most once a minute, or at
 * once on a refusal; the entry publishes them as one EMF line after that invocation
 * (./decision-counts.ts, which states what an instance retired may lose). A warm allowed request
 * therefore writes nothing most of the time and builds no log object.
 *
 * The failure record is kept in two places:
 *
 * - a refusal of a request one of the client's current keys signed (ip_not_allowed,
 *   role_forbidden, client_disabled, replayed_request) is an entry of the client's failure list,
 *   with what the request asked for: only the client can write those;
 * - any other refusal naming the client (bad signature, expired created, malformed headers, a
 *   signature by a key that has expired — a retired key may since have leaked) may come from
 *   anyone who knows the clientId: it only adds to a count per reason and hour, with no text from
 *   the request, so a flood cannot push the client's own entries out.
 *
 * Both are written at most once per (client, reason) per SIGNET_AUTH_FAILURE_RECORD_INTERVAL_MS.
 * Counts that arrive in between are added up in memory (bounded) and written once the interval
 * has passed, by whichever decision comes next (allowed or refused, for any client), at most
 * {@link MAX_COUNT_WRITES_PER_DECISION} of them per decision so no request pays for a backlog.
 *
 * An allowed decision notes that the client's key was used (./last-use-recorder.ts): at most one
 * write per (client, key) per SIGNET_LAST_USED_RECORD_INTERVAL_MS, started without being waited
 * for, never a read.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AdaptedRequest } from '../adapters/target-uri';
import type { SignetConfig } from '../config';
import { BoundedCache } from '../core/bounded-cache';
import { DEFAULT_CLIENT_CACHE_MAX_ENTRIES } from '../core/defaults';
import { isSignetError } from '../core/errors';
import { PublicKeyCache } from '../core/keys';
import { compileRoleCatalogue } from '../core/role-policy';
import { createVerifier, defaultVerifyPolicy } from '../core/verify';
import { AUTHORIZER_METRICS_INTERVAL_MS } from '../observability';
import { DynamoClientReader } from '../store/client-reader';
import { DynamoReplayGuard } from '../store/replay-store';
import { Decision, authorize } from './authorize';
import { ClientDirectory } from './client-directory';
import { DecisionCounts, EvenSample } from './decision-counts';
import { LastUseRecorder } from './last-use-recorder';

/** The most waiting unauthenticated counts one decision writes (the rest wait for the next decisions). */
const MAX_COUNT_WRITES_PER_DECISION = 4;

/** The most characters of the request's path (and keyid, method) a decision's log line holds: a longer one is cut and ends in `…`. */
export const MAX_LOGGED_PATH_CHARS = 256;
/** The most characters of a refusal's sentence a log line holds (a sentence may quote what the request sent). */
export const MAX_LOGGED_DETAIL_CHARS = 512;

function clipped(text: string | undefined, max: number): string | undefined {
  return text === undefined || text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export interface AuthorizerRuntimeOptions {
  readonly config: SignetConfig;
  readonly doc: DynamoDBDocumentClient;
  readonly logger: Logger;
  readonly metrics?: Metrics;
  /** Clock in ms. @default Date.now */
  readonly nowMs?: () => number;
}

export class AuthorizerRuntime {
  readonly directory: ClientDirectory;
  private readonly store: DynamoClientReader;
  private readonly deps: Parameters<typeof authorize>[1];

  private readonly recentFailures = new BoundedCache<string, true>(DEFAULT_CLIENT_CACHE_MAX_ENTRIES);
  /**
   * Per `clientId reason`: when its last count was written (the interval runs from there) and the
   * unauthenticated refusals counted since, not yet written. Bounded: the oldest is dropped first.
   */
  private readonly pendingCounts = new BoundedCache<string, { readonly clientId: string; readonly reason: string; count: number }>(DEFAULT_CLIENT_CACHE_MAX_ENTRIES);
  /** The earliest time a count waiting in {@link pendingCounts} may be written (Infinity: none waits). */
  private nextCountDueMs = Number.POSITIVE_INFINITY;
  private readonly nowMs: () => number;
  /** Records each (client, key)'s last use; undefined when the interval is 0 (off). */
  private readonly lastUse: LastUseRecorder | undefined;
  /** The Allowed / Denied / StaleRecordServed counts, added to the metrics in batches. */
  readonly counts: DecisionCounts;
  /** Which allowed decisions get a log line. */
  private readonly allowedLines: EvenSample;

  constructor(private readonly options: AuthorizerRuntimeOptions) {
    const { config, doc, logger, metrics } = options;
    const nowMs = options.nowMs ?? Date.now;
    this.nowMs = nowMs;
    this.counts = new DecisionCounts({ metrics, intervalMs: AUTHORIZER_METRICS_INTERVAL_MS, nowMs });
    this.allowedLines = new EvenSample(config.allowedLogSample);
    this.store = new DynamoClientReader({ tableName: config.tableName, client: doc, now: () => new Date(nowMs()) });
    this.directory = new ClientDirectory(this.store, {
      ttlMs: config.clientCacheTtlMs,
      staleIfErrorMs: config.staleIfErrorMs,
      keyCache: new PublicKeyCache(),
      nowMs,
      keySourceKeepDays: config.keySourceKeepDays,
      onKeyRefused: (clientId, fingerprint, error) => {
        const reason = isSignetError(error) ? error.code : 'unreadable';
        logger.error('stored public key refused: it is not used to verify this client', { clientId, keyFingerprint: fingerprint, reason, detail: isSignetError(error) ? error.message : String(error) });
      },
      onStaleServed: (clientId, error) => {
        logger.error('client registry unreachable; serving the cached record within the stale-if-error bound', { clientId, error });
        this.counts.countStaleServed();
      },
    });
    this.lastUse = config.lastUsedRecordIntervalMs > 0 ? new LastUseRecorder({ store: this.store, intervalMs: config.lastUsedRecordIntervalMs, nowMs, logger }) : undefined;
    this.deps = {
      verifier: createVerifier({
        policy: defaultVerifyPolicy({
          maxAgeS: config.maxAgeS,
          maxSkewS: config.maxSkewS,
          maxCoveredComponents: config.maxCoveredComponents,
          allowLegacy: config.allowLegacy,
          maxValidityS: config.webBotAuthMaxValidityS,
          nowS: () => Math.floor(nowMs() / 1000),
        }),
        profile: config.profile,
        replay: config.replayProtection ? new DynamoReplayGuard(doc, config.tableName, () => Math.floor(nowMs() / 1000)) : undefined,
      }),
      directory: this.directory,
      roles: compileRoleCatalogue(config.roleCatalogue),
    };
  }

  /**
   * One decision for an API Gateway event. `adapt` turns the event into the request to verify; an
   * event it cannot adapt (no method or host, a `..` path segment) is a refusal like any other:
   * logged, counted, answered with its code.
   */
  async decideEvent(adapt: () => AdaptedRequest): Promise<Decision> {
    const started = process.hrtime.bigint();
    let adapted: AdaptedRequest;
    try {
      adapted = adapt();
    } catch (error) {
      if (!isSignetError(error)) throw error;
      const decision: Decision = { allowed: false, error };
      await this.account(decision, undefined, started);
      return decision;
    }
    return this.decide(adapted, started);
  }

  /** One decision for an adapted event, logged, counted and (on refusal of a known client) recorded. */
  async decide(adapted: AdaptedRequest, started: bigint = process.hrtime.bigint()): Promise<Decision> {
    const decision = await authorize(
      { request: adapted.request, targetUriCandidates: adapted.alternativeTargetUris, operationPath: adapted.apiPath },
      this.deps,
    );
    await this.account(decision, adapted, started);
    return decision;
  }

  /** The bookkeeping of a decision: one log line (never a signature, base or key), a metric, the failure record. */
  private async account(decision: Decision, adapted: AdaptedRequest | undefined, started: bigint): Promise<void> {
    const { logger, config } = this.options;
    if (decision.allowed) {
      this.counts.countAllowed();
      if (this.allowedLines.take()) {
        const latencyMs = Number(process.hrtime.bigint() - started) / 1e6;
        logger.info('allowed', { clientId: decision.clientId, keyFingerprint: decision.fingerprint, method: adapted?.request.method, path: clipped(adapted?.apiPath, MAX_LOGGED_PATH_CHARS), latencyMs });
      }
      this.lastUse?.note(decision.clientId, decision.fingerprint);
      if (this.nowMs() >= this.nextCountDueMs) await this.writeDueCounts();
      return;
    }
    const latencyMs = Number(process.hrtime.bigint() - started) / 1e6;
    const method = adapted?.request.method;
    const path = adapted?.apiPath;
    const { error, clientId, keyId } = decision;
    this.counts.countDenied();
    const sourceIp = adapted?.request.sourceIp;
    // What a stranger sends sets the line's size no more than MAX_LOGGED_* allow (every refusal is logged).
    const fields = {
      clientId,
      keyId: clipped(keyId, MAX_LOGGED_PATH_CHARS),
      reason: error.code,
      status: error.status,
      detail: clipped(error.message, MAX_LOGGED_DETAIL_CHARS),
      method: clipped(method, MAX_LOGGED_PATH_CHARS),
      path: clipped(path, MAX_LOGGED_PATH_CHARS),
      sourceIp,
      latencyMs,
    };
    if (error.status >= 500) logger.error('refused: fail closed', { ...fields, error: error.cause ?? error });
    else logger.info('refused', fields);
    if (clientId === undefined || !config.recordAuthFailures || error.status >= 500) {
      await this.writeDueCounts();
      return;
    }
    try {
      if (decision.authenticated) {
        if (this.firstRecentFailure(clientId, error.code)) await this.store.recordAuthFailure(clientId, error.code, { message: error.message, sourceIp, method, path });
      } else {
        const count = this.unauthenticatedCountDue(clientId, error.code);
        if (count > 0) await this.store.countUnauthenticatedFailures(clientId, error.code, count);
      }
    } catch (recordError) {
      logger.warn('could not record the auth failure', { clientId, reason: error.code, error: recordError });
    }
    await this.writeDueCounts();
  }

  /** Resolves once the last-use writes started so far have ended (they are never waited for by a decision). */
  async settled(): Promise<void> {
    await this.lastUse?.settled();
  }

  /**
   * Writes the counts whose interval has passed (at most {@link MAX_COUNT_WRITES_PER_DECISION}),
   * so a burst of forged requests shows up even when nothing for that client follows it. A count
   * that cannot be written stays in memory for the next attempt.
   */
  private async writeDueCounts(): Promise<void> {
    const now = this.nowMs();
    if (now < this.nextCountDueMs) return;
    const due: string[] = [];
    let nextDue = Number.POSITIVE_INFINITY;
    for (const [key, { value, expiresAtMs }] of this.pendingCounts.peekAll()) {
      if (value.count === 0) continue;
      if (expiresAtMs <= now && due.length < MAX_COUNT_WRITES_PER_DECISION) due.push(key);
      else nextDue = Math.min(nextDue, Math.max(expiresAtMs, now + 1));
    }
    this.nextCountDueMs = nextDue;
    const interval = this.options.config.authFailureRecordIntervalMs;
    for (const key of due) {
      const entry = this.pendingCounts.peek(key);
      if (entry === undefined || entry.value.count === 0) continue;
      const { clientId, reason, count } = entry.value;
      try {
        await this.store.countUnauthenticatedFailures(clientId, reason, count);
        this.pendingCounts.set(key, { clientId, reason, count: 0 }, now + interval);
      } catch (error) {
        this.options.logger.warn('could not record the auth failure', { clientId, reason, error });
        this.nextCountDueMs = now + 1;
      }
    }
  }

  /**
   * Counts one unauthenticated refusal; returns how many to write now (this one and those counted
   * in memory since the last write), or 0 while the last write is younger than the interval.
   */
  private unauthenticatedCountDue(clientId: string, reason: string): number {
    const key = `${clientId} ${reason}`;
    const now = this.nowMs();
    const entry = this.pendingCounts.peek(key);
    if (entry !== undefined && entry.expiresAtMs > now) {
      entry.value.count += 1;
      this.nextCountDueMs = Math.min(this.nextCountDueMs, entry.expiresAtMs);
      return 0;
    }
    this.pendingCounts.set(key, { clientId, reason, count: 0 }, now + this.options.config.authFailureRecordIntervalMs);
    return (entry?.value.count ?? 0) + 1;
  }

  /** False when this client's same refusal was recorded within the configured interval (bounded memory). */
  private firstRecentFailure(clientId: string, reason: string): boolean {
    const key = `${clientId} ${reason}`;
    const now = this.nowMs();
    const interval = this.options.config.authFailureRecordIntervalMs;
    if (interval === 0) return true;
    if (this.recentFailures.get(key, now) !== undefined) return false;
    this.recentFailures.set(key, true, now + interval);
    return true;
  }
}
